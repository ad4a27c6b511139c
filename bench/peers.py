"""``make bench-peers``: W1 and W2 with Procrastinate and DBOS, on the same cluster.

Same shape as the pgflow drain workloads: the work is enqueued first (into a fresh,
otherwise empty database ``pgflow_bench_peer``), then the same number of worker processes
as pgflow's is spawned with the same handler concurrency (Procrastinate ``--concurrency``,
DBOS ``worker_concurrency``), and the drain time runs on the database clock from the
first job/workflow started to the last one finished. Tasks: one Procrastinate job, one
DBOS step. A peer that cannot be imported or run is reported with the reason.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any, ClassVar

import psycopg
from psycopg.conninfo import conninfo_to_dict

from bench.cluster import PEER_DB, ROOT
from bench.cpu import CpuWindow
from bench.procs import Workers

if TYPE_CHECKING:
    from bench.run import Bench

DRAIN_TIMEOUT_SECONDS = 300.0
POLL_SECONDS = 0.1
#: The peers' backends: every other session on the peer database.
PEER_BACKENDS = (
    "select pid from pg_stat_activity where datname = current_database() "
    "and pid <> pg_backend_pid()"
)


class Procrastinate:
    """Procrastinate 3: jobs in ``procrastinate_jobs``, timings in ``procrastinate_events``."""

    name = "procrastinate"
    module = "procrastinate"
    steps: ClassVar[dict[str, int]] = {"W1": 1, "W2": 3}

    def setup(self, dsn: str) -> None:
        """Apply Procrastinate's schema."""
        app = self._module(dsn).app
        with app.open():
            app.schema_manager.apply_schema()

    def enqueue(self, dsn: str, workload: str, count: int) -> None:
        """Defer ``count`` jobs (W1) or chain starts (W2) in one batch."""
        module = self._module(dsn)
        with module.app.open():
            if workload == "W1":
                module.noop.batch_defer(*({} for _ in range(count)))
            else:
                module.chain_1.batch_defer(*({"chain": n} for n in range(count)))

    def argv(self, concurrency: int) -> list[str]:
        """The worker command."""
        return [
            sys.executable,
            "-m",
            "procrastinate",
            "--app",
            "bench.peer_apps.procrastinate_app.app",
            "--log-level",
            "warning",
            "worker",
            "--concurrency",
            str(concurrency),
            "--queues",
            "bench",
        ]

    def env(self, dsn: str, concurrency: int) -> dict[str, str]:
        """Environment of the workers."""
        return {"BENCH_PEER_DSN": dsn}

    def progress(self, conn: psycopg.Connection[Any], workload: str) -> tuple[int, int]:
        """(tasks finished successfully, tasks failed)."""
        row = conn.execute(
            "select count(*) filter (where status = 'succeeded'), "
            "count(*) filter (where status in ('failed', 'aborted')) from procrastinate_jobs"
        ).fetchone()
        return int(row[0]), int(row[1])  # type: ignore[index]

    def timings(self, conn: psycopg.Connection[Any]) -> tuple[float, float]:
        """(first start, last finish) as epoch seconds on the database clock."""
        row = conn.execute(
            "select extract(epoch from min(at) filter (where type = 'started'))::float8, "
            "extract(epoch from max(at) filter (where type = 'succeeded'))::float8 "
            "from procrastinate_events"
        ).fetchone()
        return row[0], row[1]  # type: ignore[index]

    def _module(self, dsn: str) -> Any:
        # The app reads $BENCH_PEER_DSN when imported; the peer database name never changes.
        os.environ["BENCH_PEER_DSN"] = dsn
        return importlib.import_module("bench.peer_apps.procrastinate_app")


class Dbos:
    """DBOS Transact: workflows enqueued with DBOSClient on queue ``bench``."""

    name = "dbos"
    module = "dbos"
    steps: ClassVar[dict[str, int]] = {"W1": 1, "W2": 3}

    def setup(self, dsn: str) -> None:
        """Create DBOS's system schema (one process, before the workers race for it)."""
        proc = Workers(
            [sys.executable, "-m", "bench.peer_apps.dbos_app", "migrate"],
            1,
            "dbos-migrate",
            self.env(dsn, 1),
        )
        proc.start()
        code = proc.procs[0].wait(120)
        if code != 0:
            tail = proc.logs[0].read_text(errors="replace")[-2000:]
            raise RuntimeError(f"DBOS migration failed ({code}): {tail}")

    def enqueue(self, dsn: str, workload: str, count: int) -> None:
        """Enqueue ``count`` workflows w1 or w2 with DBOSClient."""
        from dbos import DBOSClient

        from bench.peer_apps.dbos_app import APP_NAME, QUEUE

        client = DBOSClient(system_database_url=_url(dsn), application_name=APP_NAME)
        try:
            options = {"queue_name": QUEUE, "workflow_name": workload.lower()}
            for _ in range(count):
                client.enqueue(options)  # type: ignore[arg-type]
        finally:
            client.destroy()

    def argv(self, concurrency: int) -> list[str]:
        """The worker command."""
        return [sys.executable, "-m", "bench.peer_apps.dbos_app", "worker"]

    def env(self, dsn: str, concurrency: int) -> dict[str, str]:
        """Environment of the workers."""
        return {"BENCH_PEER_URL": _url(dsn), "BENCH_PEER_CONCURRENCY": str(concurrency)}

    def progress(self, conn: psycopg.Connection[Any], workload: str) -> tuple[int, int]:
        """(steps of successful workflows, failed workflows)."""
        row = conn.execute(
            "select count(*) filter (where status = 'SUCCESS'), "
            "count(*) filter (where status in ('ERROR', 'CANCELLED', "
            "'MAX_RECOVERY_ATTEMPTS_EXCEEDED')) from dbos.workflow_status"
        ).fetchone()
        return int(row[0]) * self.steps[workload], int(row[1])  # type: ignore[index]

    def timings(self, conn: psycopg.Connection[Any]) -> tuple[float, float]:
        """(first workflow started, last completed) as epoch seconds."""
        row = conn.execute(
            "select min(started_at_epoch_ms) / 1000.0, "
            "max(coalesce(completed_at, updated_at)) / 1000.0 from dbos.workflow_status"
        ).fetchone()
        return float(row[0]), float(row[1])  # type: ignore[index,arg-type]


def _url(dsn: str) -> str:
    """A postgresql:// URL (what DBOS / SQLAlchemy take) for a libpq DSN."""
    p = conninfo_to_dict(dsn)
    auth = p.get("user", "postgres") + (f":{p['password']}" if p.get("password") else "")
    return f"postgresql://{auth}@{p.get('host', 'localhost')}:{p.get('port', 5432)}/{p['dbname']}"


def drain(bench: Bench, peer: Any, workload: str, count: int) -> dict[str, Any]:
    """Enqueue, spawn the peer's workers, wait for the drain; return rate and details."""
    settings = bench.settings
    dsn = bench.server.fresh_db(template=None, name=PEER_DB)
    peer.setup(dsn)
    peer.enqueue(dsn, workload, count)
    expected = count * peer.steps[workload]
    workers = Workers(
        peer.argv(settings.max_concurrency),
        settings.processes,
        f"{peer.name}-{workload.lower()}",
        {**peer.env(dsn, settings.max_concurrency), "PYTHONPATH": str(ROOT)},
    )
    spawned = time.time()
    with psycopg.connect(dsn, autocommit=True) as conn:
        workers.start()
        window = CpuWindow(conn, [p.pid for p in workers.procs], PEER_BACKENDS)
        opened = closed = False
        try:
            deadline = time.monotonic() + DRAIN_TIMEOUT_SECONDS
            while True:
                done, failed = peer.progress(conn, workload)
                if failed:
                    raise RuntimeError(f"{failed} {peer.name} {workload} items failed")
                if not opened and done >= expected // 10:
                    window.open(done)
                    opened = True
                elif opened and not closed and done >= expected * 9 // 10:
                    window.close(done)
                    closed = True
                if done >= expected:
                    break
                workers.check_alive()
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{peer.name} {workload}: {done}/{expected} after timeout")
                time.sleep(POLL_SECONDS)
            seen = time.time()
            first, last = peer.timings(conn)
        finally:
            workers.stop()
    seconds = last - first
    return {
        "rate": expected / seconds,
        "tasks": expected,
        "drain_s": round(seconds, 3),
        "wall_s": round(seen - spawned, 3),
        "startup_s": round(first - spawned, 3),
        "cpu": window.result,
    }


def run_all(bench: Bench) -> None:
    """Run W1 and W2 for each peer; record measurements or the reason there are none."""
    sizes = {"W1": bench.sizes.w1_runs, "W2": bench.sizes.w2_runs}
    for peer in (Procrastinate(), Dbos()):
        try:
            module = importlib.import_module(peer.module)
        except ImportError as exc:
            bench.results.peers[peer.name] = {
                "status": "unavailable",
                "reason": f"not installed ({exc}); `make bench-peers` installs it",
            }
            continue
        version = getattr(module, "__version__", None) or _dist_version(peer.module)
        info: dict[str, Any] = {"status": "ok", "version": version}
        label = {"procrastinate": "Procrastinate", "dbos": "DBOS"}[peer.name]
        for workload, count in sizes.items():
            shape = "one-step runs" if workload == "W1" else "3-step chains"
            try:
                bench.repeated(
                    f"peer.{peer.name}.{workload}",
                    f"{label} {workload} {shape}",
                    "tasks/s",
                    lambda peer=peer, workload=workload, count=count: drain(
                        bench, peer, workload, count
                    ),
                )
            except Exception as exc:  # a peer failing must not hide the others
                traceback.print_exc()
                info = {
                    "status": "failed",
                    "version": version,
                    "reason": f"{workload}: {type(exc).__name__}: {exc}",
                }
                bench.results.measurements.pop(f"peer.{peer.name}.{workload}", None)
                break
        if info["status"] == "ok":
            info["note"] = f"{label} {version}: W1 and W2 measured" + (
                " (W2 = each job deferring the next)"
                if peer.name == "procrastinate"
                else " (W2 = one workflow with 3 sequential steps; queue polled every "
                f"{_dbos_polling_seconds()} s: DBOS's default 1 s would cap a worker at "
                "worker_concurrency workflows per second)"
            )
        bench.results.peers[peer.name] = info


def _dbos_polling_seconds() -> float:
    from bench.peer_apps.dbos_app import POLLING_INTERVAL_SECONDS

    return POLLING_INTERVAL_SECONDS


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None
