"""Workers as an operator sees them: live, dead, deprecated or stopped, and what they hold.

:func:`list_workers` reads ``pgflow.workers`` with each worker's tasks in flight (its
started tasks, ``step_tasks.last_worker_id``); :func:`dead_worker_tasks` lists the started
tasks whose worker is gone (dead or stopped), which look like running work until the
stalled-task sweep (``pgflow.requeue_stalled_tasks``, run by ``pgflow.tick()``) requeues
them. Heartbeat ages come from the engine's clock (``pgflow._now()``, the database's
``now()`` outside tests), never Python's.

A worker is **dead** when it did not stop (``stopped_at`` is NULL) and its last heartbeat
is older than ``dead_after_s``. The default, :data:`DEAD_AFTER_S_DEFAULT` (60 s), is twelve
of the worker's heartbeat intervals (``WorkerConfig.heartbeat_interval_seconds``, 5 s), so
a heartbeat delayed by a busy pool or a database failover does not flag a worker, and is
longer than the default shutdown grace (``shutdown_grace_seconds``, 30 s): a stopping
worker stops its heartbeat, marks its rows deprecated, then drains its handlers for up to
that grace before it marks them stopped, so a worker draining after a deploy is not shown
dead. Raise ``dead_after_s`` above your shutdown grace if you configured a longer one.

A worker stops refreshing a row once the row is deprecated (on shutdown, or by an operator
through ``pgflow.deprecate_worker``), so a deprecated row with a stale heartbeat is only
dead while it still holds started tasks; without any it stays ``deprecated``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, LiteralString, get_args

import psycopg

WorkerState = Literal["live", "dead", "deprecated", "stopped"]
#: Every worker state, in the order tables list them.
WORKER_STATES: Final[tuple[WorkerState, ...]] = get_args(WorkerState)

#: Seconds without a heartbeat after which a worker that did not stop counts as dead.
DEAD_AFTER_S_DEFAULT: Final = 60.0

#: Seconds after its last heartbeat during which a dead worker without started tasks is
#: still listed by default (``include_ended=False``); a dead worker holding started tasks
#: is listed until they are requeued.
DEAD_LISTED_FOR_S: Final = 3600.0

#: Seconds the stalled-task sweep adds to a step's timeout before it requeues a started
#: task (``pgflow.requeue_stalled_tasks``).
SWEEP_BUFFER_S: Final = 30


@dataclass(frozen=True)
class WorkerRow:
    """One row of ``pgflow.workers``: a worker process serving one flow.

    Attributes:
        worker_id: the row's id (fresh per process boot and flow).
        flow_slug: the flow it serves (``workers.queue_name``).
        function_name: its deployment name.
        started_at: when it registered.
        last_heartbeat_at: its last heartbeat.
        heartbeat_age_s: seconds since that heartbeat, on the database clock.
        state: ``live``, ``dead``, ``deprecated`` or ``stopped`` (see the module).
        tasks_in_flight: its started tasks (``step_tasks`` status ``started`` whose
            ``last_worker_id`` is this worker).
        deprecated_at: when it was told to stop reading, or None.
        stopped_at: when it stopped gracefully, or None.
    """

    worker_id: uuid.UUID
    flow_slug: str
    function_name: str
    started_at: datetime
    last_heartbeat_at: datetime
    heartbeat_age_s: float
    state: WorkerState
    tasks_in_flight: int
    deprecated_at: datetime | None = None
    stopped_at: datetime | None = None


@dataclass(frozen=True)
class DeadWorkerTask:
    """A started task whose worker is gone: nobody will report it.

    Attributes:
        run_id: the task's run.
        flow_slug: its flow.
        step_slug: its step.
        task_index: its index (0 for a single step).
        attempt: the attempt the worker was running (``attempts_count``).
        requeued_count: how often the sweep requeued it already (given up after 3).
        started_at: when that attempt started.
        run_status: ``started`` or ``paused`` (the sweep leaves a paused run's tasks
            alone until it is resumed).
        worker_id: the worker that claimed it.
        worker_state: ``dead`` (heartbeat stopped) or ``stopped`` (stopped gracefully
            without finishing it: its shutdown grace ran out).
        last_heartbeat_at: that worker's last heartbeat.
        heartbeat_age_s: seconds since it, on the database clock.
        sweep_at: when the stalled-task sweep acts on the task (``started_at`` + the
            step's timeout + 30 s): it requeues it, or, after 3 requeues, fails it.
        sweep_in_s: seconds until ``sweep_at`` on the database clock (negative: due, done
            by the next ``pgflow.tick()``).
    """

    run_id: uuid.UUID
    flow_slug: str
    step_slug: str
    task_index: int
    attempt: int
    requeued_count: int
    started_at: datetime
    run_status: str
    worker_id: uuid.UUID
    worker_state: Literal["dead", "stopped"]
    last_heartbeat_at: datetime
    heartbeat_age_s: float
    sweep_at: datetime
    sweep_in_s: float


#: The workers with their started tasks; ``include_ended`` false hides the stopped rows
#: and the dead ones older than ``listed_for_s``, unless they hold started tasks.
_LIST_WORKERS: Final[LiteralString] = """
select w.worker_id, w.queue_name, w.function_name, w.started_at, w.last_heartbeat_at,
       date_part('epoch', (select pgflow._now()) - w.last_heartbeat_at) as heartbeat_age_s,
       w.deprecated_at, w.stopped_at, t.in_flight
from pgflow.workers as w
cross join lateral (
  select count(*)::int as in_flight
  from pgflow.step_tasks as st
  where st.last_worker_id = w.worker_id and st.status = 'started'
) as t
where %(include_ended)s
   or t.in_flight > 0
   or (w.stopped_at is null
       and w.last_heartbeat_at >= (select pgflow._now()) - make_interval(secs => %(listed_for_s)s))
order by w.queue_name, w.started_at desc, w.worker_id
"""

#: Started tasks of started steps of unfinished runs whose worker stopped or has not beaten
#: for ``dead_after_s``: the work the stalled-task sweep will requeue.
_DEAD_WORKER_TASKS: Final[LiteralString] = """
select t.run_id, t.flow_slug, t.step_slug, t.task_index, t.attempts_count, t.requeued_count,
       t.started_at, r.status, w.worker_id, w.stopped_at is not null as stopped,
       w.last_heartbeat_at,
       date_part('epoch', (select pgflow._now()) - w.last_heartbeat_at) as heartbeat_age_s,
       d.sweep_at, date_part('epoch', d.sweep_at - (select pgflow._now())) as sweep_in_s
from pgflow.step_tasks as t
join pgflow.workers as w on w.worker_id = t.last_worker_id
join pgflow.runs as r on r.run_id = t.run_id
join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
join pgflow.flows as f on f.flow_slug = t.flow_slug
cross join lateral (
  select t.started_at
         + make_interval(secs => coalesce(s.opt_timeout, f.opt_timeout) + %(buffer_s)s)
         as sweep_at
) as d
where t.status = 'started'
  and r.status in ('started', 'paused')
  and ss.status = 'started'
  and (w.stopped_at is not null
       or w.last_heartbeat_at < (select pgflow._now()) - make_interval(secs => %(dead_after_s)s))
order by t.started_at, t.run_id, t.step_slug, t.task_index
limit %(limit)s
"""


def worker_state(
    *,
    heartbeat_age_s: float,
    deprecated: bool,
    stopped: bool,
    tasks_in_flight: int,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
) -> WorkerState:
    """Classify a worker row (the rules of the module docstring).

    Args:
        heartbeat_age_s: seconds since its last heartbeat (database clock).
        deprecated: ``deprecated_at`` is set.
        stopped: ``stopped_at`` is set.
        tasks_in_flight: its started tasks.
        dead_after_s: seconds without a heartbeat after which it is dead.

    Returns:
        ``stopped`` when it stopped; ``dead`` when its heartbeat is older than
        ``dead_after_s`` (a deprecated row only while it holds started tasks);
        ``deprecated`` or ``live`` otherwise.
    """
    if stopped:
        return "stopped"
    stale = heartbeat_age_s > dead_after_s
    if deprecated:
        return "dead" if stale and tasks_in_flight > 0 else "deprecated"
    return "dead" if stale else "live"


def list_workers(
    conn: psycopg.Connection[Any],
    *,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
    include_ended: bool = False,
) -> list[WorkerRow]:
    """Return the registered workers with their state and tasks in flight.

    Args:
        conn: a connection to the pgflow database (reads ``pgflow.workers``: the
            ``pgflow_operator`` role may, ``pgflow_client`` may not).
        dead_after_s: seconds without a heartbeat after which a worker is dead.
        include_ended: also list stopped workers and workers dead for more than
            :data:`DEAD_LISTED_FOR_S` (1 h) that hold no started task (by default they
            are left out: they accumulate until ``pgflow.prune_data_older_than``).

    Returns:
        The workers ordered by flow, newest first within a flow.

    Raises:
        ValueError: ``dead_after_s`` is not positive.
        psycopg.Error: the query failed (e.g. permission denied on ``pgflow.workers``).
    """
    if dead_after_s <= 0:
        raise ValueError(f"dead_after_s must be positive, got {dead_after_s}")
    params = {"include_ended": include_ended, "listed_for_s": DEAD_LISTED_FOR_S}
    rows = conn.execute(_LIST_WORKERS, params).fetchall()
    workers = []
    for wid, flow, function, started, beat, age, deprecated, stopped, in_flight in rows:
        state = worker_state(
            heartbeat_age_s=age,
            deprecated=deprecated is not None,
            stopped=stopped is not None,
            tasks_in_flight=in_flight,
            dead_after_s=dead_after_s,
        )
        workers.append(
            WorkerRow(
                wid, flow, function, started, beat, age, state, in_flight, deprecated, stopped
            )
        )
    return workers


def dead_worker_tasks(
    conn: psycopg.Connection[Any],
    *,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
    limit: int = 1000,
) -> list[DeadWorkerTask]:
    """Return the started tasks whose worker is dead or stopped, oldest start first.

    Only tasks the sweep will act on count: started tasks of a started step of a started
    or paused run (a task left behind by a skipped step is not work any more).

    Args:
        conn: a connection to the pgflow database (reads ``pgflow.workers``).
        dead_after_s: seconds without a heartbeat after which a worker is dead.
        limit: the most tasks returned.

    Returns:
        The tasks, oldest ``started_at`` first.

    Raises:
        ValueError: ``dead_after_s`` or ``limit`` is not positive.
        psycopg.Error: the query failed.
    """
    if dead_after_s <= 0:
        raise ValueError(f"dead_after_s must be positive, got {dead_after_s}")
    if limit <= 0:
        raise ValueError(f"limit must be positive, got {limit}")
    params = {"dead_after_s": float(dead_after_s), "limit": limit, "buffer_s": SWEEP_BUFFER_S}
    rows = conn.execute(_DEAD_WORKER_TASKS, params).fetchall()
    return [
        DeadWorkerTask(
            run_id=run_id,
            flow_slug=flow,
            step_slug=step,
            task_index=index,
            attempt=attempt,
            requeued_count=requeued,
            started_at=started,
            run_status=run_status,
            worker_id=wid,
            worker_state="stopped" if stopped else "dead",
            last_heartbeat_at=beat,
            heartbeat_age_s=age,
            sweep_at=sweep_at,
            sweep_in_s=sweep_in,
        )
        for (
            run_id,
            flow,
            step,
            index,
            attempt,
            requeued,
            started,
            run_status,
            wid,
            stopped,
            beat,
            age,
            sweep_at,
            sweep_in,
        ) in rows
    ]
