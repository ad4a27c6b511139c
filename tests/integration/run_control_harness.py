"""Flow `rc` of the run-control race tests (test_run_control_races_*.py, test_wait_races.py):
the calls that race (start, claim, report, run-control verb) and what the database then
holds (events, statuses, where a task's message is).

Each race lets one session hold its transaction open after its call, starts the other call
in a thread (:class:`Background`), sees it either finished or waiting for a lock held by the
first session (pg_stat_activity and pg_blocking_pids: :func:`waits_for`, never a sleep),
and only then commits the first. The first to lock the run (or the task) wins; the other is
a no-op that says so (a verb: changed=false with expected_status, else 55000; a report:
outcome ignored with a reason), and pgflow.run_events holds each event exactly as often as
it happened (compared whole).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg

from tests.integration.sessions import Background, wait_until_done_or_blocked

FLOW = "rc"
WORKER = "11111111-1111-1111-1111-111111111111"
Events = Counter[tuple[str, str | None]]


# ---------------------------------------------------------------- the flow and its tasks


def make_flow(conn: psycopg.Connection, *steps: str, max_attempts: int = 3) -> None:
    """Flow `rc` with independent root steps ``steps`` (each one single task)."""
    conn.execute("select pgflow.create_flow(%s, max_attempts => %s)", (FLOW, max_attempts))
    for step in steps:
        conn.execute("select pgflow.add_step(%s, %s)", (FLOW, step))
    conn.execute(
        "insert into pgflow.workers (worker_id, queue_name, function_name) values (%s, %s, 'x')",
        (WORKER, FLOW),
    )


def start_run(conn: psycopg.Connection) -> str:
    row = conn.execute(
        "select run_id::text from pgflow.start_flow(%s, '{}'::jsonb)", (FLOW,)
    ).fetchone()
    assert row is not None
    return str(row[0])


def claim(conn: psycopg.Connection, qty: int = 10) -> list[tuple[str, int]]:
    """read_and_start_tasks as the worker: (step_slug, attempts_count) of the tasks claimed."""
    rows = conn.execute(
        "select step_slug, attempts_count from pgflow.read_and_start_tasks(%s, %s, %s, 30, null)"
        " where run_id is not null order by step_slug",
        (FLOW, WORKER, qty),
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def complete(conn: psycopg.Connection, run_id: str, step: str) -> tuple[Any, ...]:
    """complete_tasks for attempt 1 of task (run, step, 0): (status, outcome, reason)."""
    row = conn.execute(
        "select status, outcome, reason from pgflow.complete_tasks("
        " array[%s::uuid], array[%s], array[0], array['{}'::jsonb], array[1])",
        (run_id, step),
    ).fetchone()
    assert row is not None
    return tuple(row)


def fail(conn: psycopg.Connection, run_id: str, step: str) -> tuple[Any, ...]:
    """fail_tasks for attempt 1 of task (run, step, 0): (status, outcome, reason)."""
    row = conn.execute(
        "select status, outcome, reason from pgflow.fail_tasks("
        " array[%s::uuid], array[%s], array[0], array['err'], array[1])",
        (run_id, step),
    ).fetchone()
    assert row is not None
    return tuple(row)


def verb(
    conn: psycopg.Connection, name: str, run_id: str, expected: str | None = None
) -> tuple[Any, ...]:
    """pgflow.<name>(run_id, 'alice', 'race', expected): (status, changed, detail)."""
    row = conn.execute(
        f"select status, changed, detail from pgflow.{name}(%s::uuid, 'alice', 'race', %s)",
        (run_id, expected),
    ).fetchone()
    assert row is not None
    return tuple(row)


# ---------------------------------------------------------------- what the database holds


def events(conn: psycopg.Connection, run_id: str) -> Events:
    """Every event of the run, counted per (event, step_slug)."""
    rows = conn.execute(
        "select event, step_slug from pgflow.run_events where run_id = %s", (run_id,)
    ).fetchall()
    return Counter((str(r[0]), r[1]) for r in rows)


def run_status(conn: psycopg.Connection, run_id: str) -> str:
    row = conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert row is not None
    return str(row[0])


def task(conn: psycopg.Connection, run_id: str, step: str) -> tuple[str, int, str]:
    """(status, attempts_count, where its message is: queue | archive | none)."""
    row = conn.execute(
        f"""select t.status, t.attempts_count,
                 case when exists (select 1 from pgmq.q_{FLOW} as q where q.msg_id = t.message_id)
                        then 'queue'
                      when exists (select 1 from pgmq.a_{FLOW} as a where a.msg_id = t.message_id)
                        then 'archive'
                      else 'none' end
            from pgflow.step_tasks as t where t.run_id = %s and t.step_slug = %s""",
        (run_id, step),
    ).fetchone()
    assert row is not None
    return str(row[0]), int(row[1]), str(row[2])


def waits_for(observer: psycopg.Connection, job: Background, holder: psycopg.Connection) -> None:
    """The job waits for a lock, and the session holding it is ``holder``."""
    assert wait_until_done_or_blocked(observer, job) == "blocked"
    row = observer.execute("select pg_blocking_pids(%s)", (job.pid,)).fetchone()
    assert row is not None
    assert holder.info.backend_pid in row[0]


def started_events(*steps: str) -> Events:
    """The events of a run started with root steps ``steps``."""
    started: Events = Counter({("run:started", None): 1})
    started.update(("step:started", s) for s in steps)
    return started
