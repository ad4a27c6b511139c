"""cancel_run racing a worker's reports (complete_tasks, fail_tasks) with two real sessions
and a forced interleaving (see run_control_harness.py): the first to lock the run wins, the
other is a no-op that says so, and each event is recorded once.

The stalled-task sweep against cancel_run is in test_run_control_races_sweep.py.
"""

from __future__ import annotations

from collections import Counter

import psycopg
import pytest

from tests.integration.run_control_harness import (
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
from tests.integration.sessions import Background, connect

# ---------------------------------------------------------------- 1. cancel_run vs complete_tasks


def test_cancel_first_a_waiting_completion_is_ignored_run_cancelled(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "a")
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1)]
    with (
        connect(pgflow_dsn, autocommit=False) as operator,
        connect(pgflow_dsn, autocommit=True) as worker,
    ):
        assert verb(operator, "cancel_run", run_id) == ("cancelled", True, None)
        job = Background(worker, lambda c: complete(c, run_id, "a"))
        waits_for(pgflow_conn, job, operator)
        operator.commit()
        assert job.join() == ("cancelled", "ignored", "run_cancelled")

    assert run_status(pgflow_conn, run_id) == "cancelled"
    assert task(pgflow_conn, run_id, "a") == ("cancelled", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter(
        {("run:cancelled", None): 1, ("step:cancelled", "a"): 1}
    )


@pytest.mark.parametrize("expected", ["started", None])
def test_completion_of_the_last_task_first_a_waiting_cancel_is_a_no_op(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, expected: str | None
) -> None:
    make_flow(pgflow_conn, "a")
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1)]
    with (
        connect(pgflow_dsn, autocommit=False) as worker,
        connect(pgflow_dsn, autocommit=True) as operator,
    ):
        assert complete(worker, run_id, "a") == ("completed", "completed", None)
        job = Background(operator, lambda c: verb(c, "cancel_run", run_id, expected))
        waits_for(pgflow_conn, job, worker)
        worker.commit()
        if expected is None:
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as raised:
                job.join()
            assert raised.value.diag.message_primary == f"cancel_run: run {run_id} is completed"
        else:
            assert job.join() == (
                "completed",
                False,
                "run is completed, not started: nothing done",
            )

    assert run_status(pgflow_conn, run_id) == "completed"
    assert task(pgflow_conn, run_id, "a") == ("completed", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter(
        {("step:completed", "a"): 1, ("run:completed", None): 1}
    )


def test_completion_of_one_task_first_a_waiting_cancel_cancels_the_rest(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "a", "b")
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1), ("b", 1)]
    with (
        connect(pgflow_dsn, autocommit=False) as worker,
        connect(pgflow_dsn, autocommit=True) as operator,
    ):
        assert complete(worker, run_id, "a") == ("completed", "completed", None)
        job = Background(operator, lambda c: verb(c, "cancel_run", run_id, "started"))
        waits_for(pgflow_conn, job, worker)
        worker.commit()
        assert job.join() == ("cancelled", True, None)
        # the other task's late report
        assert complete(worker, run_id, "b") == ("cancelled", "ignored", "run_cancelled")

    assert task(pgflow_conn, run_id, "a") == ("completed", 1, "archive")
    assert task(pgflow_conn, run_id, "b") == ("cancelled", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {("step:completed", "a"): 1, ("run:cancelled", None): 1, ("step:cancelled", "b"): 1}
    )


# ---------------------------------------------------------------- 2. cancel_run vs fail_tasks


def test_cancel_first_a_waiting_exhausting_failure_is_ignored_run_cancelled(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str
) -> None:
    make_flow(pgflow_conn, "a", max_attempts=1)
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1)]
    with (
        connect(pgflow_dsn, autocommit=False) as operator,
        connect(pgflow_dsn, autocommit=True) as worker,
    ):
        assert verb(operator, "cancel_run", run_id, "started") == ("cancelled", True, None)
        job = Background(worker, lambda c: fail(c, run_id, "a"))
        waits_for(pgflow_conn, job, operator)
        operator.commit()
        assert job.join() == ("cancelled", "ignored", "run_cancelled")

    assert run_status(pgflow_conn, run_id) == "cancelled"
    assert task(pgflow_conn, run_id, "a") == ("cancelled", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a") + Counter(
        {("run:cancelled", None): 1, ("step:cancelled", "a"): 1}
    )


@pytest.mark.parametrize("expected", ["started", None])
def test_exhausting_failure_first_a_waiting_cancel_is_a_no_op(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, expected: str | None
) -> None:
    make_flow(pgflow_conn, "a", "b", max_attempts=1)
    run_id = start_run(pgflow_conn)
    assert claim(pgflow_conn) == [("a", 1), ("b", 1)]
    with (
        connect(pgflow_dsn, autocommit=False) as worker,
        connect(pgflow_dsn, autocommit=True) as operator,
    ):
        assert fail(worker, run_id, "a") == ("failed", "failed", "exhausted")
        job = Background(operator, lambda c: verb(c, "cancel_run", run_id, expected))
        waits_for(pgflow_conn, job, worker)
        worker.commit()
        if expected is None:
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState) as raised:
                job.join()
            assert raised.value.diag.message_primary == f"cancel_run: run {run_id} is failed"
        else:
            assert job.join() == ("failed", False, "run is failed, not started: nothing done")

    assert run_status(pgflow_conn, run_id) == "failed"
    assert task(pgflow_conn, run_id, "a") == ("failed", 1, "archive")
    # b was cancelled by the failure (run_failed), not by the operator
    assert task(pgflow_conn, run_id, "b") == ("cancelled", 1, "archive")
    assert events(pgflow_conn, run_id) == started_events("a", "b") + Counter(
        {
            ("task:failed", "a"): 1,
            ("step:failed", "a"): 1,
            ("run:failed", None): 1,
            ("step:cancelled", "b"): 1,
        }
    )
    actors = pgflow_conn.execute(
        "select distinct actor from pgflow.run_events where run_id = %s"
        " and event in ('run:failed', 'step:cancelled')",
        (run_id,),
    ).fetchall()
    assert actors == [(f"worker:{WORKER}",)]
