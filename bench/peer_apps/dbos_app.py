"""DBOS app: W1 = a workflow with one no-op step; W2 = a workflow with 3 no-op steps in order.

``python -m bench.peer_apps.dbos_app worker`` launches DBOS and serves queue ``bench``
(``worker_concurrency`` = the pgflow worker's ``--max-concurrency``) until SIGTERM;
``... migrate`` creates the system database and exits.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

from dbos import DBOS, DBOSConfig

APP_NAME = "pgflow_bench"
QUEUE = "bench"
#: Seconds between the queue's dequeue polls (DBOS default: 1 s, which caps a worker at
#: worker_concurrency workflows per second; lowered to give DBOS its best throughput).
POLLING_INTERVAL_SECONDS = float(os.environ.get("BENCH_DBOS_POLLING_INTERVAL", "0.05"))


def config() -> DBOSConfig:
    """DBOS settings for the benchmark's system database."""
    return {
        "name": APP_NAME,
        "system_database_url": os.environ["BENCH_PEER_URL"],
        "log_level": "WARNING",
    }


@DBOS.step()
def noop_step() -> None:
    return None


@DBOS.workflow(name="w1")
def w1() -> None:
    noop_step()


@DBOS.workflow(name="w2")
def w2() -> None:
    noop_step()
    noop_step()
    noop_step()


def main(argv: list[str]) -> int:
    """``worker``: serve the queue until SIGTERM; ``migrate``: create the schema and exit."""
    DBOS(config=config())
    DBOS.launch()
    if argv[1:] == ["migrate"]:
        DBOS.destroy()
        return 0
    DBOS.register_queue(
        QUEUE,
        worker_concurrency=int(os.environ.get("BENCH_PEER_CONCURRENCY", "10")),
        polling_interval_sec=POLLING_INTERVAL_SECONDS,
    )
    stop = threading.Event()

    def on_signal(*_: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    stop.wait()
    DBOS.destroy(workflow_completion_timeout_sec=5)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
