"""pgflow.requeue_stalled_tasks() against a real database: under real concurrency (two
database sessions), and called by a worker process on its own (no pg_cron).

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
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tests.integration.flows.control import flow_a
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked
from tests.integration.worker_harness import start_flow, step_tasks, wait_run

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


# ------------------------------------------------- giving up on a task (3 requeues reached)
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


# ---------------------------------------------------------------- called by the worker


def test_worker_requeues_stalled_tasks_without_pg_cron(pgflow_conn, start_worker):
    # A worker that compiled the flow, claimed its task and died long ago.
    pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled('flow_a', %s)",
        (Jsonb(flow_a.shape()),),
    )
    dead = uuid.uuid4()
    pgflow_conn.execute("select pgflow.register_worker(%s, 'flow_a', 'dead')", (dead,))
    run_id = start_flow(pgflow_conn, "flow_a", {})
    msg_ids = [r[0] for r in pgflow_conn.execute("select msg_id from pgmq.read('flow_a', 5, 10)")]
    pgflow_conn.execute("select * from pgflow.start_tasks('flow_a', %s, %s)", (msg_ids, dead))
    pgflow_conn.execute(
        "update pgflow.step_tasks set queued_at = now() - interval '11 minutes', "
        "started_at = now() - interval '10 minutes' "
        "where run_id = %s",
        (run_id,),
    )

    worker = start_worker("control:flow_a", "--tick-interval", "0.5")
    worker.wait_running()
    run = wait_run(pgflow_conn, run_id)
    assert run["output"] == {"a_step": "a"}
    (task,) = step_tasks(pgflow_conn, run_id)
    assert task["requeued_count"] == 1
    assert task["attempts_count"] == 2
    assert worker.has_log("stalled tasks requeued")
