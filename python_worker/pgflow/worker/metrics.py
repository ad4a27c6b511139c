"""Prometheus metrics of one worker process: the tasks it ran, and how fast it talks to SQL.

Every :class:`~pgflow.worker.runner.Worker` counts into a :class:`WorkerMetrics` of its own
(its own :class:`prometheus_client.CollectorRegistry`, never the global one, so several
workers in one process do not collide). ``pgflow-worker --metrics-port N`` serves it over
HTTP (:func:`serve_metrics`); without the option the counting still happens (a few
microseconds per task, no database round trip) and the periodic summary line reads it.

Metric names (prefix ``pgflow_worker_``, base unit seconds, labels ``flow`` and ``step``
where they apply) and their buckets are listed in README.md, "Worker metrics". What a task
attempt counts as comes from what SQL answered to its report
(:class:`~pgflow.worker.reports.ReportResult`), never from a second query:

- *completed*: ``complete_tasks`` stored its output (outcome ``completed``);
- *failed*: SQL recorded a failed attempt (outcome ``retried`` or ``failed``, from
  ``fail_tasks``, or an output ``complete_tasks`` rejected); *retried* is the part of it
  that SQL queued again (outcome ``retried``);
- *ignored*: SQL applied nothing (outcome ``ignored``: the task was cancelled, its run had
  failed, or a newer attempt holds it).

A task abandoned at shutdown (or whose failure report the server refused) is started
and in none of the three.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_wsgi_server

from pgflow.errors import WorkerStartupError
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")

#: Buckets of the task duration histogram, in seconds: 5 ms to one hour (handlers range
#: from a few milliseconds to long exports; the step timeout bounds them).
TASK_DURATION_BUCKETS: Final[tuple[float, ...]] = (
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
)  # fmt: skip
#: Buckets of the poll and report latency histograms, in seconds: 1 ms (a call on an idle
#: local database) to 10 s (a pool checkout's timeout).
LATENCY_BUCKETS: Final[tuple[float, ...]] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
#: Buckets of the report batch size histogram (task reports per call): 1 (an idle worker,
#: or ``--complete-batch-size 1``) to 1000.
BATCH_SIZE_BUCKETS: Final[tuple[float, ...]] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)

#: Values of the ``outcome`` label of the task duration histogram.
COMPLETED: Final = "completed"
FAILED: Final = "failed"


@dataclass(slots=True)
class Totals:
    """Plain running totals of this process, for the summary log line.

    Attributes:
        started: task attempts started.
        completed: attempts whose output SQL stored.
        failed: attempts SQL recorded as failed (``retried`` included).
        retried: failed attempts SQL queued again.
        ignored: reports SQL did not apply.
        requeued: stalled tasks requeued by this process's ``pgflow.tick()`` calls.
        in_flight: tasks started and not yet reported (nor abandoned).
    """

    started: int = 0
    completed: int = 0
    failed: int = 0
    retried: int = 0
    ignored: int = 0
    requeued: int = 0
    in_flight: int = 0


class StepMetrics:
    """The labelled children of one (flow, step): looked up once, counted into per task."""

    __slots__ = (
        "completed",
        "completed_seconds",
        "failed",
        "failed_seconds",
        "ignored",
        "in_flight",
        "retried",
        "started",
    )

    def __init__(self, metrics: WorkerMetrics, flow_slug: str, step_slug: str) -> None:
        self.started = metrics.tasks_started.labels(flow_slug, step_slug)
        self.completed = metrics.tasks_completed.labels(flow_slug, step_slug)
        self.failed = metrics.tasks_failed.labels(flow_slug, step_slug)
        self.retried = metrics.tasks_retried.labels(flow_slug, step_slug)
        self.ignored = metrics.tasks_ignored.labels(flow_slug, step_slug)
        self.completed_seconds = metrics.task_duration.labels(flow_slug, step_slug, COMPLETED)
        self.failed_seconds = metrics.task_duration.labels(flow_slug, step_slug, FAILED)
        self.in_flight = metrics.tasks_in_flight.labels(flow_slug)


class WorkerMetrics:
    """The metrics of one worker, in a registry of their own.

    Args:
        registry: where the metrics are registered (None: a new
            :class:`~prometheus_client.CollectorRegistry`).

    Attributes:
        registry: the registry :func:`serve_metrics` exposes.
        totals: plain running totals (:class:`Totals`), read by the summary line.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.totals = Totals()
        self._steps: dict[tuple[str, str], StepMetrics] = {}
        step = ("flow", "step")
        self.tasks_started = self._counter(
            "tasks_started", "Task attempts this worker claimed and started.", step
        )
        self.tasks_completed = self._counter(
            "tasks_completed", "Task attempts whose output SQL stored.", step
        )
        self.tasks_failed = self._counter(
            "tasks_failed",
            "Task attempts SQL recorded as failed (those it retries included).",
            step,
        )
        self.tasks_retried = self._counter(
            "tasks_retried", "Failed task attempts SQL queued again (a new attempt follows).", step
        )
        self.tasks_ignored = self._counter(
            "tasks_ignored",
            "Task reports SQL did not apply (task cancelled, run failed, newer attempt).",
            step,
        )
        self.task_duration = Histogram(
            "pgflow_worker_task_duration_seconds",
            "Handler time of a task attempt, by outcome (completed or failed).",
            ("flow", "step", "outcome"),
            buckets=TASK_DURATION_BUCKETS,
            registry=self.registry,
        )
        self.tasks_in_flight = Gauge(
            "pgflow_worker_tasks_in_flight",
            "Tasks started by this worker and not yet reported.",
            ("flow",),
            registry=self.registry,
        )
        self.poll_duration = Histogram(
            "pgflow_worker_poll_duration_seconds",
            "One read_and_start_tasks call (read and claim), pool checkout included.",
            ("flow",),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.report_duration = Histogram(
            "pgflow_worker_report_duration_seconds",
            "One report call (complete_tasks or fail_tasks) to its commit, pool checkout included.",
            ("function",),
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.report_batch_size = Histogram(
            "pgflow_worker_report_batch_size",
            "Task reports committed by one report call (group commit).",
            ("function",),
            buckets=BATCH_SIZE_BUCKETS,
            registry=self.registry,
        )
        self.stalled_tasks_requeued = Counter(
            "pgflow_worker_stalled_tasks_requeued",
            "Stalled tasks (of any flow) requeued by this worker's pgflow.tick() calls.",
            registry=self.registry,
        )
        self.info = Gauge(
            "pgflow_worker_info",
            "1 per flow served: the worker row's id, the package version and the SQL mode.",
            ("flow", "worker_id", "version", "sql_mode"),
            registry=self.registry,
        )
        self.max_concurrency = Gauge(
            "pgflow_worker_max_concurrency",
            "Most handlers this worker runs at once (--max-concurrency).",
            registry=self.registry,
        )

    def _counter(self, name: str, documentation: str, labels: tuple[str, ...]) -> Counter:
        # prometheus_client appends the _total suffix of a counter's samples.
        return Counter(f"pgflow_worker_{name}", documentation, labels, registry=self.registry)

    def step(self, flow_slug: str, step_slug: str) -> StepMetrics:
        """The metrics of one step (made at its first task, then looked up)."""
        key = (flow_slug, step_slug)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = StepMetrics(self, flow_slug, step_slug)
        return found

    def task_started(self, flow_slug: str, step_slug: str) -> StepMetrics:
        """Count a task attempt started; return its step's metrics for what follows."""
        step = self.step(flow_slug, step_slug)
        step.started.inc()
        step.in_flight.inc()
        totals = self.totals
        totals.started += 1
        totals.in_flight += 1
        return step

    def task_completed(self, step: StepMetrics, seconds: float) -> None:
        """Count an attempt whose output SQL stored; ``seconds``: its handler time."""
        step.completed.inc()
        step.completed_seconds.observe(seconds)
        self.totals.completed += 1

    def task_failed(self, step: StepMetrics, seconds: float, *, retried: bool) -> None:
        """Count an attempt SQL recorded as failed (``retried``: SQL queued it again)."""
        step.failed.inc()
        step.failed_seconds.observe(seconds)
        totals = self.totals
        totals.failed += 1
        if retried:
            step.retried.inc()
            totals.retried += 1

    def task_ignored(self, step: StepMetrics) -> None:
        """Count a report SQL did not apply."""
        step.ignored.inc()
        self.totals.ignored += 1

    def task_ended(self, step: StepMetrics) -> None:
        """The task left the worker (reported, or abandoned): no longer in flight."""
        step.in_flight.dec()
        self.totals.in_flight -= 1

    def poll_observer(self, flow_slug: str) -> Callable[[float], None]:
        """Return the function a flow's poller calls with each call's seconds."""
        return self.poll_duration.labels(flow_slug).observe

    def report_observer(self, function: str) -> Callable[[float, int], None]:
        """Return the function a report batcher calls with ``(seconds, reports)`` per call.

        Args:
            function: the SQL function reported to (``complete_tasks``, ``fail_tasks``, or
                ``complete_task`` / ``fail_task`` in upstream mode).
        """
        seconds = self.report_duration.labels(function).observe
        size = self.report_batch_size.labels(function).observe

        def observe(elapsed: float, reports: int) -> None:
            seconds(elapsed)
            size(reports)

        return observe

    def stalled_requeued(self, count: int) -> None:
        """Count stalled tasks a ``pgflow.tick()`` call of this worker requeued."""
        self.stalled_tasks_requeued.inc(count)
        self.totals.requeued += count

    def describe_worker(
        self,
        worker_ids: Mapping[str, str],
        *,
        version: str,
        sql_mode: str,
        max_concurrency: int,
    ) -> None:
        """Set the info series (one per flow served) and ``max_concurrency``.

        Args:
            worker_ids: flow slug -> this process's ``pgflow.workers`` row id for it.
            version: the pgflow package version.
            sql_mode: ``pgflow-py`` or ``upstream``.
            max_concurrency: the worker's ``max_concurrency``.
        """
        self.info.clear()
        for flow_slug, worker_id in worker_ids.items():
            self.info.labels(flow_slug, worker_id, version, sql_mode).set(1)
        self.max_concurrency.set(max_concurrency)


class MetricsServer:
    """The HTTP server of :func:`serve_metrics` (a daemon thread); stop it with :meth:`close`.

    Attributes:
        host: the address it listens on.
        port: the port it listens on (the one the system chose when 0 was asked).
    """

    def __init__(self, server: WSGIServer, thread: threading.Thread, host: str) -> None:
        self._server = server
        self._thread = thread
        self.host = host
        self.port: int = server.server_port

    def close(self) -> None:
        """Stop serving and free the port (blocks up to about half a second)."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_metrics(registry: CollectorRegistry, host: str, port: int) -> MetricsServer:
    """Serve ``registry`` in the Prometheus text format on ``http://host:port/metrics``.

    Every path answers with the metrics (prometheus_client's WSGI app); the server runs
    in a daemon thread of its own. Logs ``serving metrics`` (INFO) with the address.

    Args:
        registry: the worker's registry (:attr:`WorkerMetrics.registry`).
        host: the address to listen on (``127.0.0.1``: this machine only; ``0.0.0.0``:
            every IPv4 interface; ``::``: every interface).
        port: the TCP port (0: any free port, see :attr:`MetricsServer.port`).

    Returns:
        The running server.

    Raises:
        WorkerStartupError: the address cannot be bound (port in use, unknown host, no
            permission): the worker stops with exit code 2.
    """
    try:
        server, thread = start_wsgi_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise WorkerStartupError(f"cannot serve metrics on {host}:{port}: {exc}") from exc
    served = MetricsServer(server, thread, host)
    logger.info("serving metrics", extra=fields(metrics_host=host, metrics_port=served.port))
    return served
