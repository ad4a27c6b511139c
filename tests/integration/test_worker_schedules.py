"""The worker makes each flow's pg_cron schedule match its ``cron=`` option.

pg_cron can only live in the database named by cron.database_name (``pg_cron_dsn``), so
pgmq and pgflow are installed there for these tests and removed afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

import pgflow
from tests.integration.worker_harness import FLOWS, WorkerProcess, wait_for, wait_run


@pytest.fixture
def cron_db(pg_cron_dsn: str) -> Iterator[str]:
    pgflow.install(pg_cron_dsn, method="extension")
    yield pg_cron_dsn
    with psycopg.connect(pg_cron_dsn, autocommit=True) as conn:
        conn.execute("select cron.unschedule(jobid) from cron.job where jobname like 'pgflow%%'")
        conn.execute("drop extension if exists pgflow cascade")
        conn.execute("drop extension if exists pgmq cascade")
        conn.execute("drop schema if exists pgflow cascade")


@pytest.fixture
def cron_worker(cron_db: str, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    started: list[WorkerProcess] = []

    def start(*refs: str) -> WorkerProcess:
        worker = WorkerProcess(
            cron_db, [f"{FLOWS}.{ref}" for ref in refs], [], tmp_path / f"w{len(started)}.log"
        )
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def schedules(dsn: str) -> dict[str, tuple[str, object]]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "select s.schedule_name, j.schedule, s.input from pgflow.schedules s"
            " join cron.job j on j.jobname = 'pgflow_schedule:' || s.schedule_name"
        ).fetchall()
    return {name: (schedule, flow_input) for name, schedule, flow_input in rows}


def test_worker_creates_the_schedules_of_its_flows(cron_db, cron_worker):
    worker = cron_worker("scheduled:ticker", "scheduled:cleanup_job")
    worker.wait_running()

    assert schedules(cron_db) == {
        "ticker": ("* * * * *", {"source": "cron"}),
        "cleanup_job": ("*/10 * * * *", {"older_than_days": 7}),
    }


def test_a_firing_starts_one_run_per_slot_and_the_worker_runs_it(cron_db, cron_worker):
    worker = cron_worker("scheduled:ticker")
    worker.wait_running()

    with psycopg.connect(cron_db, autocommit=True) as conn:
        # what the pg_cron job runs, fired twice in the same minute
        job_command = conn.execute(
            "select command from cron.job where jobname = 'pgflow_schedule:ticker'"
        ).fetchone()[0]
        first = conn.execute(job_command).fetchone()[0]
        second = conn.execute(job_command).fetchone()[0]
        assert first is not None and second is None
        run = wait_run(conn, str(first))
        assert run["status"] == "completed"
        assert run["output"] == {"tick": {"ticked": "cron"}}
        assert conn.execute("select count(*) from pgflow.runs").fetchone()[0] == 1


def test_a_schedule_removed_from_the_code_is_removed_from_the_database(cron_db, cron_worker):
    first = cron_worker("scheduled:ticker")
    first.wait_running()
    first.stop()

    second = cron_worker("scheduled:ticker_unscheduled")
    second.wait_running()

    wait_for(lambda: schedules(cron_db) == {}, what="the ticker schedule to be removed")


def test_without_pg_cron_the_worker_logs_and_serves_the_flow(pgflow_dsn, start_worker):
    worker = start_worker("scheduled:ticker")
    worker.wait_running()

    entry = worker.wait_log("flow schedule not created; runs must be started by hand")
    assert "pg_cron is not installed" in entry["error"]
    with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
        run_id = conn.execute(
            "select run_id from pgflow.start_flow('ticker', '{\"source\": \"hand\"}')"
        ).fetchone()[0]
        assert wait_run(conn, str(run_id))["status"] == "completed"


def test_sync_and_list_schedules_without_a_worker(cron_db):
    from pgflow.schedules import list_schedules, sync_schedules
    from tests.integration.flows.scheduled import cleanup_job, ticker, ticker_unscheduled

    with psycopg.connect(cron_db, autocommit=True) as conn:
        conn.execute(ticker.to_sql())
        conn.execute(cleanup_job.to_sql())

    assert sync_schedules(cron_db, [ticker, cleanup_job]) == {
        "ticker": "created",
        "cleanup_job": "created",
    }
    assert sync_schedules(cron_db, [ticker]) == {"ticker": "unchanged"}
    listed = {s.name: s for s in list_schedules(cron_db)}
    assert set(listed) == {"ticker", "cleanup_job"}
    assert listed["ticker"].active
    assert listed["ticker"].next_run is not None
    assert listed["cleanup_job"].next_run.minute % 10 == 0
    assert sync_schedules(cron_db, [ticker_unscheduled]) == {"ticker": "removed"}
    assert [s.name for s in list_schedules(cron_db)] == ["cleanup_job"]


def test_two_concurrent_schedule_calls_leave_one_job(cron_db):
    import threading

    from tests.integration.flows.scheduled import ticker

    with psycopg.connect(cron_db, autocommit=True) as conn:
        conn.execute(ticker.to_sql())
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def schedule(expression: str) -> None:
        try:
            with psycopg.connect(cron_db, autocommit=True) as conn:
                barrier.wait()
                conn.execute("select pgflow.schedule_flow('ticker', %s)", (expression,))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=schedule, args=(e,)) for e in ("0 * * * *", "30 * * * *")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert not errors
    with psycopg.connect(cron_db) as conn:
        jobs = conn.execute(
            "select count(*) from cron.job where jobname = 'pgflow_schedule:ticker'"
        ).fetchone()[0]
        rows = conn.execute("select count(*) from pgflow.schedules").fetchone()[0]
    assert (jobs, rows) == (1, 1)
