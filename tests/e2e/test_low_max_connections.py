"""A server of ``max_connections = 20`` shared by 8 workers whose handlers each open a
connection of their own: every run completes, and no worker holds more connections than
the budget it states at start.

The workers run with the options docs/connections.md gives for such a server:
``--no-listen --max-connections 1 --max-concurrency 1``, a budget of 1 connection per
worker and 1 per handler: 8 + 8 = 16 of the 17 slots an ordinary role gets (3 are kept
for superusers). Workers and handlers log in as an ordinary role (``pgflow_worker``); the
test's own two connections are a superuser's and take from the same 20, so handlers are
sometimes refused (``remaining connection slots are reserved``) and their tasks retried
with backoff: slower, but every run completes. A sampler counts the server's client
connections by ``application_name`` every 50 ms, from its own connection.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb

from tests.e2e.flows.connections import HANDLER_APPLICATION
from tests.integration.worker_harness import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NEEDS_DB = "tests.e2e.flows.connections:needs_db"
MAX_CONNECTIONS, RESERVED = 20, 3
WORKERS, RUNS, ITEMS = 8, 10, 3
WORKER_OPTIONS = (
    "--no-listen",
    "--max-connections",
    "1",
    "--max-concurrency",
    "1",
    "--poll-interval",
    "0.5",
)
ROLE = "e2e_app"
CLIENTS = (
    "select application_name, count(*) from pg_stat_activity "
    "where backend_type = 'client backend' and pid <> pg_backend_pid() group by 1"
)


class ConnectionSampler:
    """Count client connections by ``application_name`` until stopped (own connection)."""

    def __init__(self, dsn: str) -> None:
        self.samples: list[Counter[str]] = []
        self._dsn = dsn
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            with psycopg.connect(self._dsn, autocommit=True) as conn:
                while not self._stop.wait(0.05):
                    self.samples.append(Counter(dict(conn.execute(CLIENTS).fetchall())))
        except BaseException as exc:  # reported by __exit__
            self._error = exc

    def __enter__(self) -> ConnectionSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(30)
        assert not self._thread.is_alive(), "the sampler did not stop"
        if self._error is not None:
            raise self._error

    def peak(self, name: str) -> int:
        """Most connections of ``application_name`` seen in one sample."""
        return max((sample[name] for sample in self.samples), default=0)

    def peak_of(self, prefix: str) -> int:
        """Most connections whose ``application_name`` starts with ``prefix`` in one sample."""
        return max(
            (sum(n for app, n in s.items() if app.startswith(prefix)) for s in self.samples),
            default=0,
        )


def _stated_budget(worker: Any) -> tuple[str, int]:
    """The worker's pool application_name and the connection budget it logged at start."""
    serving = worker.wait_log("serving flows")
    (worker_id,) = serving["worker_ids"].values()
    return f"pgflow-worker:{worker_id}", serving["connection_budget"]


def test_eight_workers_complete_every_run_on_a_server_of_20_connections(
    throwaway_cluster, start_worker
):
    with (throwaway_cluster.data / "postgresql.conf").open("a") as conf:
        conf.write(
            f"max_connections = {MAX_CONNECTIONS}\nsuperuser_reserved_connections = {RESERVED}\n"
        )
    throwaway_cluster.restart()
    admin_dsn = throwaway_cluster.create_pgflow_database("low_max_connections")
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        assert conn.execute("show max_connections").fetchone() == (str(MAX_CONNECTIONS),)
        conn.execute(f"create role {ROLE} login in role pgflow_worker")
    app_dsn = make_conninfo(admin_dsn, user=ROLE)
    env = {"E2E_HANDLER_DSN": app_dsn}

    first = start_worker(NEEDS_DB, *WORKER_OPTIONS, dsn=app_dsn, env=env)
    first.wait_running(60)  # compiles the flow before the others verify it
    workers = [first] + [
        start_worker(NEEDS_DB, *WORKER_OPTIONS, dsn=app_dsn, env=env) for _ in range(WORKERS - 1)
    ]
    for worker in workers:
        worker.wait_running(60)
    budgets = dict(_stated_budget(worker) for worker in workers)
    assert set(budgets.values()) == {1}  # --max-connections 1, no listener

    with (
        ConnectionSampler(admin_dsn) as sampler,
        psycopg.connect(admin_dsn, autocommit=True) as conn,
    ):
        run_ids = [
            conn.execute(
                "select run_id from pgflow.start_flow('needs_db', %s)", (Jsonb({"items": ITEMS}),)
            ).fetchone()[0]
            for _ in range(RUNS)
        ]

        def finished() -> list[tuple[str, Any]]:
            rows = conn.execute(
                "select status, output from pgflow.runs where run_id = any(%s)", (run_ids,)
            ).fetchall()
            return rows if all(status != "started" for status, _ in rows) else []

        runs = wait_for(finished, timeout=100, interval=0.5, what="every run to finish")
        retried = conn.execute(
            "select count(*) from pgflow.step_tasks where attempts_count > 1"
        ).fetchone()[0]

    # Every run completed, with its whole output.
    assert runs == [("completed", {"total": 2 * sum(range(ITEMS))})] * RUNS, f"{retried=}"
    # No worker ever held more connections than the budget it stated; none listened.
    assert len(sampler.samples) > 10
    for application_name, budget in budgets.items():
        assert 1 <= sampler.peak(application_name) <= budget, application_name
    assert sampler.peak_of("pgflow-worker-listen:") == 0
    assert sampler.peak_of("pgflow-worker") <= WORKERS
    # Handlers' own connections: at most one per worker (--max-concurrency 1).
    assert 1 <= sampler.peak(HANDLER_APPLICATION) <= WORKERS
    # The workers never crashed, and printed no line per refused connection attempt.
    for worker in workers:
        assert worker.proc.poll() is None, worker.text()
        assert "error connecting in" not in worker.text()
