"""One run in full, for the dashboard's run page: steps, tasks, attempts, events, signals.

:func:`load_run` reads a run with its flow's steps (and their dependencies, for the DAG),
its tasks with their workers and attempts (:mod:`pgflow.observe.run_tasks`: a started
task whose worker is dead or stopped is marked), its audit trail
(``pgflow.get_run_events``), its past (:mod:`pgflow.observe.run_history`: failed attempts
before and after retries, reruns), its signals (``pgflow.signals``) and its waits. Reads
only. ``redact=True`` leaves out every payload (run input and output, step and task
outputs, signal payloads); error texts stay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

import psycopg
from psycopg.rows import dict_row

from pgflow.client.records import RunEvent
from pgflow.observe.run_attempts import Attempt, TaskView
from pgflow.observe.run_history import RunHistory, read_history
from pgflow.observe.run_tasks import DeadHeld, read_tasks
from pgflow.observe.runs import RunSummary, summarize_run
from pgflow.observe.workers import DEAD_AFTER_S_DEFAULT

#: At most this many events are read for a run: the newest.
MAX_EVENTS: Final = 1000

_RUN: Final = (
    "select r.*, coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) as ended_at,"
    " pgflow._now() as db_now from pgflow.runs as r where r.run_id = %(run_id)s::uuid"
)
_STEPS: Final = (
    "select s.step_slug, s.step_type, s.step_index, ss.status, ss.initial_tasks,"
    " ss.remaining_tasks, ss.error_message, ss.skip_reason, ss.output, ss.started_at,"
    " ss.completed_at, ss.failed_at, ss.skipped_at, ss.cancelled_at,"
    " coalesce((select array_agg(d.dep_slug order by d.dep_slug) from pgflow.deps as d"
    "  where d.flow_slug = s.flow_slug and d.step_slug = s.step_slug), '{}') as deps,"
    " sw.kind as wait_kind, sw.signal_name as wait_signal,"
    " coalesce(s.opt_base_delay, f.opt_base_delay)::float8 as base_delay"
    " from pgflow.steps as s"
    " join pgflow.flows as f on f.flow_slug = s.flow_slug"
    " left join pgflow.step_states as ss on ss.run_id = %(run_id)s::uuid"
    "  and ss.step_slug = s.step_slug"
    " left join pgflow.step_waits as sw on sw.flow_slug = s.flow_slug"
    "  and sw.step_slug = s.step_slug"
    " where s.flow_slug = %(flow_slug)s order by s.step_index"
)
_EVENTS: Final = (
    "select e.id, e.run_id, e.step_slug, e.task_index, e.event, e.actor, e.reason, e.details,"
    " e.created_at from pgflow.get_run_events(%(run_id)s::uuid) as e"
    " order by e.id desc limit %(limit)s"
)
_SIGNALS: Final = (
    "select signal_id, signal_name, payload, idempotency_key, status, received_at, taken_at,"
    " taken_by_step, actor, reason from pgflow.signals where run_id = %(run_id)s::uuid"
    " order by signal_id"
)
_WAITS: Final = (
    "select step_slug, waiting_since, deadline, resolved_at, outcome"
    " from pgflow.wait_states where run_id = %(run_id)s::uuid"
)


@dataclass(frozen=True)
class StepView:
    """One step of the run's flow with its state in the run.

    Attributes:
        step_slug: the step.
        step_type: ``single`` or ``map``.
        step_index: its place in the flow's definition order.
        deps: the steps it depends on.
        depth: 0 for a root step, else 1 + the largest depth of its deps (the DAG layer).
        status: its status in the run (``created``, ``started``, ``waiting``,
            ``completed``, ``failed``, ``skipped``, ``cancelled``).
        initial_tasks: its task count (None until known).
        remaining_tasks: tasks not finished (None before it starts).
        error_message: why it failed, else None.
        skip_reason: why it was skipped, else None.
        output: its output once completed (None when redacted).
        started_at: when it started.
        ended_at: when it completed, failed, was skipped or cancelled.
        wait: what it waits for, when it is a wait step: ``signal approved`` or ``timer``.
    """

    step_slug: str
    step_type: str
    step_index: int
    deps: tuple[str, ...]
    depth: int
    status: str
    initial_tasks: int | None
    remaining_tasks: int | None
    error_message: str | None
    skip_reason: str | None
    output: Any
    started_at: datetime | None
    ended_at: datetime | None
    wait: str | None


@dataclass(frozen=True)
class SignalView:
    """A signal sent to the run (a ``pgflow.signals`` row; payload None when redacted)."""

    signal_id: int
    signal_name: str
    payload: Any
    idempotency_key: str | None
    status: str
    received_at: datetime
    taken_at: datetime | None
    taken_by_step: str | None
    actor: str
    reason: str | None


@dataclass(frozen=True)
class RunDetail:
    """Everything the run page shows.

    Attributes:
        summary: the run as the runs list shows it, with its sentence.
        run: the ``pgflow.runs`` row (``input`` and ``output`` None when redacted) plus
            ``ended_at``.
        now: the engine's time (``pgflow._now()``) when it was read (the timeline's right
            edge).
        steps: the flow's steps in definition order, with their state in the run.
        tasks: the run's tasks in step and task order (at most
            :data:`~pgflow.observe.run_tasks.MAX_TASKS`, and
            :data:`~pgflow.observe.run_tasks.TASKS_PER_STEP` per step).
        tasks_total: how many tasks the run has.
        attempts: the attempts of those tasks, in the same order (those made before a
            retry of the run included).
        events: the audit trail, oldest first (the newest :data:`MAX_EVENTS` events).
        events_truncated: True when older events were left out.
        signals: the signals sent to the run, oldest first.
        history: its failed attempts (before retries too), retries and reruns.
        dead_held: its started tasks held by a dead worker, or None when there is none.
        tasks_not_read: per step, its tasks left out of ``tasks`` (the step's only when
            some were).
        redacted: True when payloads were left out.
    """

    summary: RunSummary
    run: Mapping[str, Any]
    now: datetime
    steps: list[StepView]
    tasks: list[TaskView]
    tasks_total: int
    attempts: list[Attempt]
    events: list[RunEvent]
    events_truncated: bool
    signals: list[SignalView]
    history: RunHistory = field(default_factory=lambda: RunHistory([], 0, [], []))
    dead_held: DeadHeld | None = None
    tasks_not_read: dict[str, int] = field(default_factory=dict)
    redacted: bool = field(default=False)


def load_run(
    conn: psycopg.Connection[Any],
    run_id: str,
    *,
    redact: bool = False,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
) -> RunDetail | None:
    """Read one run in full for the run page.

    Args:
        conn: an open connection (only reads).
        run_id: the run's uuid as text.
        redact: leave out the run input and output, step and task outputs and signal
            payloads (error texts are kept).
        dead_after_s: seconds without a heartbeat after which a worker is dead.

    Returns:
        The run, or None when no run has this id.

    Raises:
        psycopg.errors.InvalidTextRepresentation: ``run_id`` is not a uuid.
        psycopg.Error: any other refusal (e.g. no privilege on pgflow's tables).
    """
    params: dict[str, Any] = {"run_id": run_id}
    with conn.cursor(row_factory=dict_row) as cur:
        run = cur.execute(_RUN, params).fetchone()
        if run is None:
            return None
        summary = summarize_run(conn, run_id, dead_after_s=dead_after_s)
        params["flow_slug"] = run["flow_slug"]
        waits = {w["step_slug"]: w for w in cur.execute(_WAITS, params).fetchall()}
        step_rows = cur.execute(_STEPS, params).fetchall()
        event_rows = cur.execute(_EVENTS, {**params, "limit": MAX_EVENTS + 1}).fetchall()
        signal_rows = cur.execute(_SIGNALS, params).fetchall()
    history = read_history(conn, run_id)
    base_delays = {
        row["step_slug"]: row["base_delay"] for row in step_rows if row["base_delay"] is not None
    }
    tasks = read_tasks(
        conn,
        run_id,
        redact=redact,
        dead_after_s=dead_after_s,
        retried_at=history.retried_at,
        base_delays=base_delays,
    )
    if summary is None:  # pragma: no cover - deleted between the two reads
        return None
    events = [RunEvent.from_row(list(row.values())) for row in reversed(event_rows)]
    if redact:
        run = {**run, "input": None, "output": None}
    return RunDetail(
        summary=summary,
        run=run,
        now=run["db_now"],
        steps=_steps(step_rows, waits, redact),
        tasks=tasks.tasks,
        tasks_total=tasks.total,
        attempts=tasks.attempts,
        events=events[-MAX_EVENTS:],
        events_truncated=len(events) > MAX_EVENTS,
        signals=[
            SignalView(**{**row, "payload": None if redact else row["payload"]})
            for row in signal_rows
        ],
        history=history,
        dead_held=tasks.dead_held,
        tasks_not_read=tasks.not_read,
        redacted=redact,
    )


def _steps(
    rows: Sequence[Mapping[str, Any]], waits: Mapping[str, Mapping[str, Any]], redact: bool
) -> list[StepView]:
    depths: dict[str, int] = {}
    steps = []
    for row in rows:  # definition order is topological: deps come first
        deps = tuple(row["deps"])
        depth = 1 + max((depths.get(dep, 0) for dep in deps), default=-1)
        depths[row["step_slug"]] = depth
        wait = None
        if row["wait_kind"] == "signal":
            wait = f"signal {row['wait_signal']}"
        elif row["wait_kind"] == "timer":
            wait = "timer"
        ended = row["completed_at"] or row["failed_at"] or row["skipped_at"] or row["cancelled_at"]
        steps.append(
            StepView(
                step_slug=row["step_slug"],
                step_type=row["step_type"],
                step_index=row["step_index"],
                deps=deps,
                depth=depth,
                status=row["status"] or "created",
                initial_tasks=row["initial_tasks"],
                remaining_tasks=row["remaining_tasks"],
                error_message=row["error_message"],
                skip_reason=row["skip_reason"],
                output=None if redact else row["output"],
                started_at=row["started_at"]
                or (waits.get(row["step_slug"]) or {}).get("waiting_since"),
                ended_at=ended,
                wait=wait,
            )
        )
    return steps
