"""pgflow.requeue_stalled_tasks() against real killed workers: a task whose worker keeps
dying, and a worker killed while its own requeue_stalled_tasks call is in progress.

A task is stalled ``coalesce(step timeout, flow timeout) + 30 s`` after it started on the
database clock. Instead of waiting that long, these tests move the dead worker's
``started_at`` (and ``queued_at``, which must not be later) back by a minute once the
worker is dead: only time is simulated, every claim, kill, call and requeue is real.
The real-time version (no fast-forward) is tests/e2e/test_crash_recovery.py (chaos).
The SQL-level versions are in sql_tests/requeue_stalled_tasks/ and
tests/integration/test_requeue_stalled_tasks_races.py (concurrent calls, a call racing a
late complete_task, a calling session terminated mid-transaction).
"""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest

from tests.e2e.flows.faults import quick
from tests.integration.worker_harness import (
    start_flow,
    step_tasks,
    wait_for,
    wait_run,
)

pytestmark = pytest.mark.e2e

STUCK = "tests.e2e.flows.faults:stuck"
QUICK = "tests.e2e.flows.faults:quick"
HOLD = {"E2E_HOLD_SECONDS": "3600"}
REQUEUE_OFTEN = ("--tick-interval", "0.2")


def _fast_forward(conn, run_id, seconds=60):
    """Pretend the run's started tasks started ``seconds`` earlier (database clock)."""
    conn.execute(
        "update pgflow.step_tasks set queued_at = queued_at - make_interval(secs => %s), "
        "started_at = started_at - make_interval(secs => %s) "
        "where run_id = %s and status = 'started'",
        (seconds, seconds, run_id),
    )


def _the_task(conn, run_id):
    (task,) = step_tasks(conn, run_id)
    return task


GIVEN_UP = "Task stalled: its worker stopped without reporting 4 times (3 requeues); given up"


def test_task_killed_four_times_is_given_up_and_fails_its_run(pgflow_conn, start_worker):
    run_id = None
    for kill in range(1, 5):
        worker = start_worker(STUCK, *REQUEUE_OFTEN, env=HOLD)
        worker.wait_running()
        if run_id is None:
            run_id = start_flow(pgflow_conn, "stuck", {})
        task = wait_for(
            lambda k=kill, r=run_id: (
                (t := _the_task(pgflow_conn, r))["status"] == "started"
                and t["attempts_count"] == k
                and t
            ),
            what=f"claim {kill}",
        )
        assert task["requeued_count"] == kill - 1
        worker.kill()
        _fast_forward(pgflow_conn, run_id)

    # The next worker's requeue_stalled_tasks call gives up on the task instead of
    # requeueing it a 4th time: the task fails for good (its 5th attempt is not spent) and,
    # the step's when_exhausted being fail, so do the step and the run.
    survivor = start_worker(STUCK, *REQUEUE_OFTEN)
    survivor.wait_running()
    run = wait_run(pgflow_conn, run_id, timeout=20)
    assert run["status"] == "failed"
    task = _the_task(pgflow_conn, run_id)
    assert (task["status"], task["attempts_count"], task["requeued_count"]) == ("failed", 4, 3)
    assert task["error_message"] == GIVEN_UP
    assert task["permanently_stalled_at"] is not None
    step = pgflow_conn.execute(
        "select status, error_message from pgflow.step_states where run_id = %s", (run_id,)
    ).fetchone()
    assert step == ("failed", GIVEN_UP)
    # Recorded, by system with the reason; nothing left to resolve by hand, so no alert.
    events = pgflow_conn.execute(
        "select event, actor, reason from pgflow.run_events "
        "where run_id = %s and event in "
        "('task:failed', 'step:failed', 'run:failed', 'task:permanently_stalled') order by id",
        (run_id,),
    ).fetchall()
    reason = "stalled again after 3 requeues"
    assert sorted(events) == sorted(
        [
            ("task:failed", "system", reason),
            ("step:failed", "system", reason),
            ("run:failed", "system", reason),
            ("task:permanently_stalled", "system", reason),
        ]
    )
    assert events[-1][0] == "task:permanently_stalled", "stamped after the failure"
    assert pgflow_conn.execute(
        "select count(*) from pgflow.permanently_stalled_tasks"
    ).fetchone() == (0,)
    # The one message was never duplicated nor lost: archived once, nothing cycling.
    assert pgflow_conn.execute("select count(*) from pgmq.q_stuck").fetchone() == (0,)
    archived = pgflow_conn.execute("select msg_id from pgmq.a_stuck").fetchall()
    assert archived == [(task["message_id"],)]
    # Later calls neither requeue it nor retry it; the survivor never claims it.
    swept = pgflow_conn.execute(
        "select pgflow.requeue_stalled_tasks() + pgflow.requeue_stalled_tasks()"
    ).fetchone()
    assert swept == (0,)
    assert _the_task(pgflow_conn, run_id)["attempts_count"] == 4
    assert not [e for e in survivor.logs() if e.get("msg", "").startswith("tasks permanently")]

    # An operator retries the failed run; the survivor (whose handler returns at once) runs
    # the step with a fresh attempt budget and the run completes.
    pgflow_conn.execute("select * from pgflow.retry_run(%s, 'operator', 'worker fixed')", (run_id,))
    run = wait_run(pgflow_conn, run_id, timeout=20)
    assert (run["status"], run["output"]) == ("completed", {"only": "done"})
    task = _the_task(pgflow_conn, run_id)
    # Attempt numbers go on across the retry (attempt 5; the budget counts from attempt 4).
    assert (task["status"], task["attempts_count"], task["requeued_count"]) == ("completed", 5, 0)


def _requeueing_backend(conn):
    """The pid of a worker session blocked inside its pgflow.tick() call (in its
    requeue_stalled_tasks part), if any."""
    row = conn.execute(
        "select pid from pg_stat_activity where application_name like 'pgflow-worker:%%' "
        "and query like '%%pgflow.tick(%%' and wait_event_type = 'Lock'"
    ).fetchone()
    return row[0] if row else None


def _advisory_locks(conn):
    """Advisory locks held in this test's database (tick's and requeue_stalled_tasks's try
    locks are two)."""
    return conn.execute(
        "select count(*) from pg_locks where locktype = 'advisory' and granted "
        "and database = (select oid from pg_database where datname = current_database())"
    ).fetchone()[0]


def test_worker_killed_while_requeueing_leaves_no_lock_and_the_next_call_recovers(
    pgflow_conn, pgflow_dsn, start_worker
):
    # A task claimed long ago by a worker that died (no worker process involved).
    pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled('quick', %s::jsonb)", (json.dumps(quick.shape()),)
    )
    dead = uuid.uuid4()
    pgflow_conn.execute("select pgflow.register_worker(%s, 'quick', 'dead')", (dead,))
    run_id = start_flow(pgflow_conn, "quick", {"x": 1})
    msg_ids = [r[0] for r in pgflow_conn.execute("select msg_id from pgmq.read('quick', 5, 10)")]
    pgflow_conn.execute("select * from pgflow.start_tasks('quick', %s, %s)", (msg_ids, dead))
    _fast_forward(pgflow_conn, run_id, seconds=600)

    # Worker A's tick gets stuck inside its transaction, in requeue_stalled_tasks (after
    # taking both advisory locks) behind a table lock; A is killed there, and its orphaned
    # session terminated.
    with psycopg.connect(pgflow_dsn) as blocker:
        blocker.execute("lock table pgflow.step_tasks in exclusive mode")
        worker_a = start_worker(QUICK, *REQUEUE_OFTEN)
        pid = wait_for(lambda: _requeueing_backend(pgflow_conn), what="A's call to block")
        assert _advisory_locks(pgflow_conn) == 2  # tick's and requeue_stalled_tasks's
        worker_a.kill()
        assert pgflow_conn.execute("select pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        wait_for(lambda: _advisory_locks(pgflow_conn) == 0, what="the call's lock to go")
        blocker.rollback()

    # Nothing was half done; the next worker's first call requeues the task, once.
    task = _the_task(pgflow_conn, run_id)
    assert (task["status"], task["requeued_count"]) == ("started", 0)
    worker_b = start_worker(QUICK, *REQUEUE_OFTEN)
    run = wait_run(pgflow_conn, run_id, timeout=30)
    assert (run["status"], run["output"]) == ("completed", {"echo": {"x": 1}})
    task = _the_task(pgflow_conn, run_id)
    assert (task["attempts_count"], task["requeued_count"]) == (2, 1)
    assert worker_b.has_log("stalled tasks requeued")
