"""Run real ``pgflow-worker`` subprocesses against a test database, and wait on the DB.

Used by tests/integration/test_worker_*.py. Flows live in tests/integration/flows/ and
are passed as ``tests.integration.flows.<module>:<attr>`` (the worker runs from the
repository root, which ``--app-dir`` puts on ``sys.path``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

ROOT = Path(__file__).resolve().parents[2]
FLOWS = "tests.integration.flows"
T = TypeVar("T")


def wait_for(
    predicate: Callable[[], T], timeout: float = 20.0, interval: float = 0.05, what: str = ""
) -> T:
    """Poll ``predicate`` until it returns something truthy; fail the test at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what or predicate}")
        time.sleep(interval)


class WorkerProcess:
    """One ``python -m pgflow.cli.worker`` subprocess with JSON logs in a file."""

    def __init__(
        self,
        dsn: str,
        flows: list[str],
        args: list[str],
        log_path: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log_path = log_path
        self.listens = "--no-listen" not in args
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        full_env.pop("PGFLOW_DATABASE_URL", None)
        full_env.pop("DATABASE_URL", None)
        full_env.update(env or {})
        self._log_file = open(log_path, "w")  # noqa: SIM115  (closed in wait())
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pgflow.cli.worker",
                *flows,
                "--dsn",
                dsn,
                "--log-format",
                "json",
                "--app-dir",
                str(ROOT),
                *args,
            ],
            cwd=ROOT,
            env=full_env,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )

    def logs(self) -> list[dict[str, Any]]:
        """Every JSON log line written so far (non-JSON lines come back as {"raw": line})."""
        entries = []
        for line in self.log_path.read_text().splitlines():
            try:
                entries.append(json.loads(line))
            except ValueError:
                entries.append({"raw": line})
        return entries

    def has_log(self, msg: str) -> bool:
        """True when a log line with exactly this message was written."""
        return any(entry.get("msg") == msg for entry in self.logs())

    def wait_log(self, msg: str, timeout: float = 20.0) -> dict[str, Any]:
        """Wait for the first log line with message ``msg`` and return it."""

        def find() -> dict[str, Any] | None:
            if self.proc.poll() is not None and not self.has_log(msg):
                pytest.fail(f"worker exited ({self.proc.returncode}):\n{self.text()}")
            return next((e for e in self.logs() if e.get("msg") == msg), None)

        return wait_for(find, timeout, what=f"log {msg!r}")

    def wait_running(self, timeout: float = 20.0) -> None:
        """Wait until the worker reads its queues (and listens, unless --no-listen)."""
        self.wait_log("worker running", timeout)
        if self.listens:
            self.wait_log("listening for queue notifications", timeout)

    def text(self) -> str:
        """The raw log output."""
        return self.log_path.read_text()

    def signal(self, sig: int = signal.SIGTERM) -> None:
        """Send a signal to the worker."""
        self.proc.send_signal(sig)

    def wait(self, timeout: float = 30.0) -> int:
        """Wait for the process to exit and return its exit code."""
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.returncode is not None:
                self._log_file.close()

    def kill(self) -> None:
        """SIGKILL the process (no drain, no report, no mark_worker_stopped) and reap it."""
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        """Terminate (then kill) the process if it still runs."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log_file.close()


@pytest.fixture
def start_worker(pgflow_dsn: str, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Factory fixture: ``start_worker("basic:chain", "--max-concurrency", "4")``.

    Flow references are relative to tests/integration/flows unless they start with
    ``tests.`` (e.g. ``tests.e2e.flows.faults:crash``); ``dsn=`` targets another database,
    ``env=`` adds environment variables. Every process is stopped at the end of the test.
    """
    started: list[WorkerProcess] = []

    def start(
        *refs_and_args: str, dsn: str | None = None, env: dict[str, str] | None = None
    ) -> WorkerProcess:
        refs = [r for r in refs_and_args if ":" in r and not r.startswith("-")]
        flows = [r if r.startswith("tests.") else f"{FLOWS}.{r}" for r in refs]
        args = [r for r in refs_and_args if r not in refs]
        log_path = tmp_path / f"worker{len(started)}.log"
        worker = WorkerProcess(dsn or pgflow_dsn, flows, args, log_path, env)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def start_flow(conn: psycopg.Connection, flow_slug: str, flow_input: Any) -> str:
    """Start a run and return its run_id as text."""
    row = conn.execute(
        "select run_id from pgflow.start_flow(%s, %s)", (flow_slug, Jsonb(flow_input))
    ).fetchone()
    assert row is not None
    return str(row[0])


def run_row(conn: psycopg.Connection, run_id: str) -> dict[str, Any]:
    """The pgflow.runs row of a run, as a dict."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute("select * from pgflow.runs where run_id = %s", (run_id,)).fetchone()
    assert row is not None, f"run {run_id} not found"
    return row


def wait_run(conn: psycopg.Connection, run_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """Wait until the run is completed or failed; return its row."""
    return wait_for(
        lambda: (r := run_row(conn, run_id))["status"] != "started" and r,
        timeout,
        what=f"run {run_id} to finish",
    )


def step_states(conn: psycopg.Connection, run_id: str) -> dict[str, dict[str, Any]]:
    """step_slug -> pgflow.step_states row of a run."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            "select * from pgflow.step_states where run_id = %s", (run_id,)
        ).fetchall()
    return {r["step_slug"]: r for r in rows}


def step_tasks(conn: psycopg.Connection, run_id: str) -> list[dict[str, Any]]:
    """The pgflow.step_tasks rows of a run, by step and index."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            "select * from pgflow.step_tasks where run_id = %s order by step_slug, task_index",
            (run_id,),
        ).fetchall()


def worker_rows(conn: psycopg.Connection, queue_name: str) -> list[dict[str, Any]]:
    """pgflow.workers rows of a queue (= flow slug)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            "select * from pgflow.workers where queue_name = %s order by started_at",
            (queue_name,),
        ).fetchall()


def backend_counts(conn: psycopg.Connection, prefix: str) -> dict[str, int]:
    """application_name -> number of backends whose name starts with ``prefix``."""
    rows = conn.execute(
        "select application_name, count(*) from pg_stat_activity "
        "where application_name like %s group by 1",
        (prefix + "%",),
    ).fetchall()
    return {name: count for name, count in rows}
