"""cancel_run racing the stalled-task sweep (pgflow.requeue_stalled_tasks) on a stalled task
of the run, with two real sessions and a forced interleaving (see
run_control_harness.py): whichever locks the task first wins, the sweep skips what the
cancel holds (SKIP LOCKED), the cancel waits for what the sweep holds and then cancels the
requeued task, and each event is recorded once.
"""

from __future__ import annotations

from collections import Counter

import psycopg

from tests.integration.run_control_harness import (
    claim,
    complete,
    events,
    make_flow,
    run_status,
    start_run,
    started_events,
    task,
    verb,
    waits_for,
)
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked


def sweep(conn: psycopg.Connection) -> int:
    row = conn.execute("select pgflow.requeue_stalled_tasks()").fetchone()
    assert row is not None
    return int(row[0])


def stalled_run(conn: psycopg.Connection) -> str:
    """A run of flow `rc` whose one task `a` was claimed an hour ago (timeout 60 s)."""
    make_flow(conn, "a")
    run_id = start_run(conn)
    assert claim(conn) == [("a", 1)]
    conn.execute(
        """update pgflow.step_tasks
           set queued_at = queued_at - interval '2 hours', started_at = now() - interval '1 hour'
           where run_id = %s""",
        (run_id,),
    )
    return run_id


def test_the_sweep_skips_a_stalled_task_held_by_an_uncommitted_cancel(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    run_id = stalled_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as operator,
        connect(pgflow_dsn, autocommit=True) as sweeper,
    ):
        assert verb(operator, "cancel_run", run_id, "started") == ("cancelled", True, None)
        job = Background(sweeper, sweep)
        # the task row is locked by the cancel: skipped, nothing waits
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == 0
        operator.commit()
        assert sweep(sweeper) == 0  # the run is cancelled: nothing is stalled any more

    assert run_status(pgflow_conn, run_id) == "cancelled"
    assert task(pgflow_conn, run_id, "a") == ("cancelled", 1, "archive")
    assert complete(pgflow_conn, run_id, "a") == ("cancelled", "ignored", "run_cancelled")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter(
        {("run:cancelled", None): 1, ("step:cancelled", "a"): 1}
    )


def test_a_cancel_waits_for_the_sweep_holding_a_stalled_task_then_cancels_it(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    run_id = stalled_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as sweeper,
        connect(pgflow_dsn, autocommit=True) as operator,
    ):
        assert sweep(sweeper) == 1  # requeued (queued, message visible), not committed
        job = Background(operator, lambda c: verb(c, "cancel_run", run_id, "started"))
        waits_for(pgflow_conn, job, sweeper)  # on task a's row (_cancel_tasks)
        sweeper.commit()
        assert job.join() == ("cancelled", True, None)

    assert run_status(pgflow_conn, run_id) == "cancelled"
    # queued -> cancelled, its requeued message archived: no worker can claim it
    assert task(pgflow_conn, run_id, "a") == ("cancelled", 1, "archive")
    assert claim(pgflow_conn) == []
    assert complete(pgflow_conn, run_id, "a") == ("cancelled", "ignored", "run_cancelled")
    assert sweep(pgflow_conn) == 0
    assert events(pgflow_conn, run_id) == started_events("a") + Counter(
        {("task:requeued", "a"): 1, ("run:cancelled", None): 1, ("step:cancelled", "a"): 1}
    )
