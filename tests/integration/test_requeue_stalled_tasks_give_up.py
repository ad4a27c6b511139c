"""pgflow.requeue_stalled_tasks() giving up on a task that stalled again after 3 requeues,
under real concurrency (two database sessions, raced as in
test_requeue_stalled_tasks_races.py): a late report of the task's worker, before or after
the give-up, and a run resumed while the call waits.
"""

from __future__ import annotations

import psycopg

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked
from tests.integration.stalled_tasks import (
    FLOW,
    WORKER_A,
    queue_counts,
    requeue,
    setup_stalled_run,
    start_tasks,
    task,
)

# A task that stalls again after 3 requeues is failed through fail_tasks (permanent), which
# locks the run first and re-checks the task: a report of the task's worker that arrived
# meanwhile wins, and only a task the call itself failed is stamped permanently stalled.

GIVEN_UP = "Task stalled: its worker stopped without reporting 4 times (3 requeues); given up"


def setup_run_at_the_limit(conn: psycopg.Connection, *, attempts: int = 4) -> str:
    """As setup_stalled_run (max_attempts 5), the task requeued 3 times already and on
    attempt ``attempts``. Returns the run id."""
    run_id = setup_stalled_run(conn)
    conn.execute(
        "update pgflow.step_tasks set requeued_count = 3, attempts_count = %s where run_id = %s",
        (attempts, run_id),
    )
    return run_id


def task_events(conn: psycopg.Connection, run_id: str) -> list[tuple[str, str]]:
    """(event, actor) of the run's task events, oldest first."""
    rows = conn.execute(
        "select event, actor from pgflow.run_events "
        "where run_id = %s and task_index is not null order by id",
        (run_id,),
    ).fetchall()
    return [(str(e), str(a)) for e, a in rows]


def run_status(conn: psycopg.Connection, run_id: str) -> str:
    row = conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert row is not None
    return str(row[0])


def test_late_complete_racing_a_give_up_wins(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """The worker's complete_task holds its transaction open first; the call that would
    give the task up waits for the run and then finds it completed: nothing failed, nothing
    stamped."""
    run_id = setup_run_at_the_limit(pgflow_conn)
    worker = connect(pgflow_dsn, autocommit=False)
    requeuer = connect(pgflow_dsn, autocommit=True)
    try:
        worker.execute(
            "select * from pgflow.complete_task(%s, 'only', 0, '\"late\"'::jsonb, 4)", (run_id,)
        )
        job = Background(requeuer, requeue)
        wait_until_done_or_blocked(pgflow_conn, job)
        worker.commit()
        assert job.join() == 0
    finally:
        worker.close()
        requeuer.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["output"], row["permanently_stalled_at"]) == (
        "completed",
        "late",
        None,
    )
    assert run_status(pgflow_conn, run_id) == "completed"
    assert task_events(pgflow_conn, run_id) == []


def test_late_complete_after_a_give_up_is_ignored(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """The give-up holds its transaction open first; the dead worker's late complete_task
    waits and then finds the task failed and its run failed: it changes nothing."""
    run_id = setup_run_at_the_limit(pgflow_conn)
    requeuer = connect(pgflow_dsn, autocommit=False)
    worker = connect(pgflow_dsn, autocommit=True)
    try:
        assert requeue(requeuer) == 0
        job = Background(
            worker,
            lambda c: c.execute(
                "select status from pgflow.complete_task(%s, 'only', 0, '\"late\"'::jsonb, 4)",
                (run_id,),
            ).fetchall(),
        )
        assert wait_until_done_or_blocked(pgflow_conn, job) == "blocked"
        requeuer.commit()
        job.join()
    finally:
        requeuer.close()
        worker.close()

    row = task(pgflow_conn, run_id)
    assert (row["status"], row["output"]) == ("failed", None)
    assert row["permanently_stalled_at"] is not None
    assert run_status(pgflow_conn, run_id) == "failed"
    assert task_events(pgflow_conn, run_id) == [
        ("task:failed", "system"),
        ("task:permanently_stalled", "system"),
    ]
    assert queue_counts(pgflow_conn) == (0, 0, 1), "the message archived once"


def test_late_exhausting_fail_racing_a_give_up_is_not_marked_permanently_stalled(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """The worker reports its handler's failure on the last of 5 attempts (the task fails
    for good, and its run) and holds its transaction open; the call that would give the
    task up waits for the run, then finds the task failed already. The task failed by its
    worker's report, not given up on: it must not be stamped permanently stalled nor
    recorded as task:permanently_stalled by system."""
    run_id = setup_run_at_the_limit(pgflow_conn, attempts=5)
    worker = connect(pgflow_dsn, autocommit=False)
    requeuer = connect(pgflow_dsn, autocommit=True)
    try:
        worker.execute(
            "select * from pgflow.fail_task(%s, 'only', 0, 'handler error', 5)", (run_id,)
        )
        job = Background(requeuer, requeue)
        assert wait_until_done_or_blocked(pgflow_conn, job) == "blocked"
        worker.commit()
        assert job.join() == 0
    finally:
        worker.close()
        requeuer.close()

    row = task(pgflow_conn, run_id)
    assert row["status"] == "failed"
    assert run_status(pgflow_conn, run_id) == "failed"
    error = pgflow_conn.execute(
        "select error_message from pgflow.step_tasks where run_id = %s", (run_id,)
    ).fetchone()
    assert error == ("handler error",), "the worker's report won"
    assert task_events(pgflow_conn, run_id) == [("task:failed", f"worker:{WORKER_A}")]
    assert row["permanently_stalled_at"] is None, "a task its worker failed was stamped"


def test_task_of_a_run_resumed_during_a_give_up_is_not_left_permanently_stalled(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """Two runs, each task requeued 3 times and stalled again; run B is paused, so the call
    gives up only on run A's task, and waits for run A (locked by another session). Run B is
    resumed meanwhile. Its task must not end in the state earlier versions left behind
    (started, stamped permanently stalled, message archived: the run hangs): the call either
    gives it up too or leaves it for the next call, which does."""
    run_a = setup_run_at_the_limit(pgflow_conn)
    row = pgflow_conn.execute(
        "select run_id from pgflow.start_flow(%s, '{}'::jsonb)", (FLOW,)
    ).fetchone()
    assert row is not None
    run_b = str(row[0])
    start_tasks(pgflow_conn, WORKER_A)
    assert task(pgflow_conn, run_b)["status"] == "started"
    pgflow_conn.execute(
        """update pgflow.step_tasks
           set requeued_count = 3, attempts_count = 4,
               queued_at = now() - interval '61 seconds', started_at = now() - interval '60 seconds'
           where run_id = %s""",
        (run_b,),
    )
    pgflow_conn.execute("select * from pgflow.pause_run(%s, 'alice', null)", (run_b,))

    blocker = connect(pgflow_dsn, autocommit=False)
    requeuer = connect(pgflow_dsn, autocommit=True)
    try:
        blocker.execute("select 1 from pgflow.runs where run_id = %s for update", (run_a,))
        job = Background(requeuer, requeue)
        assert wait_until_done_or_blocked(pgflow_conn, job) == "blocked"
        pgflow_conn.execute("select * from pgflow.resume_run(%s, 'alice', null)", (run_b,))
        blocker.commit()
        assert job.join() == 0
    finally:
        blocker.close()
        requeuer.close()

    assert task(pgflow_conn, run_a)["status"] == "failed"
    row_b = task(pgflow_conn, run_b)
    assert not (row_b["status"] == "started" and row_b["permanently_stalled_at"] is not None), (
        "run B's task was left started and stamped permanently stalled (its run hangs)"
    )
    assert requeue(pgflow_conn) == 0
    row_b = task(pgflow_conn, run_b)
    assert (row_b["status"], row_b["permanently_stalled_at"] is not None) == ("failed", True)
    assert run_status(pgflow_conn, run_b) == "failed"
    assert pgflow_conn.execute(
        "select count(*) from pgflow.permanently_stalled_tasks"
    ).fetchone() == (0,)
