"""Database-wide Prometheus gauges: queues, runs, stuck runs and workers, read at each scrape.

:class:`DatabaseGauges` is a ``prometheus_client`` custom collector: register it in a
registry and every scrape runs a few cheap queries in one short transaction (with a
statement timeout) on a connection it asks for. The dashboard serves it at ``/metrics``.
Metrics (base units, Prometheus naming):

- ``pgflow_up``: 1 when the queries ran, 0 when the database could not be read (then no
  other metric is reported for that scrape; the error is logged).
- ``pgflow_queue_messages{flow}``: messages in the flow's pgmq queue (``pgmq.q_<flow>``):
  queued tasks and the messages of tasks being run, retried or delayed.
- ``pgflow_queue_visible_messages{flow}``: of which visible now: waiting for a worker.
- ``pgflow_queue_oldest_message_age_seconds{flow}``: how long the longest-waiting visible
  message has been visible (since its visibility time, ``vt``), 0 when none is: the
  backlog's age. Invisible messages (tasks running, retries in backoff, start delays) do
  not count, so a long task does not raise it (a paused run's queued tasks have no message).
- ``pgflow_runs{flow,status}``: runs per flow and status (every status, 0 included); one
  count over ``pgflow.runs`` (about 0.1 s per million stored runs: prune old runs).
- ``pgflow_stuck_runs{reason}``: runs held by each reason of :mod:`pgflow.observe.stuck`.
- ``pgflow_workers{state}``: workers per state (:mod:`pgflow.observe.workers`; stopped
  workers and long-dead ones without tasks are not counted).

The role it connects as needs SELECT on the pgflow tables and EXECUTE on
``pgflow.get_queue_stats()`` (``pgflow_operator`` has both, ``workers`` included); without
the latter the queue gauges are left out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final, LiteralString

import psycopg
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from pgflow.observe.flow_stats import RUN_STATUSES
from pgflow.observe.stuck import (
    QUEUED_THRESHOLD_S_DEFAULT,
    STUCK_REASONS,
    WAIT_THRESHOLD_S_DEFAULT,
    stuck_counts,
)
from pgflow.observe.workers import DEAD_AFTER_S_DEFAULT, WORKER_STATES, list_workers

logger = logging.getLogger("pgflow.observe")

#: Per flow queue: (flow, messages, visible, seconds the oldest visible one waited), through
#: pgflow.get_queue_stats() (SECURITY DEFINER: no pgmq privilege needed); a role that may not
#: execute it (pgflow_client) gets no queue gauges instead of an error.
_QUEUES: Final[LiteralString] = """
select q.flow_slug, q.messages, q.visible_messages, q.oldest_message_age_seconds
from pgflow.get_queue_stats() as q
"""
_MAY_READ_QUEUES: Final[LiteralString] = (
    "select has_function_privilege('pgflow.get_queue_stats()', 'execute')"
)

_RUNS: Final[LiteralString] = (
    "select r.flow_slug, r.status, count(*)::bigint from pgflow.runs as r"
    " group by r.flow_slug, r.status"
)

_FLOWS: Final[LiteralString] = "select f.flow_slug from pgflow.flows as f order by f.flow_slug"


@dataclass(frozen=True)
class _Reading:
    queues: list[tuple[str, int, int, float]]
    flows: list[str]
    runs: dict[tuple[str, str], int]
    stuck: dict[str, int]
    workers: dict[str, int]


class DatabaseGauges:
    """A Prometheus collector of the database-wide gauges listed in the module docstring.

    Args:
        connect: returns a context manager yielding a psycopg connection, e.g.
            ``lambda: psycopg.connect(dsn, connect_timeout=5)`` or a pool's
            ``pool.connection``; called once per scrape.
        dead_after_s: seconds without a heartbeat after which a worker is dead.
        wait_threshold_s: ``waiting_too_long`` threshold of ``pgflow_stuck_runs``.
        queued_threshold_s: ``queued_too_long`` threshold of ``pgflow_stuck_runs``.
        statement_timeout_s: the longest a scrape's statements may take (seconds); past
            it the scrape reports ``pgflow_up 0``.
    """

    def __init__(
        self,
        connect: Callable[[], AbstractContextManager[psycopg.Connection[Any]]],
        *,
        dead_after_s: float = DEAD_AFTER_S_DEFAULT,
        wait_threshold_s: float = WAIT_THRESHOLD_S_DEFAULT,
        queued_threshold_s: float = QUEUED_THRESHOLD_S_DEFAULT,
        statement_timeout_s: float = 5.0,
    ) -> None:
        if statement_timeout_s <= 0:
            raise ValueError(f"statement_timeout_s must be positive, got {statement_timeout_s}")
        self._connect = connect
        self._dead_after_s = dead_after_s
        self._wait_threshold_s = wait_threshold_s
        self._queued_threshold_s = queued_threshold_s
        self._timeout_ms = max(1, round(statement_timeout_s * 1000))

    def describe(self) -> list[Metric]:
        """The metric families without samples (so registering does not query)."""
        return list(_families(None))

    def collect(self) -> Iterator[Metric]:
        """Read the database and yield the gauges; ``pgflow_up 0`` alone if that failed."""
        try:
            reading = self._read()
        except psycopg.Error as exc:
            logger.warning("pgflow gauges: could not read the database: %s", exc)
            up = GaugeMetricFamily("pgflow_up", _UP_HELP)
            up.add_metric([], 0)
            yield up
            return
        yield from _families(reading)

    def _read(self) -> _Reading:
        with self._connect() as conn, conn.transaction():
            conn.execute(
                "select set_config('statement_timeout', %s, true)", (f"{self._timeout_ms}ms",)
            )
            queues = _queues(conn)
            flows = [row[0] for row in conn.execute(_FLOWS).fetchall()]
            runs = {(flow, status): n for flow, status, n in conn.execute(_RUNS).fetchall()}
            stuck = stuck_counts(
                conn,
                wait_threshold_s=self._wait_threshold_s,
                queued_threshold_s=self._queued_threshold_s,
                dead_after_s=self._dead_after_s,
            )
            workers: dict[str, int] = dict.fromkeys(WORKER_STATES, 0)
            for worker in list_workers(conn, dead_after_s=self._dead_after_s):
                workers[worker.state] += 1
            del workers["stopped"]
        return _Reading(queues, flows, runs, stuck, workers)


_UP_HELP: Final = "1 if the pgflow database could be read at this scrape, else 0."


def _queues(conn: psycopg.Connection[Any]) -> list[tuple[str, int, int, float]]:
    allowed = conn.execute(_MAY_READ_QUEUES).fetchone()
    if allowed is None or not allowed[0]:
        return []
    rows = conn.execute(_QUEUES).fetchall()
    return [(flow, int(total), int(visible), float(age)) for flow, total, visible, age in rows]


def _families(reading: _Reading | None) -> Iterator[Metric]:
    """The gauge families, filled from ``reading`` (None: empty, for ``describe``)."""
    up = GaugeMetricFamily("pgflow_up", _UP_HELP)
    messages = GaugeMetricFamily(
        "pgflow_queue_messages", "Messages in the flow's pgmq queue.", labels=["flow"]
    )
    visible = GaugeMetricFamily(
        "pgflow_queue_visible_messages",
        "Messages of the flow's queue visible now (waiting for a worker).",
        labels=["flow"],
    )
    oldest = GaugeMetricFamily(
        "pgflow_queue_oldest_message_age_seconds",
        "Seconds the longest-waiting visible message of the flow's queue has been visible "
        "(0 when none is).",
        labels=["flow"],
    )
    runs = GaugeMetricFamily("pgflow_runs", "Runs per flow and status.", labels=["flow", "status"])
    stuck = GaugeMetricFamily(
        "pgflow_stuck_runs",
        "Runs that do not move on by themselves, per reason.",
        labels=["reason"],
    )
    workers = GaugeMetricFamily(
        "pgflow_workers", "Workers per state (live, dead, deprecated).", labels=["state"]
    )
    if reading is not None:
        up.add_metric([], 1)
        for flow, total, shown, age in reading.queues:
            messages.add_metric([flow], total)
            visible.add_metric([flow], shown)
            oldest.add_metric([flow], age)
        for flow in reading.flows:
            for status in RUN_STATUSES:
                runs.add_metric([flow, status], reading.runs.get((flow, status), 0))
        for reason in STUCK_REASONS:
            stuck.add_metric([reason], reading.stuck.get(reason, 0))
        for state, count in reading.workers.items():
            workers.add_metric([state], count)
    yield from (up, messages, visible, oldest, runs, stuck, workers)
