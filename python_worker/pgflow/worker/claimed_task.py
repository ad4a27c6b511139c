"""A task ``start_tasks`` handed to this worker: what the executor runs and reports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pgflow.dsl import Flow
from pgflow.worker.cancellation import TaskCancellation


@dataclass(frozen=True, kw_only=True)
class ClaimedTask:
    """A task ``start_tasks`` returned to this worker, with what the poller knows of it.

    Attributes:
        flow: the DSL flow (``pgflow.dsl.Flow``) the task belongs to.
        worker_id: the worker row that claimed it (text uuid).
        record: the ``step_task_record`` row as a dict.
        message: the pgmq message read for it (``msg_id``, ``read_ct``, ...).
        attempt: ``attempts_count`` after the claim (1 = first attempt).
        cancellation: whether the task was found cancelled meanwhile (``ctx.cancelled``).
    """

    flow: Flow
    worker_id: str
    record: Mapping[str, Any]
    message: Mapping[str, Any]
    attempt: int
    cancellation: TaskCancellation = field(
        default_factory=TaskCancellation, repr=False, compare=False
    )

    @property
    def run_id(self) -> str:
        """The run id as text."""
        return str(self.record["run_id"])

    @property
    def step_slug(self) -> str:
        """The step slug."""
        return str(self.record["step_slug"])

    @property
    def task_index(self) -> int:
        """The task index."""
        return int(self.record["task_index"])

    def log_fields(self) -> dict[str, Any]:
        """Fields every log line about this task carries."""
        return {
            "flow_slug": self.flow.slug,
            "run_id": self.run_id,
            "step_slug": self.step_slug,
            "task_index": self.task_index,
            "attempt": self.attempt,
            "msg_id": self.record["msg_id"],
            "worker_id": self.worker_id,
        }
