"""The :class:`Worker`: wires pool, pollers, listener, executor and timers together.

Startup (retried with backoff while the database is unreachable): find the database's SQL
interface (pgflow-py's, or upstream pgflow's alone: upstream mode, see
:mod:`pgflow.worker.modes`), check the schema,
``track_worker_function``, ``ensure_flow_compiled`` for every flow (a mismatch stops the
worker with exit code 1, printing the differences), ``register_worker`` once per flow
(a fresh uuid4 per process and flow: the row's ``queue_name`` is the flow slug), and
enable pgmq's NOTIFY on each flow queue that has none yet.

Connections: one :class:`~pgflow.worker.pool.WorkerPool` of 1 to ``max_connections``
(``application_name = pgflow-worker:<id>``; idle ones beyond the first are closed after
``pool_max_idle_seconds``) for everything, plus one LISTEN connection
(``pgflow-worker-listen:<id>``, none with ``listen`` off), where ``<id>`` is the worker id
of the first flow: at most ``max_connections + 1`` in all. Connection outages are logged
once each (:mod:`pgflow.worker.outage`), not at every retry.

Metrics: every worker counts into its own :attr:`Worker.metrics`; with ``metrics_port`` set
they are served over HTTP from the start (a port that cannot be bound stops the worker
with exit code 2), and every ``log_summary_interval_seconds`` a summary line is logged.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from typing import LiteralString

import psycopg
from psycopg_pool import PoolTimeout

from pgflow._version import __version__
from pgflow.dsl import Flow
from pgflow.errors import WorkerStartupError
from pgflow.worker import queries, startup
from pgflow.worker.cancellation import CancellationCheck
from pgflow.worker.claimed_task import ClaimedTask
from pgflow.worker.config import RECONNECT_JITTER, Backoff, WorkerConfig
from pgflow.worker.db_errors import RETRYABLE_DB_ERRORS, error_text
from pgflow.worker.executor import Executor
from pgflow.worker.flow_input import RunInputCache
from pgflow.worker.heartbeat import Heartbeat
from pgflow.worker.lifecycle import Lifecycle, WorkerState, drain
from pgflow.worker.log import fields
from pgflow.worker.metrics import MetricsServer, WorkerMetrics, serve_metrics
from pgflow.worker.modes import PGFLOW_PY, UPSTREAM, SqlMode
from pgflow.worker.notify import Listener
from pgflow.worker.outage import is_connection_error
from pgflow.worker.poller import FlowPoller, Slots
from pgflow.worker.pool import WorkerPool
from pgflow.worker.reports import report_batchers
from pgflow.worker.step_signal import StepSignalReader
from pgflow.worker.summary import ActivitySummary
from pgflow.worker.suspension import SuspensionClock
from pgflow.worker.tick import Ticker
from pgflow.worker.watchdog import LoopWatchdog

logger = logging.getLogger("pgflow.worker")

#: Seconds a pool checkout may wait before counting as "database unreachable".
POOL_TIMEOUT_SECONDS = 10.0
#: Seconds allowed for each best-effort shutdown statement (deprecate, mark stopped).
SHUTDOWN_STATEMENT_SECONDS = 5.0


class _StoppedDuringStartup(Exception):
    pass


class Worker:
    """Serve one or more flows from one process.

    Args:
        flows: the flows to serve (:class:`pgflow.dsl.Flow`, or a Job); each reads its own
            queue.
        config: the worker settings.
    """

    def __init__(self, flows: Sequence[Flow], config: WorkerConfig) -> None:
        if not flows:
            raise ValueError("a worker needs at least one flow")
        slugs = [f.slug for f in flows]
        if len(set(slugs)) != len(slugs):
            raise ValueError(f"flows served twice: {slugs}")
        self.flows = list(flows)
        self.config = config
        #: flow slug -> this process's worker id for it (fresh per process).
        self.worker_ids = {f.slug: uuid.uuid4() for f in self.flows}
        self.instance_id = self.worker_ids[slugs[0]]
        self.lifecycle = Lifecycle()
        self._parents = {
            f.slug: {dep for step in f.steps for dep in step.dependencies} for f in self.flows
        }
        self._registered: set[str] = set()
        self._in_flight: set[asyncio.Task[None]] = set()
        #: runners whose handler returned (slot given back) and whose report is pending
        self._reporting: set[asyncio.Task[None]] = set()
        self._pollers: dict[str, FlowPoller] = {}
        self._poller_stops: dict[str, asyncio.Event] = {}
        self._poller_tasks: list[asyncio.Task[None]] = []
        self._watchdog: LoopWatchdog | None = None
        #: Handler time without the process's own suspensions (SIGSTOP, a paused VM).
        self._clock = SuspensionClock()
        #: The database's SQL interface, found at startup (pgflow-py's or upstream's).
        self.mode: SqlMode = PGFLOW_PY
        #: What this worker counts (served over HTTP when ``config.metrics_port`` is set).
        self.metrics = WorkerMetrics()
        #: The metrics endpoint while it is served.
        self.metrics_server: MetricsServer | None = None

    @property
    def application_name(self) -> str:
        """``application_name`` of the pool's connections."""
        return f"pgflow-worker:{self.instance_id}"

    @property
    def listen_application_name(self) -> str:
        """``application_name`` of the LISTEN connection."""
        return f"pgflow-worker-listen:{self.instance_id}"

    def run(self) -> int:
        """Run until stopped (signal or deprecation); return the process exit code."""
        return asyncio.run(self.run_async())

    async def run_async(self) -> int:
        """Run on the current event loop; return the exit code (0 = clean stop)."""
        loop = asyncio.get_running_loop()
        self.lifecycle.to(WorkerState.STARTING)
        self.lifecycle.install_signal_handlers(loop)
        self._pool = WorkerPool(
            self.config.dsn,
            application_name=self.application_name,
            max_size=self.config.max_connections,
            max_idle_seconds=self.config.pool_max_idle_seconds,
            reconnect_seconds=self.config.reconnect_max_seconds,
            timeout_seconds=POOL_TIMEOUT_SECONDS,
            prepare_threshold=5 if self.config.prepared_statements else None,
        )
        await self._pool.open(wait=False)
        background: list[asyncio.Task[None]] = []
        try:
            try:
                if self.config.metrics_port is not None:
                    self.metrics_server = serve_metrics(
                        self.metrics.registry, self.config.metrics_host, self.config.metrics_port
                    )
                await self._start()
            except _StoppedDuringStartup:
                pass
            except WorkerStartupError as exc:
                logger.error(str(exc), extra=fields(error=type(exc).__name__))
                self.lifecycle.to(WorkerState.STOPPING)
                await self._finish()
                return exc.exit_code
            if not self.lifecycle.stop_requested.is_set():
                background = self._start_background(loop)
                self.lifecycle.to(WorkerState.RUNNING)
                await self.lifecycle.stop_requested.wait()
            self.lifecycle.to(WorkerState.STOPPING)
            await self._stop(background)
            await self._finish()
            return 0
        finally:
            if self.metrics_server is not None:
                await asyncio.to_thread(self.metrics_server.close)
                self.metrics_server = None
            if self._watchdog is not None:
                self._watchdog.stop()
            self._clock.stop()
            for task in background:
                task.cancel()
            await self._pool.close(timeout=2)
            self.lifecycle.remove_signal_handlers(loop)

    def request_stop(self, reason: str = "requested") -> None:
        """Ask the worker to stop reading and drain (same as SIGTERM)."""
        self.lifecycle.request_stop(reason)

    # ------------------------------------------------------------ startup

    async def _start(self) -> None:
        """Prepare the database; retry while it is unreachable, give up on a stop request."""
        backoff = Backoff(self.config.reconnect_max_seconds, jitter=RECONNECT_JITTER)
        while True:
            attempt = asyncio.ensure_future(self._start_once())
            stop = asyncio.ensure_future(self.lifecycle.stop_requested.wait())
            await asyncio.wait({attempt, stop}, return_when="FIRST_COMPLETED")
            stop.cancel()
            if not attempt.done():  # a signal while waiting for the database
                attempt.cancel()
                await asyncio.gather(attempt, return_exceptions=True)
                raise _StoppedDuringStartup
            try:
                attempt.result()
                return
            except RETRYABLE_DB_ERRORS as exc:
                delay = backoff.next_delay()
                logger.log(  # the pool logs a connection outage once (outage.py)
                    logging.DEBUG if is_connection_error(exc) else logging.WARNING,
                    "database unreachable at startup; retrying",
                    extra=fields(error=error_text(exc), retry_in_s=delay),
                )
            try:
                await asyncio.wait_for(self.lifecycle.stop_requested.wait(), delay)
            except TimeoutError:
                continue
            raise _StoppedDuringStartup

    async def _start_once(self) -> None:
        async with self._pool.connection() as conn:
            self.mode = await startup.sql_mode(conn)
            if self.mode is UPSTREAM:
                await startup.check_upstream(conn)
            else:
                await startup.check_schema(conn, [flow.slug for flow in self.flows])
            await startup.track_worker_function(conn, self.config.function_name)
            for flow in self.flows:
                await startup.compile_flow(conn, flow, self.config.allow_data_loss)
                if self.mode.sync:
                    await startup.sync_options(conn, flow)
                    await startup.sync_schedule(conn, flow)
            for flow in self.flows:
                if flow.slug not in self._registered:
                    await startup.register_worker(
                        conn,
                        flow.slug,
                        self.worker_ids[flow.slug],
                        self.config.function_name,
                        self.mode.register_worker,
                    )
                    self._registered.add(flow.slug)
            if self.config.listen and self.mode.notify:
                for flow in self.flows:
                    await startup.enable_notify(conn, flow.slug, self.config.notify_throttle_ms)

    # ------------------------------------------------------------ running

    def _start_background(self, loop: asyncio.AbstractEventLoop) -> list[asyncio.Task[None]]:
        self._slots = Slots(self.config.max_concurrency)
        self._inputs = RunInputCache(
            self._pool, loop, reconnect_max_seconds=self.config.reconnect_max_seconds
        )
        completions, failures = report_batchers(self._pool, self.mode, self.config, self.metrics)
        self._executor = Executor(
            flow_inputs=self._inputs.source,
            shutdown=self.lifecycle.shutdown,
            on_reported=self._on_reported,
            on_handler_done=self._handler_done,
            completions=completions,
            failures=failures,
            clock=self._clock,
            metrics=self.metrics,
            step_signals=(  # upstream's SQL has neither waits nor tick
                StepSignalReader(self._pool, self.config.reconnect_max_seconds).get
                if self.mode.tick
                else None
            ),
        )
        tasks: list[asyncio.Task[None]] = []
        for flow in self.flows:
            stop = asyncio.Event()
            self._poller_stops[flow.slug] = stop
            poller = FlowPoller(
                flow=flow,
                worker_id=self.worker_ids[flow.slug],
                pool=self._pool,
                slots=self._slots,
                config=self.config,
                spawn=self._spawn,
                stop=stop,
                statement=self.mode.read_and_start,
                observe_poll=self.metrics.poll_observer(flow.slug),
            )
            self._pollers[flow.slug] = poller
            self._poller_tasks.append(asyncio.create_task(poller.run(), name=f"poll:{flow.slug}"))
        self.cancellations: CancellationCheck | None = None
        if self.mode.run_control:
            self.cancellations = CancellationCheck(pool=self._pool, running=self._executor.running)
        self.heartbeat = Heartbeat(
            pool=self._pool,
            workers=self.worker_ids,
            function_name=self.config.function_name,
            interval_seconds=self.config.heartbeat_interval_seconds,
            on_deprecated=self._on_deprecated,
            mode=self.mode,
            on_beat=self.cancellations.check if self.cancellations is not None else None,
        )
        tasks.append(asyncio.create_task(self.heartbeat.run(), name="heartbeat"))
        if self.config.loop_block_warning_seconds > 0:
            self._watchdog = LoopWatchdog(
                loop, self.config.loop_block_warning_seconds, self._executor.describe
            )
            self._watchdog.start()
        if self.config.tick_interval_seconds > 0 and self.mode.tick:
            self.ticker = Ticker(
                pool=self._pool,
                interval_seconds=self.config.tick_interval_seconds,
                on_requeued=self.metrics.stalled_requeued,
            )
            tasks.append(asyncio.create_task(self.ticker.run(), name="tick"))
        listens = self.config.listen and self.mode.notify
        if listens:
            self.listener = Listener(
                dsn=self.config.dsn,
                application_name=self.listen_application_name,
                wakers={slug: p.wake for slug, p in self._pollers.items()},
                poll_interval_seconds=self.config.poll_interval_seconds,
                reconnect_max_seconds=self.config.reconnect_max_seconds,
            )
            tasks.append(asyncio.create_task(self.listener.run(), name="listen"))
        if self.config.log_summary_interval_seconds > 0:
            summary = ActivitySummary(self.metrics, self.config.log_summary_interval_seconds)
            tasks.append(asyncio.create_task(summary.run(), name="summary"))
        self.metrics.describe_worker(
            {slug: str(w) for slug, w in self.worker_ids.items()},
            version=__version__,
            sql_mode=self.mode.name,
            max_concurrency=self.config.max_concurrency,
        )
        logger.info(
            "serving flows",
            extra=fields(
                worker_ids={slug: str(w) for slug, w in self.worker_ids.items()},
                max_concurrency=self.config.max_concurrency,
                max_connections=self.config.max_connections,
                connection_budget=self.config.max_connections + int(listens),
                pool_max_idle_s=self.config.pool_max_idle_seconds,
                poll_interval_s=self.config.poll_interval_seconds,
                sql_mode=self.mode.name,
            ),
        )
        return tasks

    def _spawn(self, task: ClaimedTask) -> None:
        runner = asyncio.create_task(
            self._executor.run(task), name=f"task:{task.step_slug}:{task.task_index}"
        )
        self._in_flight.add(runner)
        runner.add_done_callback(self._task_done)

    def _handler_done(self, task: ClaimedTask) -> None:
        runner = asyncio.current_task()
        if runner is not None and runner in self._in_flight:
            self._reporting.add(runner)
            self._slots.handler_done()

    def _task_done(self, runner: asyncio.Task[None]) -> None:
        self._in_flight.discard(runner)
        if runner in self._reporting:
            self._reporting.discard(runner)
            self._slots.report_done()
        else:
            self._slots.release(1)
        if not runner.cancelled() and runner.exception() is not None:
            logger.error("task runner crashed", exc_info=runner.exception())

    def _on_reported(self, task: ClaimedTask, completed: bool) -> None:
        if task.step_slug in self._parents[task.flow.slug]:
            poller = self._pollers.get(task.flow.slug)
            if poller is not None:
                poller.wake()

    def _on_deprecated(self, flow_slug: str) -> None:
        self._poller_stops[flow_slug].set()
        if all(stop.is_set() for stop in self._poller_stops.values()):
            self.lifecycle.request_stop("deprecated")

    # ------------------------------------------------------------ stopping

    async def _stop(self, background: list[asyncio.Task[None]]) -> None:
        self.lifecycle.shutdown.set()
        for stop in self._poller_stops.values():
            stop.set()
        if self._poller_tasks:
            _, still = await asyncio.wait(self._poller_tasks, timeout=SHUTDOWN_STATEMENT_SECONDS)
            for task in still:
                task.cancel()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        for flow_slug in sorted(self._registered):
            await self._best_effort(self.mode.deprecate_worker, flow_slug)
        grace = self.config.shutdown_grace_seconds
        await drain(set(self._in_flight), grace, self.lifecycle.abandon)

    async def _finish(self) -> None:
        for flow_slug in sorted(self._registered):
            await self._best_effort(queries.MARK_WORKER_STOPPED, flow_slug)
        self.lifecycle.to(WorkerState.STOPPED)

    async def _best_effort(self, query: LiteralString, flow_slug: str) -> None:
        params = {"worker_id": self.worker_ids[flow_slug]}

        async def send() -> None:
            async with self._pool.connection(timeout=SHUTDOWN_STATEMENT_SECONDS) as conn:
                await conn.execute(query, params)

        try:
            await asyncio.wait_for(send(), SHUTDOWN_STATEMENT_SECONDS)
        except (psycopg.Error, TimeoutError, PoolTimeout) as exc:
            logger.warning(
                "shutdown statement failed",
                extra=fields(flow_slug=flow_slug, error=error_text(exc)),
            )
