"""Errors that stop a worker from starting; each carries the process exit code."""

from __future__ import annotations

from pgflow.errors import PgflowError


class WorkerStartupError(PgflowError):
    """The worker cannot start (schema missing, invalid flow, ...); exit code 2."""

    exit_code = 2


class FlowShapeMismatch(WorkerStartupError):
    """A flow stored in the database differs from the worker's definition; exit code 1."""

    exit_code = 1

    def __init__(self, flow_slug: str, differences: list[str]) -> None:
        self.flow_slug = flow_slug
        self.differences = differences
        lines = "\n".join(f"  - {d}" for d in differences)
        super().__init__(
            f"flow {flow_slug!r} in the database differs from this worker's definition:\n"
            f"{lines}\n"
            "Use a new flow slug (e.g. a version suffix), or --allow-data-loss to drop and "
            "recreate the flow with ALL its runs."
        )
