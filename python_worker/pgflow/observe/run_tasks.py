"""A run's tasks for the run page: the worker of each, dead workers, and their attempts.

:func:`read_tasks` reads the run's tasks (at most :data:`TASKS_PER_STEP` per step, those
not completed cleanly first, so that a large map step leaves room for the steps after it),
each with the worker that last claimed it (``pgflow.workers``). A started task whose worker
is dead (no heartbeat for ``dead_after_s``, :mod:`pgflow.observe.workers`) or stopped is
marked: it looks like running work, but nobody will report it; the stalled-task sweep
acts on it once its step's timeout + 30 s has passed since it started. Those tasks are
also counted for the whole run (:class:`DeadHeld`). The attempts of the tasks read are
rebuilt from their failed and requeued events (:func:`pgflow.observe.run_attempts.attempts_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import psycopg
from psycopg.rows import dict_row

from pgflow.observe.run_attempts import Attempt, TaskView, attempts_of
from pgflow.observe.workers import DEAD_AFTER_S_DEFAULT, SWEEP_BUFFER_S

#: At most this many tasks (and their attempts) are read for a run, in step and task order.
MAX_TASKS: Final = 1000
#: At most this many tasks of one step are read: those not completed cleanly (unfinished,
#: failed, retried) first, then by task index.
TASKS_PER_STEP: Final = 100

# A started task whose worker stopped, or has not beaten for dead_after_s, is held by a dead
# worker; the stalled-task sweep acts on it at its start + the step's timeout + buffer_s.
_DEAD: Final = (
    "(w.stopped_at is not null"
    " or w.last_heartbeat_at < (select pgflow._now()) - make_interval(secs => %(dead_after_s)s))"
)
_SWEEP_AT: Final = (
    "t.started_at + make_interval(secs => coalesce(s.opt_timeout, f.opt_timeout) + %(buffer_s)s)"
)
_TASKS: Final = (
    "with ranked as (select t.*, count(*) over () as total,"
    " count(*) over (partition by t.step_slug) as step_total, row_number() over ("
    "  partition by t.step_slug"
    "  order by (t.status = 'completed' and t.error_message is null), t.task_index) as nth"
    " from pgflow.step_tasks as t where t.run_id = %(run_id)s::uuid)"
    " select t.step_slug, t.task_index, t.status, t.attempts_count, t.attempt_offset,"
    " t.error_message, t.output, t.queued_at, t.started_at, t.completed_at, t.failed_at,"
    " t.cancelled_at, t.requeued_count, t.last_worker_id::text as worker_id,"
    " w.function_name as worker_function, w.queue_name as worker_queue,"
    " w.last_heartbeat_at as worker_heartbeat_at,"
    " coalesce(t.status = 'started' and " + _DEAD + ", false) as worker_dead,"
    " " + _SWEEP_AT + " as sweep_at, t.total, t.step_total"
    " from ranked as t"
    " join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug"
    " join pgflow.flows as f on f.flow_slug = t.flow_slug"
    " left join pgflow.workers as w on w.worker_id = t.last_worker_id"
    " where t.nth <= %(per_step)s order by s.step_index, t.task_index limit %(limit)s"
)
# The failed and requeued attempts of the tasks read, and the starts of the run's steps.
_TASK_EVENTS: Final = (
    "select e.step_slug, e.task_index, e.event, e.details, e.created_at"
    " from pgflow.run_events as e where e.run_id = %(run_id)s::uuid"
    " and (e.event = 'step:started' or (e.event in ('task:failed', 'task:requeued')"
    "  and (e.step_slug, e.task_index) in (select k.step_slug, k.task_index from unnest("
    "   %(step_slugs)s::text[], %(task_indexes)s::int[]) as k (step_slug, task_index))))"
    " order by e.id"
)
# The started tasks of the run's started steps held by a dead worker, in one row (read from
# the dead workers' started tasks: idx_step_tasks_last_worker).
_DEAD_HELD: Final = (
    "select count(*)::int, count(distinct w.worker_id)::int, bool_and(w.stopped_at is not null),"
    " max(w.last_heartbeat_at),"
    " date_part('epoch', (select pgflow._now()) - max(w.last_heartbeat_at)),"
    " min(" + _SWEEP_AT + "),"
    " date_part('epoch', min(" + _SWEEP_AT + ") - (select pgflow._now()))"
    " from pgflow.workers as w"
    " join pgflow.step_tasks as t on t.last_worker_id = w.worker_id and t.status = 'started'"
    " join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug"
    " join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug"
    " join pgflow.flows as f on f.flow_slug = t.flow_slug"
    " where t.run_id = %(run_id)s::uuid and ss.status = 'started' and " + _DEAD
)


@dataclass(frozen=True)
class DeadHeld:
    """The run's started tasks held by a dead (or stopped) worker: nobody will report them.

    Attributes:
        tasks: how many (of its started steps).
        workers: how many workers hold them.
        stopped: every one of those workers stopped (none just lost its heartbeat).
        last_heartbeat_at: the latest heartbeat among those workers.
        heartbeat_age_s: seconds since it, on the database clock.
        sweep_at: when the stalled-task sweep first acts on one of them (requeues it, or
            fails it after 3 requeues): its start + the step's timeout + 30 s.
        sweep_in_s: seconds until then on the database clock (negative: due, done by the
            next ``pgflow.tick()``; the sweep leaves a paused run's tasks alone).
    """

    tasks: int
    workers: int
    stopped: bool
    last_heartbeat_at: datetime
    heartbeat_age_s: float
    sweep_at: datetime
    sweep_in_s: float


@dataclass(frozen=True)
class RunTasks:
    """The tasks of a run as the run page shows them.

    Attributes:
        tasks: the tasks read, in step and task order.
        total: how many tasks the run has.
        not_read: per step, its tasks left out of ``tasks`` (only steps with some).
        attempts: the attempts of the tasks read, in the same order.
        dead_held: the run's started tasks held by a dead worker, or None when none is.
    """

    tasks: list[TaskView]
    total: int
    not_read: dict[str, int]
    attempts: list[Attempt]
    dead_held: DeadHeld | None


def read_tasks(
    conn: psycopg.Connection[Any],
    run_id: str,
    *,
    redact: bool = False,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
    retried_at: Sequence[datetime] = (),
    base_delays: Mapping[str, float] | None = None,
) -> RunTasks:
    """Read a run's tasks, their workers and attempts.

    Args:
        conn: an open connection (only reads).
        run_id: the run's uuid as text.
        redact: leave the tasks' outputs out.
        dead_after_s: seconds without a heartbeat after which a worker is dead.
        retried_at: when the run was retried (``run:retried``), oldest first.
        base_delays: per step, its ``base_delay`` in seconds (for the retry backoffs).

    Returns:
        The tasks (at most :data:`MAX_TASKS`, :data:`TASKS_PER_STEP` per step).

    Raises:
        psycopg.errors.InvalidTextRepresentation: ``run_id`` is not a uuid.
        psycopg.Error: any other refusal (e.g. no privilege on ``pgflow.workers``).
    """
    params: dict[str, Any] = {
        "run_id": run_id,
        "dead_after_s": float(dead_after_s),
        "buffer_s": SWEEP_BUFFER_S,
        "limit": MAX_TASKS,
        "per_step": TASKS_PER_STEP,
    }
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(_TASKS, params).fetchall()
        params["step_slugs"] = [row["step_slug"] for row in rows]
        params["task_indexes"] = [row["task_index"] for row in rows]
        events = cur.execute(_TASK_EVENTS, params).fetchall()
    with conn.cursor() as plain:
        held = plain.execute(_DEAD_HELD, params).fetchone()
    tasks = [_task(row, redact) for row in rows]
    return RunTasks(
        tasks=tasks,
        total=int(rows[0]["total"]) if rows else 0,
        not_read=_not_read(rows),
        attempts=attempts_of(tasks, events, retried_at=retried_at, base_delays=base_delays),
        dead_held=DeadHeld(*held) if held is not None and held[0] else None,
    )


def _not_read(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Per step, its tasks not among ``rows`` (a step with none read is left out)."""
    read: dict[str, int] = {}
    totals: dict[str, int] = {}
    for row in rows:
        read[row["step_slug"]] = read.get(row["step_slug"], 0) + 1
        totals[row["step_slug"]] = int(row["step_total"])
    return {step: totals[step] - n for step, n in read.items() if totals[step] > n}


def _task(row: Mapping[str, Any], redact: bool) -> TaskView:
    return TaskView(
        step_slug=row["step_slug"],
        task_index=row["task_index"],
        status=row["status"],
        attempts_count=row["attempts_count"],
        error_message=row["error_message"],
        output=None if redact else row["output"],
        queued_at=row["queued_at"],
        started_at=row["started_at"],
        ended_at=row["completed_at"] or row["failed_at"] or row["cancelled_at"],
        requeued_count=row["requeued_count"],
        worker_id=row["worker_id"],
        worker_function=row["worker_function"],
        worker_queue=row["worker_queue"],
        attempt_offset=row["attempt_offset"],
        worker_dead=bool(row["worker_dead"]),
        worker_heartbeat_at=row["worker_heartbeat_at"],
        sweep_at=row["sweep_at"] if row["worker_dead"] else None,
    )
