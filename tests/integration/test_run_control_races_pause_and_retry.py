"""pause_run racing a worker's claims (read_and_start_tasks, and start_tasks of a message
read before the pause), and two operators retrying one failed run, with two real sessions
and a forced interleaving (see run_control_harness.py): the first to lock wins, the other
is a no-op that says so, and each event is recorded once.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg
import pytest

from tests.integration.run_control_harness import (
    FLOW,
    WORKER,
    claim,
    complete,
    events,
    fail,
    make_flow,
    run_status,
    start_run,
    started_events,
    task,
    verb,
    waits_for,
)
from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

# ---------------------------------------------------------------- 3. pause_run vs a claim


def test_pause_waits_for_a_claim_holding_a_task_which_keeps_its_message(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "a", "b")
    run_id = start_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as worker,
        connect(pgflow_dsn, autocommit=True) as operator,
    ):
        assert claim(worker, qty=1) == [("a", 1)]  # a claimed, not committed; b queued
        job = Background(operator, lambda c: verb(c, "pause_run", run_id, "started"))
        waits_for(pgflow_conn, job, worker)  # on task a's row (_park_queued_tasks)
        worker.commit()
        assert job.join() == ("paused", True, None)

    # a was started before the pause took it: it runs on, its message leased to the worker;
    # b is parked (queued, message archived) and no worker can claim it
    assert task(pgflow_conn, run_id, "a") == ("started", 1, "queue")
    assert task(pgflow_conn, run_id, "b") == ("queued", 0, "archive")
    assert claim(pgflow_conn) == []
    # the started task's report is recorded as usual
    assert complete(pgflow_conn, run_id, "a") == ("completed", "completed", None)
    assert run_status(pgflow_conn, run_id) == "paused"
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("run:paused", None): 1, ("step:completed", "a"): 1}
    )


def test_claim_during_an_uncommitted_pause_gets_nothing(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "a")
    run_id = start_run(pgflow_conn)
    with (
        connect(pgflow_dsn, autocommit=False) as operator,
        connect(pgflow_dsn, autocommit=True) as worker,
    ):
        assert verb(operator, "pause_run", run_id) == ("paused", True, None)
        job = Background(worker, claim)
        # the message being archived is locked: the read skips it, nothing waits
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == []
        operator.commit()
        assert claim(worker) == []

    assert task(pgflow_conn, run_id, "a") == ("queued", 0, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter({("run:paused", None): 1})


def test_start_of_a_message_read_before_the_pause_claims_nothing(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    """Two-phase polling: the worker read the message before the pause; its start_tasks
    runs while the pause is uncommitted (the task row is locked: skipped), and again after
    the pause committed (the run is paused: not claimable)."""
    make_flow(pgflow_conn, "a")
    run_id = start_run(pgflow_conn)
    read = pgflow_conn.execute("select msg_id from pgflow.read_tasks(%s, 30, 10)", (FLOW,))
    msg_ids = [r[0] for r in read.fetchall()]
    assert len(msg_ids) == 1

    def start(conn: psycopg.Connection) -> list[Any]:
        return conn.execute(
            "select * from pgflow.start_tasks(%s, %s::bigint[], %s)", (FLOW, msg_ids, WORKER)
        ).fetchall()

    with (
        connect(pgflow_dsn, autocommit=False) as operator,
        connect(pgflow_dsn, autocommit=True) as worker,
    ):
        assert verb(operator, "pause_run", run_id, "started") == ("paused", True, None)
        job = Background(worker, start)
        assert wait_until_done_or_blocked(pgflow_conn, job) == "done"
        assert job.join() == []
        operator.commit()
        assert start(worker) == []

    assert task(pgflow_conn, run_id, "a") == ("queued", 0, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter({("run:paused", None): 1})


# ---------------------------------------------------------------- 4. retry_run vs retry_run


@pytest.mark.parametrize("expected", ["failed", None])
def test_two_operators_retry_a_failed_run_once(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, expected: str | None
) -> None:
    make_flow(pgflow_conn, "a", max_attempts=1)
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1)]
    assert fail(pgflow_conn, run_id, "a") == ("failed", "failed", "exhausted")
    with (
        connect(pgflow_dsn, autocommit=False) as first,
        connect(pgflow_dsn, autocommit=True) as second,
    ):
        assert verb(first, "retry_run", run_id, "failed") == ("started", True, None)
        job = Background(second, lambda c: verb(c, "retry_run", run_id, expected))
        waits_for(pgflow_conn, job, first)
        first.commit()
        if expected is None:
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as raised:
                job.join()
            assert raised.value.diag.message_primary == f"retry_run: run {run_id} is started"
        else:
            assert job.join() == ("started", False, "run is started, not failed: nothing done")

    assert run_status(pgflow_conn, run_id) == "started"
    # one new task with one message: the step was reset once (it goes on from attempt 1)
    count = pgflow_conn.execute(
        f"select (select count(*) from pgflow.step_tasks where run_id = %s),"
        f" (select count(*) from pgmq.q_{FLOW})",
        (run_id,),
    ).fetchone()
    assert count == (1, 1)
    assert task(pgflow_conn, run_id, "a") == ("queued", 1, "queue")
    assert events(pgflow_conn, run_id) == Counter(
        {
            ("run:started", None): 1,
            ("step:started", "a"): 2,
            ("task:failed", "a"): 1,
            ("step:failed", "a"): 1,
            ("run:failed", None): 1,
            ("run:retried", None): 1,
            ("step:reset", "a"): 1,
        }
    )
