"""The worker's tick (pgflow.worker.tick.Ticker, one ``pgflow.tick()`` call) against a real
database: it fires a signal wait whose timeout passed (its on_timeout applies) and a timer
that is due, fires nothing twice, still requeues stalled tasks, and does nothing while
another tick holds the lock; one round calls tick again at once while a call fired
max_runs waits, so a backlog larger than max_runs drains in one round; it reports the runs
it expired and the queued runs it started. Deadlines are moved into the past with an
UPDATE: no sleeps.

Without a database: tests/unit/test_worker_requeue_stalled_tasks.py; a worker process that
ticks on its own: tests/integration/test_worker_signals.py.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from pgflow.worker.tick import Ticker, TickResult
from tests.integration.failing_runs import run_status, step_status
from tests.integration.stalled_tasks import setup_stalled_run, task
from tests.integration.wait_flows import (
    define_approval_flow,
    define_timer_flow,
    move_deadline_past,
    start_waiting_run,
)


def tick_once(dsn: str) -> TickResult:
    """One tick of the worker's Ticker, on a pool of its own (as the worker's)."""

    async def main() -> TickResult:
        async with AsyncConnectionPool(
            dsn, min_size=1, max_size=1, kwargs={"autocommit": True}
        ) as pool:
            return await Ticker(pool=pool, interval_seconds=5).tick_once()

    return asyncio.run(main())


def tick_round(dsn: str, **options: int) -> list[TickResult]:
    """One round of the worker's Ticker (calls in a row), on a pool of its own."""

    async def main() -> list[TickResult]:
        async with AsyncConnectionPool(
            dsn, min_size=1, max_size=1, kwargs={"autocommit": True}
        ) as pool:
            return await Ticker(pool=pool, interval_seconds=5, **options).tick_round()

    return asyncio.run(main())


def wait_row(conn: psycopg.Connection, run_id: str, step_slug: str) -> tuple:
    row = conn.execute(
        "select outcome, resolved_at is not null from pgflow.wait_states"
        " where run_id = %s and step_slug = %s",
        (run_id, step_slug),
    ).fetchone()
    assert row is not None
    return row


def event_count(conn: psycopg.Connection, run_id: str, event: str) -> int:
    (count,) = conn.execute(
        "select count(*) from pgflow.run_events where run_id = %s and event = %s",
        (run_id, event),
    ).fetchone()
    return count


@pytest.mark.parametrize(
    ("on_timeout", "approve", "ship", "run"),
    [
        ("fail", "failed", "cancelled", "failed"),
        ("skip", "skipped", "started", "started"),
        ("continue", "completed", "started", "started"),  # no handler: output JSON null
    ],
)
def test_tick_times_out_a_signal_wait_past_its_deadline(
    pgflow_dsn, pgflow_conn, caplog, on_timeout, approve, ship, run
):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    define_approval_flow(pgflow_conn, timeout=60, on_timeout=on_timeout)
    run_id = start_waiting_run(pgflow_conn)
    still_waiting = start_waiting_run(pgflow_conn)  # deadline in 60 s: not fired
    move_deadline_past(pgflow_conn, run_id, "approve")

    result = tick_once(pgflow_dsn)

    assert result == TickResult(ran=True, fired_waits=1, requeued_tasks=0)
    assert wait_row(pgflow_conn, run_id, "approve") == ("timed_out", True)
    assert event_count(pgflow_conn, run_id, "wait:timed_out") == 1
    assert step_status(pgflow_conn, run_id, "approve") == approve
    assert step_status(pgflow_conn, run_id, "ship") == ship
    assert run_status(pgflow_conn, run_id) == run
    assert step_status(pgflow_conn, still_waiting, "approve") == "waiting"
    fired = [r for r in caplog.records if r.getMessage() == "waits fired"]
    assert [r.fields for r in fired] == [{"fired_waits": 1}]  # type: ignore[attr-defined]

    assert tick_once(pgflow_dsn) == TickResult(ran=True, fired_waits=0, requeued_tasks=0)
    assert event_count(pgflow_conn, run_id, "wait:timed_out") == 1


def test_tick_fires_a_timer_that_is_due(pgflow_dsn, pgflow_conn):
    define_timer_flow(pgflow_conn)
    run_id = start_waiting_run(pgflow_conn, "cooling", "cool_off")

    assert tick_once(pgflow_dsn).fired_waits == 0  # due in an hour
    move_deadline_past(pgflow_conn, run_id, "cool_off")
    result = tick_once(pgflow_dsn)

    assert result == TickResult(ran=True, fired_waits=1, requeued_tasks=0)
    assert wait_row(pgflow_conn, run_id, "cool_off") == ("due", True)
    assert step_status(pgflow_conn, run_id, "cool_off") == "completed"
    assert step_status(pgflow_conn, run_id, "after") == "started"
    assert event_count(pgflow_conn, run_id, "timer:fired") == 1


def test_tick_still_requeues_stalled_tasks(pgflow_dsn, pgflow_conn, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    run_id = setup_stalled_run(pgflow_conn)

    result = tick_once(pgflow_dsn)

    assert result == TickResult(ran=True, fired_waits=0, requeued_tasks=1)
    row = task(pgflow_conn, run_id)
    assert (row["status"], row["requeued_count"]) == ("queued", 1)
    assert event_count(pgflow_conn, run_id, "task:requeued") == 1
    assert any(r.getMessage() == "stalled tasks requeued" for r in caplog.records)
    assert tick_once(pgflow_dsn).requeued_tasks == 0


def test_a_tick_while_another_holds_the_lock_does_nothing(pgflow_dsn, pgflow_conn):
    define_approval_flow(pgflow_conn, timeout=60)
    run_id = start_waiting_run(pgflow_conn)
    move_deadline_past(pgflow_conn, run_id, "approve")

    with psycopg.connect(pgflow_dsn) as other:  # a transaction: holds the tick's xact lock
        assert other.execute("select ran from pgflow.tick()").fetchone() == (True,)
        assert tick_once(pgflow_dsn) == TickResult(ran=False, fired_waits=0, requeued_tasks=0)
        other.rollback()  # undo its firing: the next tick must do it

    assert step_status(pgflow_conn, run_id, "approve") == "waiting"
    assert tick_once(pgflow_dsn) == TickResult(ran=True, fired_waits=1, requeued_tasks=0)
    assert step_status(pgflow_conn, run_id, "approve") == "failed"


def test_one_round_fires_a_backlog_larger_than_max_runs(pgflow_dsn, pgflow_conn, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    define_approval_flow(pgflow_conn, timeout=60)
    run_ids = [start_waiting_run(pgflow_conn) for _ in range(250)]
    spared = start_waiting_run(pgflow_conn)  # deadline in 60 s: not due
    pgflow_conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '1 second' where run_id <> %s",
        (spared,),
    )

    results = tick_round(pgflow_dsn, max_runs=100)

    assert [r.fired_waits for r in results] == [100, 100, 50]
    assert all(r.ran for r in results)
    (failed,) = pgflow_conn.execute(
        "select count(*) from pgflow.step_states where run_id = any(%s::uuid[])"
        " and step_slug = 'approve' and status = 'failed'",
        (run_ids,),
    ).fetchone()
    assert failed == 250
    assert step_status(pgflow_conn, spared, "approve") == "waiting"
    assert tick_round(pgflow_dsn, max_runs=100) == [TickResult(True, 0, 0)]


def test_a_round_stops_after_max_rounds_calls(pgflow_dsn, pgflow_conn, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    define_approval_flow(pgflow_conn, timeout=60)
    run_ids = [start_waiting_run(pgflow_conn) for _ in range(5)]
    pgflow_conn.execute("update pgflow.wait_states set deadline = now() - interval '1 second'")

    results = tick_round(pgflow_dsn, max_runs=1, max_rounds=3)

    assert [r.fired_waits for r in results] == [1, 1, 1]
    statuses = [step_status(pgflow_conn, run_id, "approve") for run_id in run_ids]
    assert sorted(statuses) == ["failed"] * 3 + ["waiting"] * 2  # the rest: next interval
    assert any("more may be due" in r.getMessage() for r in caplog.records)


def test_tick_reports_expired_runs_and_queued_runs_it_started(pgflow_dsn, pgflow_conn, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    pgflow_conn.execute(
        "select pgflow.create_flow('billing', concurrency_limit => 1, on_limit => 'queue')"
    )
    pgflow_conn.execute("select pgflow.add_step('billing', 'only')")
    start = "select run_id, status from pgflow.start_flow('billing', '{}', concurrency_key => 'k')"
    (holder, _), (queued, status) = [pgflow_conn.execute(start).fetchone() for _ in range(2)]
    assert status == "queued"
    late = pgflow_conn.execute(
        "select run_id from pgflow.start_flow('billing', '{}', deadline => now() + interval '1 h')"
    ).fetchone()[0]
    pgflow_conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s", (late,)
    )
    # a raised limit frees a slot no release gave away: the tick's safety net starts the run
    pgflow_conn.execute(
        "update pgflow.flows set opt_concurrency_limit = 2 where flow_slug = 'billing'"
    )

    result = tick_once(pgflow_dsn)

    assert result == TickResult(True, 0, 0, expired_runs=1, started_queued_runs=1)
    assert (run_status(pgflow_conn, late), run_status(pgflow_conn, queued)) == (
        "expired",
        "started",
    )
    assert run_status(pgflow_conn, holder) == "started"
    logged = [r for r in caplog.records if r.getMessage().startswith("tick ")]
    assert [(r.getMessage(), r.fields) for r in logged] == [  # type: ignore[attr-defined]
        ("tick expired runs past their deadline", {"expired_runs": 1}),
        ("tick started queued runs whose slot was free", {"started_queued_runs": 1}),
    ]
    assert tick_once(pgflow_dsn) == TickResult(True, 0, 0)  # nothing twice
