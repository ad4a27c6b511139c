"""PostgreSQL restarted (``pg_ctl restart -m fast``) under load: the workers lose every
connection, reconnect with backoff, keep running, and no run is lost.

Runs on a throwaway cluster of its own (restarting the session cluster would break the
other tests' fixtures). Runs are started with explicit run ids by a feeder thread that
keeps going through the restart (retrying while the server is down), so every run the
test meant to start is accounted for. A task whose claim committed just before the
connection died is requeued by ``pgflow.requeue_stalled_tasks()`` (step timeout 5 s + 30 s).
"""

from __future__ import annotations

import threading
import time
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb

from tests.integration.worker_harness import wait_for, worker_rows

pytestmark = pytest.mark.e2e

LOAD = "tests.e2e.flows.faults:load"
RUNS, ELEMENTS = 40, 10


class Feeder(threading.Thread):
    """Start RUNS runs, one every ``pause`` seconds, retrying each until it is in."""

    def __init__(self, dsn: str, pause: float) -> None:
        super().__init__(daemon=True)
        self.dsn = dsn
        self.pause = pause
        self.run_ids = [str(uuid.uuid4()) for _ in range(RUNS)]
        self.started = 0
        self.retries = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            conn = None
            for run_id in self.run_ids:
                while True:
                    try:
                        if conn is None or conn.closed:
                            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=2)
                        conn.execute(
                            "select pgflow.start_flow('load', %s, %s)",
                            (Jsonb(list(range(ELEMENTS))), run_id),
                        )
                        break
                    except psycopg.errors.UniqueViolation:
                        break  # committed before the connection died
                    except psycopg.OperationalError:
                        self.retries += 1
                        if conn is not None:
                            conn.close()
                        conn = None
                        time.sleep(0.2)
                self.started += 1
                time.sleep(self.pause)
            if conn is not None:
                conn.close()
        except BaseException as exc:
            self.error = exc


def _count(conn, sql, *params):
    return conn.execute(sql, params).fetchone()[0]


def test_postgres_fast_restart_under_load_loses_no_run(throwaway_cluster, start_worker):
    dsn = throwaway_cluster.create_pgflow_database("restart_under_load")
    args = ("--tick-interval", "1", "--poll-interval", "0.5", "--max-concurrency", "10")
    workers = [start_worker(LOAD, *args, dsn=dsn) for _ in range(2)]
    for worker in workers:
        worker.wait_running()

    feeder = Feeder(dsn, pause=0.1)
    feeder.start()
    with psycopg.connect(dsn, autocommit=True) as conn:
        wait_for(
            lambda: (
                _count(conn, "select count(*) from pgflow.step_tasks where status = 'completed'")
                >= 50
            ),
            what="load to build up",
        )
    throwaway_cluster.restart("fast")
    restarted = time.monotonic()
    feeder.join(120)
    assert not feeder.is_alive() and feeder.error is None
    assert feeder.started == RUNS

    with psycopg.connect(dsn, autocommit=True) as conn:
        back_at = conn.execute("select pg_postmaster_start_time()").fetchone()[0]

        def all_done():
            return (
                _count(conn, "select count(*) from pgflow.runs where status <> 'started'") == RUNS
            )

        wait_for(all_done, timeout=120, what="every run to finish")

        # No run lost, none failed, each with its whole output.
        rows = conn.execute("select run_id::text, status, output from pgflow.runs").fetchall()
        assert sorted(r[0] for r in rows) == sorted(feeder.run_ids)
        assert {(r[1], r[2]["added"]) for r in rows} == {("completed", sum(range(1, ELEMENTS + 1)))}
        # Every task completed once; every message archived once; nothing left queued.
        tasks = conn.execute(
            "select status, count(*), count(distinct message_id) from pgflow.step_tasks group by 1"
        ).fetchall()
        assert tasks == [("completed", RUNS * (ELEMENTS + 1), RUNS * (ELEMENTS + 1))]
        assert _count(conn, "select count(*) from pgmq.q_load") == 0
        assert _count(
            conn,
            "select count(*) from pgmq.a_load a "
            "join pgflow.step_tasks t on t.message_id = a.msg_id",
        ) == RUNS * (ELEMENTS + 1)
        assert _count(conn, "select count(*) from pgmq.a_load") == RUNS * (ELEMENTS + 1)
        inconsistent = _count(
            conn,
            "select count(*) from pgflow.step_states ss where ss.status <> 'completed' "
            "or ss.remaining_tasks <> 0 or ss.initial_tasks <> (select count(*) "
            "from pgflow.step_tasks t where t.run_id = ss.run_id and t.step_slug = ss.step_slug)",
        )
        assert inconsistent == 0

        # The workers never exited, reconnected with backoff, and heartbeat again.
        for worker in workers:
            assert worker.proc.poll() is None, worker.text()
        retries = [e["retry_in_s"] for w in workers for e in w.logs() if "retry_in_s" in e]
        assert retries, "no reconnection was logged"
        assert all(0 < r <= 15 for r in retries)
        wait_for(
            lambda: all(r["last_heartbeat_at"] > back_at for r in worker_rows(conn, "load")),
            what="heartbeats after the restart",
        )
        assert len(worker_rows(conn, "load")) == 2
        # and they still serve new runs
        run_id = conn.execute(
            "select run_id from pgflow.start_flow('load', '[1]'::jsonb)"
        ).fetchone()[0]
        wait_for(
            lambda: (
                _count(
                    conn,
                    "select count(*) from pgflow.runs where run_id = %s and status = 'completed'",
                    run_id,
                )
                == 1
            ),
            what="a run after the restart",
        )
    assert time.monotonic() - restarted < 300
