"""Run-control verbs racing a worker's reports and claims, and each other, with two real
sessions and a forced interleaving.

Each race lets one session hold its transaction open after its call, starts the other call
in a thread (:class:`Background`), sees it either finished or waiting for a lock held by the
first session (pg_stat_activity and pg_blocking_pids, never a sleep), and only then commits
the first. The first to lock the run (or the task) wins; the other is a no-op that says so (a verb:
changed=false with expected_status, else 55000; a report: outcome ignored with a reason),
and pgflow.run_events holds each event exactly as often as it happened (compared whole).

The stalled-task sweep against cancel_run is in test_run_control_races_sweep.py.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg
import pytest

from tests.integration.sessions import Background, connect, wait_until_done_or_blocked

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
