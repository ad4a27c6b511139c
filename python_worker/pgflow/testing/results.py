"""What :func:`pgflow.testing.run_flow` returns: a run with its steps, tasks, waits and events.

Read back from the engine's tables after the run stopped, so every status, output, attempt
count, error and time is what the database holds (times on the engine's clock,
``pgflow._now()``, which a test moves with the clock fixture).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString

import psycopg

from pgflow.client.queries import GET_RUN_EVENTS, GET_RUN_WAITS
from pgflow.client.records import RunEvent
from pgflow.client.signal_records import RunWait

_RUN: Final[LiteralString] = (
    "select r.run_id::text, r.flow_slug, r.status, r.input, r.output, r.started_at,"
    " r.completed_at, r.failed_at, r.cancelled_at, r.expired_at, r.deadline"
    " from pgflow.runs as r where r.run_id = %(run_id)s::uuid"
)

_STEPS: Final[LiteralString] = (
    "select ss.step_slug, ss.status, ss.output, ss.error_message, ss.skip_reason,"
    " ss.created_at, ss.started_at, ss.completed_at, ss.failed_at, ss.skipped_at,"
    " ss.cancelled_at"
    " from pgflow.step_states as ss"
    " join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug"
    " where ss.run_id = %(run_id)s::uuid order by s.step_index"
)

_TASKS: Final[LiteralString] = (
    "select t.step_slug, t.task_index, t.status, t.attempts_count, t.output, t.error_message,"
    " t.queued_at, t.started_at, t.completed_at, t.failed_at"
    " from pgflow.step_tasks as t where t.run_id = %(run_id)s::uuid"
    " order by t.step_slug, t.task_index"
)


@dataclass(frozen=True)
class TaskResult:
    """One task of a step (a ``pgflow.step_tasks`` row).

    Attributes:
        index: the task index (0 for a single step, the element's index for a map step).
        status: ``queued``, ``started``, ``completed``, ``failed`` or ``cancelled``.
        attempts: attempts made (1 = it ran once).
        output: the handler's result (JSON value), None unless completed.
        error: the last failed attempt's error message (``"<TypeName>: <message>"``).
        queued_at, started_at, completed_at, failed_at: engine times (aware datetimes).
    """

    index: int
    status: str
    attempts: int
    output: Any
    error: str | None
    queued_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None


@dataclass(frozen=True)
class StepResult:
    """One step of the run (a ``pgflow.step_states`` row) with its tasks.

    Attributes:
        slug: the step slug.
        status: ``created``, ``started``, ``waiting``, ``completed``, ``failed``,
            ``skipped`` or ``cancelled``.
        output: the step's output (a map step's: the array of its tasks' outputs), None
            unless completed.
        error: why the step failed, None otherwise.
        skip_reason: why it was skipped (a condition, a failed dependency...), else None.
        tasks: its tasks in index order (none for a step without handler, a skipped step
            or one that never started).
        created_at, started_at, completed_at, failed_at, skipped_at, cancelled_at: engine
            times (aware datetimes).
    """

    slug: str
    status: str
    output: Any
    error: str | None
    skip_reason: str | None
    tasks: tuple[TaskResult, ...]
    created_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None
    skipped_at: datetime | None
    cancelled_at: datetime | None

    @property
    def attempts(self) -> int:
        """Attempts of the step's task (the most any of a map step's tasks made); 0: none."""
        return max((task.attempts for task in self.tasks), default=0)


@dataclass(frozen=True)
class FlowRun:
    """A run as the database holds it after :func:`~pgflow.testing.run_flow` stopped.

    Attributes:
        run_id: the run (uuid as text).
        flow_slug: its flow.
        status: ``completed``, ``failed``, ``cancelled``, ``expired``; ``started`` when it
            stopped waiting for a signal nothing will send (see :attr:`waiting_for`), or
            ``paused`` / ``queued``.
        input: the run input.
        output: the run output (the leaf steps' outputs by slug), None unless completed.
        steps: every step by slug, in the flow's order.
        waits: the waits of the run's steps (``pgflow.get_run_waits``), in step order.
        events: the audit trail (``pgflow.get_run_events``), oldest first.
        handler_calls: how many handler calls :func:`run_flow` made for this run.
        started_at, completed_at, failed_at, cancelled_at, expired_at, deadline: engine
            times (aware datetimes).
    """

    run_id: str
    flow_slug: str
    status: str
    input: Any
    output: Any
    steps: Mapping[str, StepResult]
    waits: tuple[RunWait, ...]
    events: tuple[RunEvent, ...]
    handler_calls: int
    started_at: datetime
    completed_at: datetime | None
    failed_at: datetime | None
    cancelled_at: datetime | None
    expired_at: datetime | None
    deadline: datetime | None

    def step(self, slug: str) -> StepResult:
        """Return the step ``slug``.

        Raises:
            KeyError: the flow has no such step (the message lists those it has).
        """
        try:
            return self.steps[slug]
        except KeyError:
            raise KeyError(
                f"no step {slug!r} in this run (steps: {', '.join(self.steps)})"
            ) from None

    @property
    def waiting_for(self) -> tuple[str, ...]:
        """Signal names the run's steps still wait for, in step order (a test sends them)."""
        return tuple(
            wait.signal_name
            for wait in self.waits
            if wait.waiting and wait.kind == "signal" and wait.signal_name is not None
        )

    @property
    def failed_steps(self) -> tuple[StepResult, ...]:
        """The steps that failed, in the flow's order."""
        return tuple(step for step in self.steps.values() if step.status == "failed")

    def events_named(self, event: str) -> tuple[RunEvent, ...]:
        """The events called ``event`` (e.g. ``"task:failed"``), oldest first."""
        return tuple(e for e in self.events if e.event == event)


async def load_run(
    conn: psycopg.AsyncConnection[Any], run_id: str, handler_calls: int = 0
) -> FlowRun:
    """Read a run back from the database.

    Raises:
        LookupError: no run has this id.
    """
    params = {"run_id": run_id}
    cur = await conn.execute(_RUN, params)
    row = await cur.fetchone()
    if row is None:
        raise LookupError(f"no run {run_id} in this database")
    tasks: dict[str, list[TaskResult]] = {}
    for t in await (await conn.execute(_TASKS, params)).fetchall():
        tasks.setdefault(t[0], []).append(TaskResult(*t[1:]))
    steps = {
        s[0]: _step(s, tuple(tasks.get(s[0], ())))
        for s in await (await conn.execute(_STEPS, params)).fetchall()
    }
    waits = tuple(
        RunWait.from_row(w) for w in await (await conn.execute(GET_RUN_WAITS, params)).fetchall()
    )
    events = tuple(
        RunEvent.from_row(e) for e in await (await conn.execute(GET_RUN_EVENTS, params)).fetchall()
    )
    (
        run_id_,
        flow_slug,
        status,
        input_,
        output,
        started,
        completed,
        failed,
        cancelled,
        expired,
        deadline,
    ) = row
    return FlowRun(
        run_id=run_id_,
        flow_slug=flow_slug,
        status=status,
        input=input_,
        output=output,
        steps=steps,
        waits=waits,
        events=events,
        handler_calls=handler_calls,
        started_at=started,
        completed_at=completed,
        failed_at=failed,
        cancelled_at=cancelled,
        expired_at=expired,
        deadline=deadline,
    )


def _step(row: Sequence[Any], tasks: tuple[TaskResult, ...]) -> StepResult:
    (
        slug,
        status,
        output,
        error,
        skip_reason,
        created,
        started,
        completed,
        failed,
        skipped,
        cancelled,
    ) = row
    return StepResult(
        slug=slug,
        status=status,
        output=output,
        error=error,
        skip_reason=skip_reason,
        tasks=tasks,
        created_at=created,
        started_at=started,
        completed_at=completed,
        failed_at=failed,
        skipped_at=skipped,
        cancelled_at=cancelled,
    )
