"""The runs list of the dashboard: one page of runs, newest first, each said in words.

:func:`list_runs` reads one page of ``pgflow.runs`` (``started_at desc, run_id desc``, keyset
paginated by :class:`RunCursor`) with the facts that say what each run is doing, in one
query for the page (plus, when some run on it waits to retry a task, one query for the
visibility times of those tasks' messages, ``pgflow.get_message_due_in``).
:func:`pgflow.observe.run_words.describe` turns the facts of one run into a sentence such
as ``"running parse: 1,070 of 1,792 tasks"``, ``"retrying fetch (attempt 2 of 3, next in 40
s): TimeoutError"`` or ``"waiting for signal approved since 3 h"``; started tasks whose
worker is dead (:mod:`pgflow.observe.workers`: no heartbeat for ``dead_after_s``, or
stopped) are said to be held by a dead worker, since only the stalled-task sweep moves
them on. Every age and time left is measured on the engine's clock (``pgflow._now()`` in
the query, the database's ``now()`` outside tests), never Python's.

The page reads each flow's newest runs through ``idx_runs_flow_started_at`` (flow_slug,
started_at, run_id) with the LIMIT and merges them, so one index serves the list with and
without a flow filter; the WHERE clause holds only the filters given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from pgflow.observe.run_words import describe
from pgflow.observe.workers import DEAD_AFTER_S_DEFAULT

#: The run statuses, in the order the filter offers them.
STATUSES: Final = ("queued", "started", "paused", "completed", "failed", "cancelled", "expired")


@dataclass(frozen=True)
class RunFilters:
    """What the runs list is narrowed to; every field None (or empty) means "any".

    Attributes:
        flow: runs of this flow slug.
        status: runs in this status (one of :data:`STATUSES`).
        step: runs whose current step is this one: a step of the run that is started,
            waiting or failed.
        error: runs with an error containing this text (case-insensitive): a failed step's
            error or a task's last error.
        started_from: runs started at or after this (aware) time.
        started_to: runs started at or before this (aware) time.
    """

    flow: str | None = None
    status: str | None = None
    step: str | None = None
    error: str | None = None
    started_from: datetime | None = None
    started_to: datetime | None = None


@dataclass(frozen=True)
class RunCursor:
    """Where the next (older) page starts: the last row of the page before.

    Attributes:
        started_at: that row's ``started_at``.
        run_id: that row's run id (text uuid), the tie-breaker.
    """

    started_at: datetime
    run_id: str


@dataclass(frozen=True)
class RunSummary:
    """One row of the runs list.

    Attributes:
        run_id: the run's uuid as text.
        flow_slug: its flow.
        status: its status.
        started_at: when it started (created, for a queued run).
        ended_at: when it completed, failed, was cancelled or expired; else None.
        activity: what it is doing, in words (:func:`describe`).
        error: the full text of the error the sentence names, else None.
    """

    run_id: str
    flow_slug: str
    status: str
    started_at: datetime
    ended_at: datetime | None
    activity: str
    error: str | None


@dataclass(frozen=True)
class RunPage:
    """One page of the runs list.

    Attributes:
        runs: the runs, newest first.
        next_cursor: where the next (older) page starts; None on the last page.
    """

    runs: list[RunSummary]
    next_cursor: RunCursor | None


# One condition per filter; only those given go into the WHERE clause.
_CONDITIONS: Final[dict[str, LiteralString]] = {
    "flow": "r.flow_slug = %(flow)s",
    "status": "r.status = %(status)s",
    "started_from": "r.started_at >= %(started_from)s",
    "started_to": "r.started_at <= %(started_to)s",
    "step": (
        "exists (select 1 from pgflow.step_states as cs where cs.run_id = r.run_id"
        " and cs.step_slug = %(step)s and cs.status in ('started', 'waiting', 'failed'))"
    ),
    "error": (
        "(exists (select 1 from pgflow.step_states as es where es.run_id = r.run_id"
        " and es.status = 'failed'"
        " and strpos(lower(coalesce(es.error_message, '')), lower(%(error)s)) > 0)"
        " or exists (select 1 from pgflow.step_tasks as et where et.run_id = r.run_id"
        " and et.error_message is not null"
        " and strpos(lower(et.error_message), lower(%(error)s)) > 0))"
    ),
    "cursor": "(r.started_at, r.run_id) < (%(cursor_at)s, %(cursor_id)s::uuid)",
    "run_id": "r.run_id = %(run_id)s::uuid",
}

# The conditions a RunFilters field gives (the others are the pager's and summarize_run's).
_FILTERS: Final = frozenset({"flow", "status", "started_from", "started_to", "step", "error"})

# The page, then per run (lateral, each gated on the run's status) the facts its sentence
# needs. {where} is a conjunction of _CONDITIONS.
_PAGE: Final[LiteralString] = """
with page as (
  -- Each flow's newest runs through idx_runs_flow_started_at, merged: one index serves the
  -- list with and without a flow filter (a few flows, LIMIT rows each).
  select r.*
  from pgflow.flows as fl
  cross join lateral (
    select r.run_id, r.flow_slug, r.status, r.started_at, r.deadline, r.concurrency_key,
      r.queue_seq, coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) as ended_at
    from pgflow.runs as r
    where r.flow_slug = fl.flow_slug and {where}
    order by r.started_at desc, r.run_id desc
    limit %(limit)s
  ) as r
  order by r.started_at desc, r.run_id desc
  limit %(limit)s
)
select p.run_id::text as run_id, p.flow_slug, p.status, p.started_at, p.ended_at, p.deadline,
  p.concurrency_key, extract(epoch from p.ended_at - p.started_at)::float8 as took_seconds,
  case when p.status = 'started' then (
    select jsonb_agg(jsonb_build_array(ss.step_slug, s.step_type, ss.initial_tasks,
                                       ss.remaining_tasks, coalesce(d.held, 0))
                     order by s.step_index)
    from pgflow.step_states as ss
    join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    -- Started tasks whose worker is dead (no heartbeat for dead_after_s) or stopped: they
    -- look like running work, but only the stalled-task sweep will move them on. Read from
    -- the few dead workers' started tasks (idx_step_tasks_last_worker).
    left join (
      select dt.step_slug, count(*) as held
      from pgflow.workers as dw
      join pgflow.step_tasks as dt on dt.last_worker_id = dw.worker_id and dt.status = 'started'
      where dt.run_id = p.run_id
        and (dw.stopped_at is not null
             or dw.last_heartbeat_at
                < (select pgflow._now()) - make_interval(secs => %(dead_after_s)s))
      group by dt.step_slug
    ) as d on d.step_slug = ss.step_slug
    where ss.run_id = p.run_id and ss.status = 'started') end as running,
  rt.retry_step, rt.retry_attempt, rt.retry_max, rt.retry_error, rt.retry_message_id,
  rt.retry_count, w.wait_step, w.wait_kind, w.wait_signal, w.wait_age, w.wait_left,
  fs.failed_step, fs.failed_error, v.by_actor, v.by_reason, q.queued_behind
from page as p
left join lateral (
  select t.step_slug as retry_step, t.attempts_count - t.attempt_offset + 1 as retry_attempt,
    coalesce(s.opt_max_attempts, f.opt_max_attempts) as retry_max, t.error_message as retry_error,
    t.message_id as retry_message_id, count(*) over () as retry_count
  from pgflow.step_tasks as t
  join pgflow.steps as s on s.flow_slug = t.flow_slug and s.step_slug = t.step_slug
  join pgflow.flows as f on f.flow_slug = t.flow_slug
  where p.status = 'started' and t.run_id = p.run_id and t.status = 'queued'
    and t.attempts_count > 0 and t.error_message is not null
  order by s.step_index, t.task_index
  limit 1
) as rt on true
left join lateral (
  select ws.step_slug as wait_step, sw.kind as wait_kind, sw.signal_name as wait_signal,
    extract(epoch from (select pgflow._now()) - ws.waiting_since)::float8 as wait_age,
    extract(epoch from ws.deadline - (select pgflow._now()))::float8 as wait_left
  from pgflow.wait_states as ws
  join pgflow.step_waits as sw on sw.flow_slug = ws.flow_slug and sw.step_slug = ws.step_slug
  join pgflow.steps as s on s.flow_slug = ws.flow_slug and s.step_slug = ws.step_slug
  where p.status = 'started' and ws.run_id = p.run_id and ws.resolved_at is null
  order by s.step_index
  limit 1
) as w on true
left join lateral (
  select ss.step_slug as failed_step, ss.error_message as failed_error
  from pgflow.step_states as ss
  join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
  where p.status = 'failed' and ss.run_id = p.run_id and ss.status = 'failed'
  order by s.step_index
  limit 1
) as fs on true
left join lateral (
  select e.actor as by_actor, e.reason as by_reason
  from pgflow.run_events as e
  where p.status in ('paused', 'cancelled') and e.run_id = p.run_id
    and e.event = 'run:' || p.status
  order by e.id desc
  limit 1
) as v on true
left join lateral (
  select (select count(*) from pgflow.runs as h
          where h.flow_slug = p.flow_slug and h.concurrency_key = p.concurrency_key
            and h.status in ('started', 'paused'))
       + (select count(*) from pgflow.runs as o
          where o.flow_slug = p.flow_slug and o.concurrency_key = p.concurrency_key
            and o.status = 'queued' and o.queue_seq < p.queue_seq) as queued_behind
  where p.status = 'queued' and p.concurrency_key is not null
) as q on true
order by p.started_at desc, p.run_id desc
"""

# The seconds until a message of a flow's queue is visible again, for some of its messages
# (pgflow.get_message_due_in: SECURITY DEFINER, so no pgmq privilege is needed).
_MESSAGE_DUE: Final[LiteralString] = (
    "select {flow}::text, d.message_id, d.due_in_seconds"
    " from pgflow.get_message_due_in({flow}, {msg_ids}) as d"
)


def list_runs(
    conn: psycopg.Connection[Any],
    filters: RunFilters,
    *,
    cursor: RunCursor | None = None,
    limit: int = 50,
    dead_after_s: float = DEAD_AFTER_S_DEFAULT,
) -> RunPage:
    """Read one page of runs, newest first, each with the sentence of what it is doing.

    Args:
        conn: an open connection (autocommit or not; only reads).
        filters: the filters, combined with AND.
        cursor: start after this row (the previous page's ``next_cursor``); None: the
            newest runs.
        limit: the page size (rows), at least 1.
        dead_after_s: seconds without a heartbeat after which a worker is dead (its
            started tasks are said to be held by a dead worker; a stopped worker's too).

    Returns:
        The page; its ``next_cursor`` is None when no older run matches.

    Raises:
        ValueError: ``limit`` is below 1.
        psycopg.Error: the database refused the query (e.g. no privilege on pgflow).
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    params: dict[str, Any] = {
        "flow": filters.flow,
        "status": filters.status,
        "step": filters.step,
        "error": filters.error,
        "started_from": filters.started_from,
        "started_to": filters.started_to,
        "limit": limit + 1,
        "dead_after_s": float(dead_after_s),
    }
    given = [name for name in _CONDITIONS if name in _FILTERS and params.get(name)]
    if cursor is not None:
        given.append("cursor")
        params["cursor_at"] = cursor.started_at
        params["cursor_id"] = cursor.run_id
    rows = _page_rows(conn, given, params)
    more = len(rows) > limit
    rows = rows[:limit]
    due = _message_due_times(conn, rows)
    runs = [_summary(row, due.get((row["flow_slug"], row["retry_message_id"]))) for row in rows]
    last = rows[-1] if more else None
    next_cursor = None if last is None else RunCursor(last["started_at"], last["run_id"])
    return RunPage(runs=runs, next_cursor=next_cursor)


def summarize_run(
    conn: psycopg.Connection[Any], run_id: str, *, dead_after_s: float = DEAD_AFTER_S_DEFAULT
) -> RunSummary | None:
    """Read one run as the runs list shows it (its sentence included).

    Args:
        conn: an open connection.
        run_id: the run's uuid as text (canonical or not; PostgreSQL parses it).
        dead_after_s: as :func:`list_runs`.

    Returns:
        The run's row, or None when no run has this id.

    Raises:
        psycopg.Error: the database refused the query, e.g. ``run_id`` is not a uuid
            (``psycopg.errors.InvalidTextRepresentation``).
    """
    params = {"run_id": run_id, "limit": 1, "dead_after_s": float(dead_after_s)}
    rows = _page_rows(conn, ["run_id"], params)
    due = _message_due_times(conn, rows)
    return next(
        (_summary(row, due.get((row["flow_slug"], row["retry_message_id"]))) for row in rows), None
    )


def _page_rows(
    conn: psycopg.Connection[Any], given: Sequence[str], params: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Run the page query with the conditions named in ``given``."""
    where = sql.SQL(" and ").join(sql.SQL(_CONDITIONS[name]) for name in given)
    query = sql.SQL(_PAGE).format(where=where if given else sql.SQL("true"))
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(query, params).fetchall()


def _message_due_times(
    conn: psycopg.Connection[Any], rows: Sequence[Mapping[str, Any]]
) -> dict[tuple[str, int], float]:
    """Seconds until each retrying task's message is visible, by (flow, msg_id).

    One statement over the queues of the flows concerned, through
    ``pgflow.get_message_due_in`` (granted to ``pgflow_operator``). A role that may not call
    it, or a dropped queue, leaves the tasks without a due time.
    """
    wanted: dict[str, list[int]] = {}
    for row in rows:
        if row["retry_message_id"] is not None:
            wanted.setdefault(row["flow_slug"], []).append(row["retry_message_id"])
    if not wanted:
        return {}
    parts = []
    params: dict[str, Any] = {}
    for n, (flow, msg_ids) in enumerate(sorted(wanted.items())):
        params[f"flow_{n}"] = flow
        params[f"msg_ids_{n}"] = msg_ids
        parts.append(
            sql.SQL(_MESSAGE_DUE).format(
                flow=sql.Placeholder(f"flow_{n}"), msg_ids=sql.Placeholder(f"msg_ids_{n}")
            )
        )
    query = sql.SQL(" union all ").join(parts)
    try:
        with conn.cursor() as cur:
            found = cur.execute(query, params).fetchall()
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedTable):
        if not conn.autocommit:
            conn.rollback()
        return {}
    return {(flow, msg_id): due_in for flow, msg_id, due_in in found}


def _summary(row: Mapping[str, Any], due_in: float | None) -> RunSummary:
    facts = dict(row)
    facts["retry_due_in"] = due_in
    error = facts.get("failed_error") or facts.get("retry_error")
    return RunSummary(
        run_id=row["run_id"],
        flow_slug=row["flow_slug"],
        status=row["status"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        activity=describe(facts),
        error=error,
    )
