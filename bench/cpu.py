"""CPU time of the worker processes and of their database backends, for the diagnosis.

Read from ``/proc/<pid>/stat`` (Linux, server on this host); where that is not possible
the numbers are simply absent. A :class:`CpuWindow` samples at two points of a drain and
gives CPU milliseconds per task spent in the workers and in their PostgreSQL backends.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Any

import psycopg

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
BACKENDS = "select pid from pg_stat_activity where application_name like 'pgflow-worker%'"


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _total(pids: Iterable[int]) -> dict[int, float]:
    found = {}
    for pid in pids:
        value = cpu_seconds(pid)
        if value is not None:
            found[pid] = value
    return found


class CpuWindow:
    """CPU used by worker processes and their backends between :meth:`open` and :meth:`close`.

    Args:
        conn: a connection to the bench database (to find the backends' pids).
        worker_pids: the worker processes.
        backends: query returning the pids of the workers' backends.
    """

    def __init__(
        self, conn: psycopg.Connection[Any], worker_pids: list[int], backends: str = BACKENDS
    ) -> None:
        self._conn = conn
        self._backends_query = backends
        self._workers = worker_pids
        self._start: tuple[dict[int, float], dict[int, float], int, float] | None = None
        self.result: dict[str, Any] = {}

    def _sample(self) -> tuple[dict[int, float], dict[int, float]]:
        backends = [r[0] for r in self._conn.execute(self._backends_query)]  # type: ignore[call-overload]
        return _total(self._workers), _total(backends)

    def open(self, tasks_done: int) -> None:
        """Start the window now, ``tasks_done`` tasks being completed."""
        workers, backends = self._sample()
        self._start = (workers, backends, tasks_done, time.monotonic())

    def close(self, tasks_done: int) -> None:
        """End the window; fill :attr:`result` with CPU ms per task (if readable)."""
        if self._start is None:
            return
        workers, backends = self._sample()
        w0, b0, done0, began = self._start
        seconds = time.monotonic() - began
        tasks = tasks_done - done0
        if tasks <= 0 or not workers:
            return
        worker_s = sum(v - w0.get(pid, 0.0) for pid, v in workers.items())
        backend_s = sum(v - b0.get(pid, 0.0) for pid, v in backends.items()) if backends else None
        self.result = {
            "window_tasks": tasks,
            "window_rate": round(tasks / seconds, 1),
            "window_cores_used": round((worker_s + (backend_s or 0.0)) / seconds, 2),
            "worker_cpu_ms_per_task": round(worker_s * 1000 / tasks, 3),
            "backend_cpu_ms_per_task": (
                None if backend_s is None else round(backend_s * 1000 / tasks, 3)
            ),
        }
