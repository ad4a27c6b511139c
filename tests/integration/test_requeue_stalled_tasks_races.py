"""pgflow.requeue_stalled_tasks() under real concurrency (two database sessions): calls
racing each other, a stale snapshot, a worker's late report, and a call killed mid-way.

A call must requeue a stalled task exactly once, however many calls run at the same time,
and must never touch a task that a worker completed meanwhile: whichever transaction loses
the race re-checks the row (status 'started', same start) and changes nothing. The
single-session checks are in
sql_tests/requeue_stalled_tasks/requeues_once_and_never_touches_finished_tasks.test.sql.

Blocking is detected through pg_stat_activity (wait_event_type = 'Lock'), not with sleeps:
each race first lets one session hold its transaction open, then starts the other one in a
thread, waits until that one is either finished (skipped the locked row) or waiting for a
lock, and only then commits the first.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked
from tests.integration.stalled_tasks import (
    WORKER_B,
    queue_counts,
    requeue,
    setup_stalled_run,
    start_tasks,
    task,
)


def test_second_call_while_the_first_holds_the_task_does_not_requeue_again(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    run_id = setup_stalled_run(pgflow_conn)
    first = connect(pgflow_dsn, autocommit=False)
    second = connect(pgflow_dsn, autocommit=True)
    try:
        assert requeue(first) == 1  # transaction left open: the task row is held
        job = Background(second, requeue)
        wait_until_done_or_blocked(pgflow_conn, job)
        first.commit()
        assert job.join() == 0, "the second call requeued the task a second time"
    finally:
        first.close()
        second.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"]) == ("queued", 1)
    assert queue_counts(pgflow_conn) == (1, 1, 0), "exactly one message, visible, none archived"


def test_call_on_a_stale_snapshot_does_not_requeue_again(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """The loser took its snapshot before the winner committed (repeatable read): it must
    either find nothing to do or fail with a serialization error, never requeue twice."""
    run_id = setup_stalled_run(pgflow_conn)
    stale = connect(pgflow_dsn, autocommit=False)
    try:
        stale.execute("set transaction isolation level repeatable read")
        stale_view = stale.execute(
            "select status from pgflow.step_tasks where run_id = %s", (run_id,)
        ).fetchone()
        assert stale_view == ("started",)  # snapshot taken: the task looks stalled

        assert requeue(pgflow_conn) == 1  # the winner, committed

        try:
            assert requeue(stale) == 0, "a call on a stale snapshot requeued the task again"
            stale.commit()
        except psycopg.errors.SerializationFailure:
            stale.rollback()
    finally:
        stale.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"]) == ("queued", 1)
    assert queue_counts(pgflow_conn) == (1, 1, 0)


def test_call_racing_a_late_complete_leaves_the_completed_task_alone(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """complete_task wins (holds its transaction open first); requeue_stalled_tasks runs
    meanwhile."""
    run_id = setup_stalled_run(pgflow_conn)
    worker = connect(pgflow_dsn, autocommit=False)
    requeuer = connect(pgflow_dsn, autocommit=True)
    try:
        worker.execute(
            "select * from pgflow.complete_task(%s, 'only', 0, '{\"done\": true}'::jsonb)",
            (run_id,),
        )
        job = Background(requeuer, requeue)
        wait_until_done_or_blocked(pgflow_conn, job)
        worker.commit()
        assert job.join() == 0, "requeue_stalled_tasks requeued a task that completed meanwhile"
    finally:
        worker.close()
        requeuer.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"]) == ("completed", 0)
    assert row["output"] == {"done": True}
    run = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    assert run.fetchone() == ("completed",)
    assert queue_counts(pgflow_conn) == (0, 0, 1), "message archived once, nothing left visible"


def test_late_complete_racing_a_requeue_is_ignored_and_task_requeued_once(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """requeue_stalled_tasks wins (holds its transaction open first); the dead worker's late
    complete_task runs meanwhile and must not count: the task is requeued exactly once and
    its one message stays visible for the next worker."""
    run_id = setup_stalled_run(pgflow_conn)
    requeuer = connect(pgflow_dsn, autocommit=False)
    worker = connect(pgflow_dsn, autocommit=True)
    try:
        assert requeue(requeuer) == 1
        job = Background(
            worker,
            lambda c: c.execute(
                "select status from pgflow.complete_task(%s, 'only', 0, '\"late\"'::jsonb)",
                (run_id,),
            ).fetchall(),
        )
        wait_until_done_or_blocked(pgflow_conn, job)
        requeuer.commit()
        job.join()
    finally:
        requeuer.close()
        worker.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"], row["output"]) == ("queued", 1, None)
    step = pgflow_conn.execute(
        "select status, remaining_tasks from pgflow.step_states where run_id = %s", (run_id,)
    ).fetchone()
    assert step == ("started", 1), "the ignored report must not count as a completion"
    assert queue_counts(pgflow_conn) == (1, 1, 0), "exactly one message, visible"

    # The requeued task runs again on another worker and the run completes.
    assert start_tasks(pgflow_conn, WORKER_B) == 1
    pgflow_conn.execute("select pgflow.complete_task(%s, 'only', 0, '\"ok\"'::jsonb)", (run_id,))
    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"], row["attempts_count"]) == ("completed", 1, 2)
    run = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    assert run.fetchone() == ("completed",)
    assert queue_counts(pgflow_conn) == (0, 0, 1)


def test_late_fail_racing_a_requeue_is_ignored(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """requeue_stalled_tasks wins; the dead worker's late fail_task arrives meanwhile and
    must neither count as an attempt nor delay the message the next worker should receive."""
    run_id = setup_stalled_run(pgflow_conn)
    requeuer = connect(pgflow_dsn, autocommit=False)
    worker = connect(pgflow_dsn, autocommit=True)
    try:
        assert requeue(requeuer) == 1
        job = Background(
            worker,
            lambda c: c.execute(
                "select status from pgflow.fail_task(%s, 'only', 0, 'late')", (run_id,)
            ).fetchall(),
        )
        wait_until_done_or_blocked(pgflow_conn, job)
        requeuer.commit()
        job.join()
    finally:
        requeuer.close()
        worker.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"], row["attempts_count"]) == ("queued", 1, 1)
    assert queue_counts(pgflow_conn) == (1, 1, 0), "exactly one message, visible at once"


def test_call_killed_mid_transaction_leaves_no_lock_or_partial_state(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """A call whose session dies before commit (a pg_cron session terminated, a worker
    killed) leaves nothing behind: the next call requeues the task exactly once."""
    run_id = setup_stalled_run(pgflow_conn)
    doomed = connect(pgflow_dsn, autocommit=False)
    try:
        assert requeue(doomed) == 1  # uncommitted: holds the call's locks
        pid = doomed.info.backend_pid
        pgflow_conn.execute("select pg_terminate_backend(%s)", (pid,))
        # pg_terminate_backend only signals: wait until the backend has really exited (and
        # so released its locks) before judging what it left behind.
        deadline = time.monotonic() + 10
        while pgflow_conn.execute(
            "select count(*) from pg_stat_activity where pid = %s", (pid,)
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the terminated backend did not exit"
            time.sleep(0.02)
    finally:
        doomed.close()

    assert task(pgflow_conn, run_id)["status"] == "started", "the killed call rolled back"
    assert requeue(pgflow_conn) == 1, "the next call is not blocked by a leftover lock"
    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"]) == ("queued", 1)
    assert queue_counts(pgflow_conn) == (1, 1, 0)


@pytest.mark.parametrize("round_number", range(3))
def test_parallel_calls_split_the_work_without_double_requeue(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, round_number: int
) -> None:
    """Two calls start at the same moment over 300 stalled map tasks: together they
    requeue each task exactly once."""
    tasks = 300
    run_id = setup_stalled_run(pgflow_conn, input_json=str(list(range(tasks))), map_step=True)
    conns = [connect(pgflow_dsn, autocommit=True) for _ in range(2)]
    barrier = threading.Barrier(2)

    def synchronized_requeue(conn: psycopg.Connection) -> int:
        barrier.wait(timeout=10)
        return requeue(conn)

    try:
        jobs = [Background(c, synchronized_requeue) for c in conns]
        results = [job.join() for job in jobs]
    finally:
        for c in conns:
            c.close()

    assert sum(results) == tasks, f"the calls returned {results}"
    counts = pgflow_conn.execute(
        """select status, requeued_count, count(*) from pgflow.step_tasks
           where run_id = %s group by 1, 2""",
        (run_id,),
    ).fetchall()
    assert counts == [("queued", 1, tasks)]
    assert queue_counts(pgflow_conn) == (tasks, tasks, 0)
