"""Runs that need an operator: what holds each one, where, since when, in words.

A run is listed once per reason (and step) that holds it:

- ``permanently_stalled``: a task was given up on after its worker stopped without
  reporting 4 times (``step_tasks.permanently_stalled_at``): a failed run whose step failed
  that way (retry it once the workers are healthy), or a started or paused run whose task
  is still started (left by a version before 0.2.0: fail or complete the task).
- ``dead_worker``: started tasks whose worker is dead or stopped
  (:func:`pgflow.observe.workers.dead_worker_tasks`); the stalled-task sweep requeues
  them once the step's timeout + 30 s has passed since they started.
- ``waiting_too_long``: a step of a started run waiting for a signal longer than
  ``wait_threshold_s``, or a wait whose deadline (signal timeout, timer) passed more than
  :data:`WAIT_OVERDUE_AFTER_S` ago without a tick firing it (is ``pgflow.tick()`` called?).
  A timer that is not due yet is never listed: the flow asked for that sleep.
- ``paused``: every paused run (``pause_run``), with who paused it and why.
- ``queued_too_long``: a run queued for a concurrency slot longer than
  ``queued_threshold_s``.

Every age is measured on the engine's clock (``pgflow._now()``, the database's ``now()``
outside tests).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, LiteralString, get_args

import psycopg
from psycopg import sql

from pgflow.observe.workers import DEAD_AFTER_S_DEFAULT, SWEEP_BUFFER_S

StuckReason = Literal[
    "permanently_stalled", "dead_worker", "waiting_too_long", "paused", "queued_too_long"
]
#: Every reason, in the order :func:`stuck_counts` lists them.
STUCK_REASONS: Final[tuple[StuckReason, ...]] = get_args(StuckReason)

#: Default threshold of ``waiting_too_long`` for signal waits: a day.
WAIT_THRESHOLD_S_DEFAULT: Final = 86400.0
#: Default threshold of ``queued_too_long``: an hour.
QUEUED_THRESHOLD_S_DEFAULT: Final = 3600.0
#: A wait whose deadline passed this many seconds ago without being fired is overdue: the
#: tick (worker-side or pg_cron, at most a minute apart) should have fired it.
WAIT_OVERDUE_AFTER_S: Final = 300.0


@dataclass(frozen=True)
class StuckRun:
    """One reason why one run does not move on by itself.

    Attributes:
        run_id: the run.
        flow_slug: its flow.
        reason: one of :data:`STUCK_REASONS`.
        step_slug: the step concerned, or None (``paused``, ``queued_too_long``).
        since: since when it has been held this way (the stall, the dead worker's last
            heartbeat, the start of the wait or its missed deadline, the pause, the queueing).
        age_s: seconds since ``since``, on the database clock.
        detail: what holds it, in words (e.g. ``"2 tasks held by worker 3f2a1b0c, no
            heartbeat for 5m; the stalled-task sweep requeues them in 40s"``).
    """

    run_id: uuid.UUID
    flow_slug: str
    reason: StuckReason
    step_slug: str | None
    since: datetime
    age_s: float
    detail: str


# Each part returns (run_id, flow_slug, reason, step_slug, since, facts jsonb); the union of
# the parts asked for is then aged and ordered. Parameters: dead_after_s, buffer_s,
# wait_threshold_s, overdue_s, queued_threshold_s (seconds, float8).
_PARTS: Final[dict[StuckReason, LiteralString]] = {
    "permanently_stalled": """
select t.run_id, r.flow_slug, 'permanently_stalled' as reason, t.step_slug,
       min(t.permanently_stalled_at) as since,
       jsonb_build_object('tasks', count(*), 'task_index', min(t.task_index),
                          'still_started', bool_or(t.status = 'started')) as facts
from pgflow.step_tasks as t
join pgflow.runs as r on r.run_id = t.run_id
join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
where t.permanently_stalled_at is not null
  and ((t.status = 'started' and r.status in ('started', 'paused'))
       or (t.status = 'failed' and ss.status = 'failed' and r.status = 'failed'))
group by t.run_id, r.flow_slug, t.step_slug""",
    "dead_worker": """
select t.run_id, t.flow_slug, 'dead_worker' as reason, t.step_slug,
       min(coalesce(w.stopped_at, w.last_heartbeat_at)) as since,
       jsonb_build_object(
         'tasks', count(*), 'task_index', min(t.task_index),
         'workers', count(distinct w.worker_id), 'worker_id', min(w.worker_id::text),
         'stopped', bool_and(w.stopped_at is not null), 'run_status', min(r.status),
         'sweep_in_s', date_part('epoch', min(t.started_at + make_interval(
           secs => coalesce(s.opt_timeout, f.opt_timeout) + %(buffer_s)s))
           - (select pgflow._now()))) as facts
from pgflow.step_tasks as t
join pgflow.workers as w on w.worker_id = t.last_worker_id
join pgflow.runs as r on r.run_id = t.run_id
join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
join pgflow.flows as f on f.flow_slug = t.flow_slug
where t.status = 'started'
  and r.status in ('started', 'paused')
  and ss.status = 'started'
  and (w.stopped_at is not null
       or w.last_heartbeat_at < (select pgflow._now()) - make_interval(secs => %(dead_after_s)s))
group by t.run_id, t.flow_slug, t.step_slug""",
    "waiting_too_long": """
select ws.run_id, ws.flow_slug, 'waiting_too_long' as reason, ws.step_slug,
       case when o.overdue then ws.deadline else ws.waiting_since end as since,
       jsonb_build_object('kind', sw.kind, 'signal_name', sw.signal_name,
                          'overdue', o.overdue,
                          'deadline_in_s',
                          date_part('epoch', ws.deadline - (select pgflow._now()))) as facts
from pgflow.runs as r
join pgflow.wait_states as ws on ws.run_id = r.run_id
join pgflow.step_waits as sw on sw.flow_slug = ws.flow_slug and sw.step_slug = ws.step_slug
cross join lateral (
  select coalesce(ws.deadline < (select pgflow._now()) - make_interval(secs => %(overdue_s)s),
                  false) as overdue
) as o
where r.status = 'started'
  and ws.resolved_at is null
  and (o.overdue
       or (sw.kind = 'signal'
           and ws.waiting_since
               < (select pgflow._now()) - make_interval(secs => %(wait_threshold_s)s)))""",
    "paused": """
select r.run_id, r.flow_slug, 'paused' as reason, null::text as step_slug,
       coalesce(r.paused_at, r.started_at) as since,
       jsonb_build_object('actor', e.actor, 'why', e.reason) as facts
from pgflow.runs as r
left join lateral (
  select ev.actor, ev.reason
  from pgflow.run_events as ev
  where ev.run_id = r.run_id and ev.event = 'run:paused'
  order by ev.id desc
  limit 1
) as e on true
where r.status = 'paused'""",
    "queued_too_long": """
select r.run_id, r.flow_slug, 'queued_too_long' as reason, null::text as step_slug,
       coalesce(r.queued_at, r.started_at) as since,
       jsonb_build_object('concurrency_key', r.concurrency_key) as facts
from pgflow.runs as r
where r.status = 'queued'
  and coalesce(r.queued_at, r.started_at)
      < (select pgflow._now()) - make_interval(secs => %(queued_threshold_s)s)""",
}


def stuck_runs(
    conn: psycopg.Connection[Any],
    *,
    wait_threshold_s: float = WAIT_THRESHOLD_S_DEFAULT,
    queued_threshold_s: float = QUEUED_THRESHOLD_S_DEFAULT,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
    limit: int = 500,
    reasons: Collection[str] | None = None,
    flow_slug: str | None = None,
) -> list[StuckRun]:
    """Return the runs held by one of the reasons of the module, longest held first.

    Args:
        conn: a connection to the pgflow database (reads ``pgflow.workers``: the
            ``pgflow_operator`` role may).
        wait_threshold_s: seconds a step may wait for a signal before it is listed.
        queued_threshold_s: seconds a run may wait for a concurrency slot before it is
            listed.
        dead_after_s: seconds without a heartbeat after which a worker is dead.
        limit: the most rows returned.
        reasons: only these reasons (default: all of :data:`STUCK_REASONS`).
        flow_slug: only runs of this flow.

    Returns:
        One row per run, reason and step, oldest ``since`` first.

    Raises:
        ValueError: a threshold or ``limit`` is not positive, or an unknown reason.
        psycopg.Error: the query failed.
    """
    if limit <= 0:
        raise ValueError(f"limit must be positive, got {limit}")
    union, params = _union(wait_threshold_s, queued_threshold_s, dead_after_s, reasons)
    query = sql.SQL(
        "select s.run_id, s.flow_slug, s.reason, s.step_slug, s.since,"
        " date_part('epoch', (select pgflow._now()) - s.since) as age_s, s.facts"
        " from ({union}) as s"
        " where %(flow_slug)s::text is null or s.flow_slug = %(flow_slug)s::text"
        " order by s.since, s.run_id, s.reason, s.step_slug limit %(limit)s"
    ).format(union=union)
    rows = conn.execute(query, {**params, "flow_slug": flow_slug, "limit": limit}).fetchall()
    return [
        StuckRun(run_id, flow, reason, step, since, age, _detail(reason, facts, age))
        for run_id, flow, reason, step, since, age, facts in rows
    ]


def stuck_counts(
    conn: psycopg.Connection[Any],
    *,
    wait_threshold_s: float = WAIT_THRESHOLD_S_DEFAULT,
    queued_threshold_s: float = QUEUED_THRESHOLD_S_DEFAULT,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
) -> dict[str, int]:
    """Count the runs held by each reason (a run counts once per reason, whatever its steps).

    Args:
        conn: a connection to the pgflow database.
        wait_threshold_s: as :func:`stuck_runs`.
        queued_threshold_s: as :func:`stuck_runs`.
        dead_after_s: as :func:`stuck_runs`.

    Returns:
        Every reason of :data:`STUCK_REASONS`, in that order, with its count (0 included).

    Raises:
        ValueError: a threshold is not positive.
        psycopg.Error: the query failed.
    """
    union, params = _union(wait_threshold_s, queued_threshold_s, dead_after_s, None)
    query = sql.SQL(
        "select s.reason, count(distinct s.run_id)::int from ({union}) as s group by s.reason"
    ).format(union=union)
    counts: dict[str, int] = dict.fromkeys(STUCK_REASONS, 0)
    for reason, count in conn.execute(query, params).fetchall():
        counts[reason] = count
    return counts


def _union(
    wait_threshold_s: float,
    queued_threshold_s: float,
    dead_after_s: float,
    reasons: Collection[str] | None,
) -> tuple[sql.Composed, dict[str, Any]]:
    thresholds = {
        "wait_threshold_s": wait_threshold_s,
        "queued_threshold_s": queued_threshold_s,
        "dead_after_s": dead_after_s,
    }
    for name, value in thresholds.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    wanted = STUCK_REASONS if reasons is None else tuple(reasons)
    unknown = sorted(set(wanted) - set(STUCK_REASONS))
    if unknown:
        raise ValueError(f"unknown stuck reasons {unknown}; known: {list(STUCK_REASONS)}")
    parts = [sql.SQL(_PARTS[reason]) for reason in STUCK_REASONS if reason in wanted]
    if not parts:
        parts = [sql.SQL(_NOTHING)]
    params: dict[str, Any] = {name: float(value) for name, value in thresholds.items()}
    params |= {"buffer_s": float(SWEEP_BUFFER_S), "overdue_s": WAIT_OVERDUE_AFTER_S}
    return sql.SQL(" union all ").join(parts), params


#: The union of no part: no row, the parts' columns.
_NOTHING: Final[LiteralString] = (
    "select null::uuid as run_id, null::text as flow_slug, null::text as reason,"
    " null::text as step_slug, null::timestamptz as since, null::jsonb as facts where false"
)


# ---------------------------------------------------------------- words


def span(seconds: float | None) -> str:
    """A duration in its largest whole unit, cut down: ``45s``, ``12m``, ``3h``, ``2d``.

    Args:
        seconds: the duration in seconds (negative counts as 0); None gives ``-``.
    """
    if seconds is None:
        return "-"
    whole = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"


def _tasks(facts: Mapping[str, Any], step: str | None = None) -> str:
    count = int(facts.get("tasks") or 0)
    where = f" of {step}" if step else ""
    if count == 1:
        return f"task {facts.get('task_index')}{where}"
    return f"{count} tasks{where}"


def _permanently_stalled(facts: Mapping[str, Any], age_s: float) -> str:
    what = f"{_tasks(facts)} stalled 4 times (its worker stopped without reporting each time)"
    if facts.get("still_started"):
        return f"{what} and was given up on {span(age_s)} ago; still started: fail or complete it"
    return f"{what}: the step failed {span(age_s)} ago; retry the run once workers are healthy"


def _dead_worker(facts: Mapping[str, Any], age_s: float) -> str:
    workers = int(facts.get("workers") or 1)
    held = f"{_tasks(facts)} held by " + (
        f"worker {str(facts.get('worker_id'))[:8]}" if workers == 1 else f"{workers} workers"
    )
    count = int(facts.get("tasks") or 0)
    them = "it" if count == 1 else "them"
    if facts.get("stopped"):
        gone = f"{held} that stopped {span(age_s)} ago without finishing {them}"
    else:
        gone = f"{held}, no heartbeat for {span(age_s)}"
    if facts.get("run_status") == "paused":
        return f"{gone}; the stalled-task sweep requeues {them} once the run is resumed"
    due = facts.get("sweep_in_s")
    if due is not None and due > 0:
        return f"{gone}; the stalled-task sweep requeues {them} in {span(due)}"
    return f"{gone}; the stalled-task sweep requeues {them} at the next pgflow.tick()"


def _waiting(facts: Mapping[str, Any], age_s: float) -> str:
    if facts.get("overdue"):
        what = "timer" if facts.get("kind") == "timer" else "signal timeout"
        return (
            f"{what} due {span(age_s)} ago but not fired: is pgflow.tick() running "
            "(a worker's tick or a pg_cron job)?"
        )
    text = f"waiting for signal {facts.get('signal_name')} for {span(age_s)}"
    left = facts.get("deadline_in_s")
    return f"{text}, no timeout" if left is None else f"{text}, times out in {span(left)}"


def _paused(facts: Mapping[str, Any], age_s: float) -> str:
    actor, why = facts.get("actor"), facts.get("why")
    text = f"paused {span(age_s)} ago" + (f" by {actor}" if actor else "")
    return f"{text}: {why}" if why else text


def _queued(facts: Mapping[str, Any], age_s: float) -> str:
    key = facts.get("concurrency_key")
    slot = "a concurrency slot" + (f" of key {key}" if key is not None else "")
    return f"queued for {span(age_s)}, waiting for {slot}"


_WORDS: Final[dict[str, Callable[[Mapping[str, Any], float], str]]] = {
    "permanently_stalled": _permanently_stalled,
    "dead_worker": _dead_worker,
    "waiting_too_long": _waiting,
    "paused": _paused,
    "queued_too_long": _queued,
}


def _detail(reason: str, facts: Mapping[str, Any] | None, age_s: float) -> str:
    return _WORDS[reason](facts or {}, age_s)
