"""Worker subprocesses: real ``pgflow-worker`` processes, started and stopped by pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.cluster import BENCH_HOME, ROOT
from pgflow.worker.config import WorkerConfig

#: Worker logs of the last run (not committed).
LOG_DIR = BENCH_HOME / "logs"
STOP_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class WorkerSettings:
    """How the benchmark runs ``pgflow-worker`` (the same in every workload).

    Attributes:
        processes: worker processes (= client processes of the ceiling).
        max_concurrency: ``--max-concurrency`` of each process.
        batch_size: ``--batch-size`` of each process.
        max_connections: ``--max-connections`` of each process.
        log_level: ``--log-level`` in W1-W4 (DEBUG writes two lines per task; INFO a
            summary line a minute).
        complete_batch_size: ``--complete-batch-size`` of each process (group commit;
            1: one report per call).
    """

    processes: int = 2
    max_concurrency: int = WorkerConfig.max_concurrency
    batch_size: int = WorkerConfig.batch_size
    max_connections: int = WorkerConfig.max_connections
    log_level: str = "WARNING"
    complete_batch_size: int = WorkerConfig.complete_batch_size


#: The worker's own defaults (the ``.defaults`` rows), read from ``WorkerConfig``.
DEFAULTS = WorkerSettings()
DEFAULTS_ARGS = f"--max-concurrency {DEFAULTS.max_concurrency} --batch-size {DEFAULTS.batch_size}"


def pgflow_worker_argv(dsn: str, flow_refs: list[str], args: list[str]) -> list[str]:
    """The argv of ``pgflow-worker`` (as ``python -m pgflow.cli.worker``) with JSON logs."""
    return [
        sys.executable,
        "-m",
        "pgflow.cli.worker",
        *flow_refs,
        "--dsn",
        dsn,
        "--app-dir",
        str(ROOT),
        "--log-format",
        "json",
        *args,
    ]


class Workers:
    """A group of identical worker processes (``pgflow-worker`` or a peer's), logs in files.

    Args:
        argv: the command of each process.
        count: number of processes.
        name: prefix of the log files (in .pgflow-bench/logs/).
        env: extra environment variables.
    """

    def __init__(
        self, argv: list[str], count: int, name: str, env: dict[str, str] | None = None
    ) -> None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        self._argv = argv
        self._count = count
        self._name = name
        self._env = env or {}
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []

    def start(self) -> None:
        """Spawn the processes (returns at once)."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self._env}
        for var in ("PGFLOW_DATABASE_URL", "DATABASE_URL"):
            env.pop(var, None)
        for n in range(self._count):
            log = LOG_DIR / f"{self._name}-{n + 1}.log"
            with log.open("w") as handle:
                proc = subprocess.Popen(
                    self._argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT
                )
            self.procs.append(proc)
            self.logs.append(log)

    def check_alive(self) -> None:
        """Raise with the log tail of a process that exited."""
        for proc, log in zip(self.procs, self.logs, strict=True):
            if proc.poll() is not None:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
                raise RuntimeError(f"worker pid {proc.pid} exited ({proc.returncode}):\n{tail}")

    def wait_for_log(self, message: str, timeout_seconds: float = 30.0) -> None:
        """Wait until every process has logged ``message`` (needs INFO logs)."""
        deadline = time.monotonic() + timeout_seconds
        pending = set(range(len(self.procs)))
        while pending:
            self.check_alive()
            for n in list(pending):
                if _has_message(self.logs[n], message):
                    pending.discard(n)
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"workers did not log {message!r} in {timeout_seconds} s")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM every process, wait for it, kill it after a timeout."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def __enter__(self) -> Workers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _has_message(log: Path, message: str) -> bool:
    for line in log.read_text(errors="replace").splitlines():
        try:
            if json.loads(line).get("msg") == message:
                return True
        except ValueError:
            continue
    return False


def worker_args(settings: WorkerSettings, *, log_level: str | None = None) -> list[str]:
    """Command-line options of ``pgflow-worker`` for these settings."""
    return [
        "--max-concurrency",
        str(settings.max_concurrency),
        "--batch-size",
        str(settings.batch_size),
        "--max-connections",
        str(settings.max_connections),
        "--complete-batch-size",
        str(settings.complete_batch_size),
        "--log-level",
        log_level or settings.log_level,
    ]
