"""A ``/metrics`` scrape of the database gauges that always answers within its deadline.

A frozen or partitioned database can hold a pooled connection's query forever (a
``statement_timeout`` cannot fire on a server that does not run; the kernel keeps the socket
open). The scrape therefore runs in a daemon thread; past ``settings.metrics_deadline``
seconds the answer is ``pgflow_up 0`` and the thread is left to finish (or not) on its own,
holding its connection until the database answers, so Prometheus sees a database it cannot
read instead of a scrape that timed out.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from prometheus_client import CollectorRegistry, generate_latest

from pgflow.dashboard.web import Dashboard
from pgflow.observe.gauges import DatabaseGauges


def scrape(dash: Dashboard) -> bytes:
    """The database gauges in Prometheus' text format, within ``metrics_deadline`` seconds.

    Args:
        dash: the dashboard (its pool and settings).

    Returns:
        The exposition text: the gauges, or ``pgflow_up 0`` alone when the database could
        not be read in time.
    """
    answer: queue.Queue[bytes] = queue.Queue(maxsize=1)

    def read() -> None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(DatabaseGauges(dash.scrape_connection))
        answer.put(generate_latest(registry))

    threading.Thread(target=read, name="pgflow-dashboard-scrape", daemon=True).start()
    try:
        return answer.get(timeout=dash.settings.metrics_deadline)
    except queue.Empty:
        return _database_down()


def _database_down() -> bytes:
    """``pgflow_up 0`` alone (DatabaseGauges' answer when it cannot connect)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseGauges(_past_deadline))
    return generate_latest(registry)


@contextmanager
def _past_deadline() -> Iterator[psycopg.Connection[Any]]:
    raise psycopg.OperationalError("the scrape's deadline passed: the database did not answer")
    yield  # pragma: no cover - a generator for contextmanager
