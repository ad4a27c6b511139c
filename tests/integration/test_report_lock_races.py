"""Reports (complete_tasks, fail_tasks) under real concurrency: what their one lock, the
run rows in key order, lets through and what it keeps out.

A report locks the runs it names and nothing else up front (`_lock_task_reports`): every
transition that changes a step state or a started task holds its run first, and a claim
changes only queued tasks. So a report never waits for a claim of a task that is no longer
its own, and two batches that name the same runs in different orders never deadlock. Each
race holds one transaction open, starts the other call in a thread and waits until that
call finished or waits for a lock (read from pg_stat_activity, never a sleep) before it
lets the first one go.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked
from tests.integration.stalled_tasks import (
    FLOW,
    WORKER_A,
    WORKER_B,
    queue_counts,
    requeue,
    setup_stalled_run,
    start_tasks,
    task,
)

#: A report of task 0 of step `only` of run %s: output (completions) or error message
#: (failures) %s, attempts %s. One row: the task's status after the call, outcome, reason.
COMPLETE = """select status, outcome, reason from pgflow.complete_tasks(
                array[%s::uuid], array['only'], array[0], array[%s::jsonb], %s::int[])"""
FAIL = """select status, outcome, reason from pgflow.fail_tasks(
            array[%s::uuid], array['only'], array[0], array[%s], %s::int[])"""


def complete(
    conn: psycopg.Connection, run_id: str, output: str, attempts: list[int] | None
) -> list[tuple[str | None, str, str | None]]:
    """COMPLETE on ``conn``: its rows (status, outcome, reason)."""
    return conn.execute(COMPLETE, (run_id, output, attempts)).fetchall()


@pytest.mark.parametrize(
    ("report", "attempts"),
    [(COMPLETE, [1]), (COMPLETE, None), (FAIL, [1]), (FAIL, None)],
    ids=["complete-fenced", "complete-unfenced", "fail-fenced", "fail-unfenced"],
)
def test_a_late_report_does_not_wait_for_a_claim_holding_the_requeued_task(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, report: str, attempts: list[int] | None
) -> None:
    """Worker A's task was requeued; worker B's claim of it (attempt 2) is not committed
    yet. A's late report, with or without its attempt, is ignored at once: it sees the task
    queued and neither waits for B nor touches the task. B's attempt then completes it."""
    run_id = setup_stalled_run(pgflow_conn)
    assert requeue(pgflow_conn) == 1
    claimer = connect(pgflow_dsn, autocommit=False)
    late = connect(pgflow_dsn, autocommit=True)
    try:
        assert start_tasks(claimer, WORKER_B) == 1  # open: the task row is B's until commit
        late_payload = '"late"' if report == COMPLETE else "late"
        job = Background(
            late, lambda c: c.execute(report, (run_id, late_payload, attempts)).fetchall()
        )
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done", (
            "the late report waited for the claim of the requeued task"
        )
        assert [r[1:] for r in job.join()] == [("ignored", "task_not_started")]
        claimer.commit()
    finally:
        claimer.close()
        late.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["attempts_count"], row["output"]) == ("started", 2, None)
    done = complete(pgflow_conn, run_id, '"b"', [2])
    assert [r[1] for r in done] == ["completed"]
    row = task(pgflow_conn, run_id)
    assert (row["status"], row["output"]) == ("completed", "b")
    run = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    assert run.fetchone() == ("completed",)


def test_a_report_whose_task_row_changed_under_it_keeps_the_message_and_says_so(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """No engine transition changes a started task without holding its run, but a writer
    that does (here a plain UPDATE of last_worker_id, as deleting a worker through the
    foreign key would) leaves the report that waited for it with a snapshot older than the
    row. The report then either completes the task (its update found the new row) or,
    writing nothing, keeps the task's message and answers task_not_started: never a
    completion lost with its message archived, never a wrong reason."""
    run_id = setup_stalled_run(pgflow_conn)
    writer = connect(pgflow_dsn, autocommit=False)
    reporter = connect(pgflow_dsn, autocommit=True)
    try:
        writer.execute(
            "update pgflow.step_tasks set last_worker_id = null where run_id = %s", (run_id,)
        )
        job = Background(reporter, lambda c: complete(c, run_id, '"a"', [1]))
        assert wait_until_done_or_blocked(pgflow_conn, job) == "blocked"
        writer.commit()
        (answer,) = job.join()
    finally:
        writer.close()
        reporter.close()

    row = task(pgflow_conn, run_id)
    if answer[1] == "completed":
        assert (row["status"], row["output"]) == ("completed", "a")
        assert queue_counts(pgflow_conn) == (0, 0, 1), "the message is archived once"
        return
    assert answer == ("started", "ignored", "task_not_started")
    assert (row["status"], row["output"]) == ("started", None)
    messages, _visible, archived = queue_counts(pgflow_conn)
    assert (messages, archived) == (1, 0), "the task keeps its message"
    again = complete(pgflow_conn, run_id, '"a"', [1])
    assert [r[1] for r in again] == ["completed"], "the report sent again completes the task"
    assert queue_counts(pgflow_conn) == (0, 0, 1)


def _two_map_runs(conn: psycopg.Connection) -> tuple[str, str]:
    """Two runs of a map flow over [1, 2], all four tasks claimed by worker A. Returns the
    run ids in key order (the lower first)."""
    conn.execute("select pgflow.create_flow(%s)", (FLOW,))
    conn.execute("select pgflow.add_step(%s, 'only', step_type => 'map')", (FLOW,))
    start = "select run_id::text from pgflow.start_flow(%s, '[1, 2]')"
    runs = [row[0] for _ in range(2) for row in conn.execute(start, (FLOW,)).fetchall()]
    assert start_tasks(conn, WORKER_A) == 4
    low, high = sorted(runs, key=uuid.UUID)
    return low, high


def _report(run_ids: list[str], task_index: int) -> str:
    """complete_tasks of task ``task_index`` of each run, in the order given."""
    keys = ", ".join(f"'{r}'::uuid" for r in run_ids)
    n = len(run_ids)
    return f"""select outcome from pgflow.complete_tasks(
                 array[{keys}], array_fill('only'::text, array[{n}]),
                 array_fill({task_index}, array[{n}]), array_fill('1'::jsonb, array[{n}]))"""


def test_two_batches_naming_two_runs_in_opposite_orders_never_deadlock(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """A holder keeps the lower run; batch A (lower, higher) queues for it holding nothing;
    batch B (higher, lower) must queue behind A holding nothing too. Had B locked the
    higher run first, A, once it got the lower run, would wait for B and B for A: a
    deadlock PostgreSQL ends by failing one of them."""
    low, high = _two_map_runs(pgflow_conn)
    holder = connect(pgflow_dsn, autocommit=False)
    conn_a = connect(pgflow_dsn, autocommit=True)
    conn_b = connect(pgflow_dsn, autocommit=True)
    try:
        holder.execute("select 1 from pgflow.runs where run_id = %s for update", (low,))
        batch_a = Background(conn_a, lambda c: c.execute(_report([low, high], 0)).fetchall())
        assert wait_until_done_or_blocked(pgflow_conn, batch_a) == "blocked"
        batch_b = Background(conn_b, lambda c: c.execute(_report([high, low], 1)).fetchall())
        assert wait_until_done_or_blocked(pgflow_conn, batch_b) == "blocked"
        held_by_b = pgflow_conn.execute(
            """select count(*) from pgflow.runs
               where run_id = %s and xmax::text::bigint = (
                 select backend_xid::text::bigint from pg_stat_activity where pid = %s)""",
            (high, batch_b.pid),
        ).fetchone()
        assert held_by_b == (0,), "batch B holds the higher run while it waits"
        holder.commit()
        assert batch_a.join() == [("completed",), ("completed",)]
        assert batch_b.join() == [("completed",), ("completed",)]
    finally:
        holder.close()
        conn_a.close()
        conn_b.close()

    statuses = pgflow_conn.execute(
        "select status, count(*) from pgflow.runs group by status"
    ).fetchall()
    assert statuses == [("completed", 2)]
