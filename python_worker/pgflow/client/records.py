"""What the client returns: runs and step states, as frozen records.

Built from the JSON the SQL API returns (``to_jsonb`` of ``pgflow.runs`` and
``pgflow.step_states`` rows, ``pgflow.get_run_with_states``); timestamps become aware
datetimes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

#: Run statuses after which nothing changes.
TERMINAL_RUN_STATUSES: Final = frozenset({"completed", "failed"})


@dataclass(frozen=True)
class StepState:
    """One step of a run (a ``pgflow.step_states`` row).

    Attributes:
        step_slug: the step.
        status: ``created``, ``started``, ``completed``, ``failed`` or ``skipped``.
        initial_tasks: number of tasks (None until known, for dependent maps).
        remaining_tasks: tasks not yet completed (None before the step starts).
        remaining_deps: dependencies not yet completed.
        output: the step output once completed (map: array of task outputs).
        error_message: why the step failed.
        skip_reason: why the step was skipped.
        created_at: when the run created the step.
        started_at: when its tasks were queued.
        completed_at: when it completed.
        failed_at: when it failed.
        skipped_at: when it was skipped.
    """

    step_slug: str
    status: str
    initial_tasks: int | None
    remaining_tasks: int | None
    remaining_deps: int
    output: Any
    error_message: str | None
    skip_reason: str | None
    created_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None
    skipped_at: datetime | None

    @property
    def completed_tasks(self) -> int:
        """Tasks completed so far (0 while the task count is unknown)."""
        if self.initial_tasks is None:
            return 0
        if self.remaining_tasks is None:
            return self.initial_tasks if self.status == "completed" else 0
        return self.initial_tasks - self.remaining_tasks

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StepState:
        """Build from a ``to_jsonb(step_states)`` object."""
        return cls(
            step_slug=row["step_slug"],
            status=row["status"],
            initial_tasks=row.get("initial_tasks"),
            remaining_tasks=row.get("remaining_tasks"),
            remaining_deps=row.get("remaining_deps", 0),
            output=row.get("output"),
            error_message=row.get("error_message"),
            skip_reason=row.get("skip_reason"),
            created_at=_timestamp(row.get("created_at")),
            started_at=_timestamp(row.get("started_at")),
            completed_at=_timestamp(row.get("completed_at")),
            failed_at=_timestamp(row.get("failed_at")),
            skipped_at=_timestamp(row.get("skipped_at")),
        )


@dataclass(frozen=True)
class Run:
    """One run (a ``pgflow.runs`` row), without its steps.

    Attributes:
        run_id: the run's uuid, as text.
        flow_slug: the flow it runs.
        status: ``started``, ``completed`` or ``failed``.
        input: the run input (JSON value).
        output: once completed, an object of the leaf steps' outputs by step slug.
        remaining_steps: steps not yet completed or skipped.
        started_at: when the run started.
        completed_at: when it completed.
        failed_at: when it failed.
    """

    run_id: str
    flow_slug: str
    status: str
    input: Any
    output: Any
    remaining_steps: int
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None

    @property
    def finished(self) -> bool:
        """True once the run is completed or failed."""
        return self.status in TERMINAL_RUN_STATUSES

    @property
    def duration_seconds(self) -> float | None:
        """Seconds from start to completion or failure; None while running."""
        end = self.completed_at or self.failed_at
        if end is None or self.started_at is None:
            return None
        return (end - self.started_at).total_seconds()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Run:
        """Build from a ``to_jsonb(runs)`` object."""
        return cls(**_run_fields(row))


@dataclass(frozen=True)
class RunState(Run):
    """A run with the state of each of its steps (``pgflow.get_run_with_states``).

    Attributes:
        steps: the step states in the flow's step order.
    """

    steps: tuple[StepState, ...] = ()

    @property
    def failed_step(self) -> StepState | None:
        """The first failed step, if any (it carries the error message)."""
        return next((step for step in self.steps if step.status == "failed"), None)

    def step(self, step_slug: str) -> StepState:
        """Return the state of step ``step_slug``.

        Raises:
            KeyError: the run has no such step.
        """
        for step in self.steps:
            if step.step_slug == step_slug:
                return step
        raise KeyError(f"run {self.run_id} has no step {step_slug!r}")

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> RunState:
        """Build from ``{"run": <runs row>, "steps": [<step_states rows>]}``."""
        steps = tuple(StepState.from_row(row) for row in state.get("steps") or ())
        return cls(**_run_fields(state["run"]), steps=steps)


def _run_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "run_id": str(row["run_id"]),
        "flow_slug": row["flow_slug"],
        "status": row["status"],
        "input": row.get("input"),
        "output": row.get("output"),
        "remaining_steps": row.get("remaining_steps", 0),
        "started_at": _timestamp(row.get("started_at")),
        "completed_at": _timestamp(row.get("completed_at")),
        "failed_at": _timestamp(row.get("failed_at")),
    }


def _timestamp(value: Any) -> datetime | None:
    """Parse a jsonb timestamptz (ISO 8601 text) into an aware datetime."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))
