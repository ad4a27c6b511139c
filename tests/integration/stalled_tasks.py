"""Stalled tasks for the requeue_stalled_tasks race tests (test_requeue_stalled_tasks_*.py):
flow `race` with a run whose tasks a worker started and left long ago, the call itself,
and what the database then holds (a task's row, the queue's and archive's counts).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

WORKER_A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
WORKER_B = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
FLOW = "race"


def requeue(conn: psycopg.Connection) -> int:
    """Call pgflow.requeue_stalled_tasks() on ``conn``; return how many tasks it requeued."""
    row = conn.execute("select pgflow.requeue_stalled_tasks()").fetchone()
    assert row is not None
    return int(row[0])


def setup_stalled_run(
    conn: psycopg.Connection, *, input_json: str = "{}", map_step: bool = False
) -> str:
    """Create flow `race` (timeout 10 s), start one run, start all its tasks as worker A and
    backdate them 60 s (past 10 + 30 s). Returns the run id."""
    conn.execute("select pgflow.create_flow(%s, max_attempts => 5, timeout => 10)", (FLOW,))
    if map_step:
        conn.execute("select pgflow.add_step(%s, 'only', step_type => 'map')", (FLOW,))
    else:
        conn.execute("select pgflow.add_step(%s, 'only')", (FLOW,))
    row = conn.execute(
        "select run_id from pgflow.start_flow(%s, %s::jsonb)", (FLOW, input_json)
    ).fetchone()
    assert row is not None
    run_id = str(row[0])
    start_tasks(conn, WORKER_A)
    conn.execute(
        """update pgflow.step_tasks
           set queued_at = now() - interval '61 seconds', started_at = now() - interval '60 seconds'
           where run_id = %s and status = 'started'""",
        (run_id,),
    )
    return run_id


def start_tasks(conn: psycopg.Connection, worker_id: str, qty: int = 10_000) -> int:
    """Read visible messages and start their tasks, as a worker does. Returns the count."""
    conn.execute(
        """insert into pgflow.workers (worker_id, queue_name, function_name)
           values (%s, %s, 'race_test') on conflict (worker_id) do nothing""",
        (worker_id, FLOW),
    )
    rows = conn.execute(
        """select * from pgflow.start_tasks(
             %s, array(select msg_id from pgmq.read(%s, 2, %s)), %s::uuid)""",
        (FLOW, FLOW, qty, worker_id),
    ).fetchall()
    return len(rows)


def task(conn: psycopg.Connection, run_id: str, task_index: int = 0) -> dict[str, Any]:
    cur = conn.cursor(row_factory=dict_row)
    row = cur.execute(
        """select status, requeued_count, attempts_count, output, message_id,
                  permanently_stalled_at
           from pgflow.step_tasks where run_id = %s and task_index = %s""",
        (run_id, task_index),
    ).fetchone()
    assert row is not None
    return row


def queue_counts(conn: psycopg.Connection) -> tuple[int, int, int]:
    """(messages in the queue, of which visible now, messages in the archive)."""
    row = conn.execute(
        f"""select (select count(*) from pgmq.q_{FLOW}),
                   (select count(*) from pgmq.q_{FLOW} where vt <= clock_timestamp()),
                   (select count(*) from pgmq.a_{FLOW})"""
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])
