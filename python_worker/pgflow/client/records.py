"""What the client returns: runs and step states, and what run control returns, as frozen records.

Runs and step states are built from the JSON the SQL API returns (``to_jsonb`` of
``pgflow.runs`` and ``pgflow.step_states`` rows, ``pgflow.get_run_with_states``); the
run-control records (:class:`RunControlResult`, :class:`RunEvent`, :class:`RetryingTask`)
from the rows of their statements. Timestamps become aware datetimes. The signal records
are in :mod:`pgflow.client.signal_records`, those of keyed starts, slots and deadlines
(:class:`~pgflow.client.start_records.StartedRun`, ...) in
:mod:`pgflow.client.start_records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Self

#: Every status a run can be in (``pgflow.runs.status``): ``queued`` waits for a slot of
#: its concurrency key (no step started yet), ``expired`` passed its deadline.
RUN_STATUSES: Final = ("queued", "started", "paused", "completed", "failed", "cancelled", "expired")

#: Run statuses a run leaves only by an operator's verb (retry_run of a failed run), if
#: ever: the run is finished.
TERMINAL_RUN_STATUSES: Final = frozenset({"completed", "failed", "cancelled", "expired"})


@dataclass(frozen=True)
class StepState:
    """One step of a run (a ``pgflow.step_states`` row).

    Attributes:
        step_slug: the step.
        status: ``created``, ``started``, ``completed``, ``failed``, ``skipped`` or
            ``cancelled`` (an unfinished step of a run that failed or was cancelled).
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
        cancelled_at: when it was cancelled.
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
    cancelled_at: datetime | None = None

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
            cancelled_at=_timestamp(row.get("cancelled_at")),
        )


@dataclass(frozen=True)
class Run:
    """One run (a ``pgflow.runs`` row), without its steps.

    Attributes:
        run_id: the run's uuid, as text.
        flow_slug: the flow it runs.
        status: one of :data:`RUN_STATUSES`: ``queued`` (over its flow's concurrency
            limit, waiting for a slot), ``started``, ``paused``, ``completed``, ``failed``,
            ``cancelled`` or ``expired`` (its deadline passed).
        input: the run input (JSON value).
        output: once completed, an object of the leaf steps' outputs by step slug.
        remaining_steps: steps not yet completed or skipped.
        started_at: when the run started.
        completed_at: when it completed.
        failed_at: when it failed (None again once retried).
        cancelled_at: when it was cancelled (``cancel_run``).
        paused_at: when it was paused, while it is (``pause_run``).
        rerun_of: the run this one reruns (``rerun_flow``), as text.
        idempotency_key: the key it was started with (``start_flow(idempotency_key=)``).
        concurrency_key: the key whose slots it takes (``start_flow(concurrency_key=)``).
        deadline: when it expires if still unfinished (database clock), or None.
        queued_at: when it was queued for a slot (kept once it starts), or None.
        expired_at: when the tick expired it, or None.
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
    cancelled_at: datetime | None = None
    paused_at: datetime | None = None
    rerun_of: str | None = None
    idempotency_key: str | None = None
    concurrency_key: str | None = None
    deadline: datetime | None = None
    queued_at: datetime | None = None
    expired_at: datetime | None = None

    @property
    def finished(self) -> bool:
        """True once the run is completed, failed, cancelled or expired (not while queued)."""
        return self.status in TERMINAL_RUN_STATUSES

    @property
    def duration_seconds(self) -> float | None:
        """Seconds from start to its end (completed, failed, cancelled, expired); else None."""
        end = self.completed_at or self.failed_at or self.cancelled_at or self.expired_at
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
    def from_json(cls, state: Mapping[str, Any]) -> Self:
        """Build from ``{"run": <runs row>, "steps": [<step_states rows>]}``."""
        steps = tuple(StepState.from_row(row) for row in state.get("steps") or ())
        return cls(**_run_fields(state["run"]), steps=steps)


@dataclass(frozen=True)
class RunControlResult:
    """What a run-control verb did (a ``pgflow.run_control_result`` row).

    Attributes:
        run_id: the run acted on; for ``rerun`` the NEW run (unless nothing was done).
        status: the run's status after the call.
        changed: False when nothing was done because the run was no longer in the
            ``expected_status`` given (a late or concurrent call); True otherwise.
        detail: why nothing was done (``"run is failed, not started: nothing done"``), else
            None.
    """

    run_id: str
    status: str
    changed: bool
    detail: str | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RunControlResult:
        """Build from a ``(run_id, status, changed, detail)`` row."""
        run_id, status, changed, detail = row
        return cls(run_id=str(run_id), status=status, changed=bool(changed), detail=detail)


@dataclass(frozen=True)
class RunEvent:
    """One entry of a run's audit trail (a ``pgflow.run_events`` row).

    Attributes:
        id: the event's number; events are ordered by it (oldest first).
        run_id: the run, as text.
        step_slug: the step, for ``step:*`` and ``task:*`` events.
        task_index: the task, for ``task:*`` events.
        event: what happened: ``run:started``, ``run:completed``, ``run:failed``,
            ``run:cancelled``, ``run:paused``, ``run:resumed``, ``run:retried``,
            ``run:rerun``, ``step:<status>``, ``step:reset``, ``task:failed``,
            ``task:requeued``, ``task:permanently_stalled``, and for waits
            ``signal:received``, ``signal:duplicate``, ``signal:taken``,
            ``wait:timed_out``, ``timer:fired``.
        actor: who caused it (``worker:<id>``, ``system``, ``app``, or the actor given to a
            verb).
        reason: the reason given to a verb, else None.
        details: what else the event carries (errors, attempt numbers, the new run of a
            rerun), a JSON object or None.
        created_at: when it was written (database clock).
    """

    id: int
    run_id: str
    step_slug: str | None
    task_index: int | None
    event: str
    actor: str
    reason: str | None
    details: Any
    created_at: datetime

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RunEvent:
        """Build from a ``pgflow.get_run_events`` row, columns in table order."""
        id_, run_id, step_slug, task_index, event, actor, reason, details, created_at = row
        return cls(
            id=id_,
            run_id=str(run_id),
            step_slug=step_slug,
            task_index=task_index,
            event=event,
            actor=actor,
            reason=reason,
            details=details,
            created_at=created_at,
        )


@dataclass(frozen=True)
class RetryingTask:
    """A task of a run waiting for its next attempt after a failed one.

    Attributes:
        step_slug: the step.
        task_index: the task (0 for a single step, the element for a map step).
        attempts_count: attempts made so far.
        error_message: the error of the last failed attempt.
        failed_at: when the last attempt failed (from the run's ``task:failed`` event);
            None when the run's events were pruned.
        next_attempt_at: when the task is due again: the failure time plus the backoff
            ``floor(base_delay * 2^attempts_count)`` seconds, as ``fail_task`` set it on
            the queue message. None while the run is paused (the task waits for
            ``resume_run``) or when the task was requeued since (it is due at once).
    """

    step_slug: str
    task_index: int
    attempts_count: int
    error_message: str
    failed_at: datetime | None
    next_attempt_at: datetime | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RetryingTask:
        """Build from a row of :data:`pgflow.client.queries.RETRYING_TASKS`."""
        step_slug, task_index, attempts_count, error_message, failed_at, next_at = row
        return cls(step_slug, task_index, attempts_count, error_message, failed_at, next_at)


def _run_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`Run` fields of a ``to_jsonb(runs)`` object (absent columns: None)."""
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
        "cancelled_at": _timestamp(row.get("cancelled_at")),
        "paused_at": _timestamp(row.get("paused_at")),
        "rerun_of": None if row.get("rerun_of") is None else str(row["rerun_of"]),
        # pgflow-py 0.2.0 columns: absent from older rows and upstream's.
        "idempotency_key": row.get("idempotency_key"),
        "concurrency_key": row.get("concurrency_key"),
        "deadline": _timestamp(row.get("deadline")),
        "queued_at": _timestamp(row.get("queued_at")),
        "expired_at": _timestamp(row.get("expired_at")),
    }


def _timestamp(value: Any) -> datetime | None:
    """Parse a jsonb timestamptz (ISO 8601 text) into an aware datetime."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))
