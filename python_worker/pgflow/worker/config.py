"""Worker settings: one frozen record with every knob, its unit and its default."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

#: The shortest tick interval accepted, in seconds (0, never, is accepted too): a tick
#: takes a lock and scans the due waits, so calling it hundreds of times a second only
#: loads the database.
MIN_TICK_INTERVAL_SECONDS: Final = 0.1

#: The shortest pool idle time accepted, in seconds: the pool looks for an idle connection
#: to close once per idle time, so a shorter one only keeps its timer busy.
MIN_POOL_MAX_IDLE_SECONDS: Final = 1.0

#: Jitter of the reconnection backoff (a fraction, 0.2 = +/-20 %), so workers that lost the
#: database together do not all come back at the same instant.
RECONNECT_JITTER: Final = 0.2


@dataclass(frozen=True, kw_only=True)
class WorkerConfig:
    """Resolved settings of one worker process.

    Attributes:
        dsn: libpq connection string or URL of the pgflow database.
        function_name: deployment name recorded in ``pgflow.worker_functions`` and in each
            ``pgflow.workers`` row.
        max_concurrency: most handlers running at once, across all flows served. A task
            whose handler returned gives its slot back while its report is sent; up to
            ``max_concurrency`` such tasks may wait on their report before reading slows.
            Default 32 (README "Performance": each claim and each report call has a fixed
            cost, so fewer tasks in flight cost more CPU per task; at 10, upstream's
            default, a 3-step chain ran at about 0.6x the per-commit ceiling).
        batch_size: most messages read per ``pgflow.read_and_start_tasks`` call (also capped
            by free slots).
        complete_batch_size: most reports sent in one ``pgflow.complete_tasks`` (or
            ``pgflow.fail_tasks``) call (group commit: reports that arrive while a call is on
            its way go together in the next one, without waiting for a timer). 1 = one
            report per call, one transaction per task as upstream workers do.
        max_connections: most connections of the pool (the LISTEN connection comes on top);
            the pool keeps 1 open and opens more only while statements wait for one.
        pool_max_idle_seconds: a pool connection beyond the first is closed once the pool
            has had an idle connection during this many seconds (one connection per such
            period: a pool grown to 4 is back to 1 after 3 periods without bursts).
            At least :data:`MIN_POOL_MAX_IDLE_SECONDS`.
        poll_interval_seconds: fallback poll period per flow when no NOTIFY arrives; also
            the bound on start latency while the LISTEN connection is down, and for
            delayed messages (retries, start_delay), which NOTIFY never announces.
        visibility_timeout_seconds: lease taken on a message read for a step this worker
            does not define (it is visible again for other workers after it); a claimed
            task's message is hidden for the step timeout + 2 s.
        heartbeat_interval_seconds: period of ``pgflow.worker_heartbeat``, and of the check
            for cancelled tasks while handlers run (``ctx.cancelled``).
        tick_interval_seconds: period of the worker's ``pgflow.tick()`` calls, the first
            one at start (0 = never; then a pg_cron job or another worker must call it;
            otherwise at least :data:`MIN_TICK_INTERVAL_SECONDS`, 0.1 s).
            A tick fires the waits whose deadline passed (signal timeouts, timers) and
            requeues stalled tasks; one tick runs at a time across all workers (a try
            lock in SQL), so a wait fires within about this long after its deadline.
        shutdown_grace_seconds: how long a stopping worker waits for in-flight tasks
            before abandoning them (neither completed nor failed;
            ``pgflow.tick()`` requeues them once they are stalled).
        notify_throttle_ms: throttle given to ``pgflow.enable_flow_notify`` when the worker
            enables NOTIFY on a queue that has none yet: at most one notification per
            queue per window (20 ms: a burst still wakes a worker within ~20 ms, while
            the per-queue throttle row pgmq updates stays cool).
        listen: use LISTEN/NOTIFY (false = polling only).
        allow_data_loss: let ``ensure_flow_compiled`` drop and recreate a flow whose
            stored shape differs (deletes all its runs).
        reconnect_max_seconds: cap of the exponential backoff after database errors.
        prepared_statements: let psycopg prepare the statements it sends often. Off by
            default: every statement is one function call (planning is negligible), and
            behind a transaction-mode pooler (PgBouncer, Supavisor) a statement prepared on
            one server connection is missing, or another one, on the next.
        loop_block_warning_seconds: warn when the event loop is blocked this long (an
            ``async def`` handler calling blocking code); 0 = no watchdog.
        metrics_port: TCP port of the Prometheus metrics endpoint (``/metrics``); None =
            not served (0: any free port, logged).
        metrics_host: address the metrics endpoint listens on (``127.0.0.1``: this
            machine only; ``0.0.0.0`` to let a Prometheus server elsewhere scrape it).
        log_summary_interval_seconds: period of the INFO summary line (tasks completed,
            failed, retried, requeued, in flight); 0 = never.
    """

    dsn: str
    function_name: str = "pgflow-worker"
    max_concurrency: int = 32
    batch_size: int = 32
    complete_batch_size: int = 100
    max_connections: int = 4
    pool_max_idle_seconds: float = 60.0
    poll_interval_seconds: float = 1.0
    visibility_timeout_seconds: int = 5
    heartbeat_interval_seconds: float = 5.0
    tick_interval_seconds: float = 5.0
    shutdown_grace_seconds: float = 30.0
    notify_throttle_ms: int = 20
    listen: bool = True
    allow_data_loss: bool = False
    reconnect_max_seconds: float = 15.0
    prepared_statements: bool = False
    loop_block_warning_seconds: float = 1.0
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    log_summary_interval_seconds: float = 60.0

    def __post_init__(self) -> None:
        """Reject settings that cannot work.

        Raises:
            ValueError: a count or period that must be positive is not, a delay is
                negative, ``tick_interval_seconds`` is between 0 and 0.1 (exclusive),
                ``pool_max_idle_seconds`` is below 1, or ``metrics_port`` is not a TCP port
                number.
        """
        positive = {
            "max_concurrency": self.max_concurrency,
            "batch_size": self.batch_size,
            "complete_batch_size": self.complete_batch_size,
            "max_connections": self.max_connections,
            "poll_interval_seconds": self.poll_interval_seconds,
            "visibility_timeout_seconds": self.visibility_timeout_seconds,
            "heartbeat_interval_seconds": self.heartbeat_interval_seconds,
            "reconnect_max_seconds": self.reconnect_max_seconds,
        }
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        for name, value in {
            "tick_interval_seconds": self.tick_interval_seconds,
            "shutdown_grace_seconds": self.shutdown_grace_seconds,
            "notify_throttle_ms": self.notify_throttle_ms,
            "loop_block_warning_seconds": self.loop_block_warning_seconds,
            "log_summary_interval_seconds": self.log_summary_interval_seconds,
        }.items():
            if value < 0:
                raise ValueError(f"{name} must not be negative, got {value}")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics_port must be between 0 and 65535, got {self.metrics_port}")
        if self.pool_max_idle_seconds < MIN_POOL_MAX_IDLE_SECONDS:
            raise ValueError(
                f"pool_max_idle_seconds must be at least {MIN_POOL_MAX_IDLE_SECONDS}, "
                f"got {self.pool_max_idle_seconds}"
            )
        if 0 < self.tick_interval_seconds < MIN_TICK_INTERVAL_SECONDS:
            raise ValueError(
                f"tick_interval_seconds must be 0 (never) or at least "
                f"{MIN_TICK_INTERVAL_SECONDS}, got {self.tick_interval_seconds}"
            )


class Backoff:
    """Exponential backoff delays: 0.5 s, 1 s, 2 s, ... capped; reset after a success.

    Args:
        cap_seconds: the longest delay, in seconds.
        first_seconds: the first delay, in seconds.
        jitter: a fraction: each delay is drawn from +/- this share around its step
            (0.2: 0.4 to 0.6 s for the first one), never above ``cap_seconds``; 0 (the
            default) gives the exact steps.
        rng: source of uniform numbers in [0, 1) for the jitter (``random.random``).
    """

    def __init__(
        self,
        cap_seconds: float,
        first_seconds: float = 0.5,
        *,
        jitter: float = 0.0,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self._cap = cap_seconds
        self._first = first_seconds
        self._next = first_seconds
        self._jitter = jitter
        self._rng = rng

    def next_delay(self) -> float:
        """Return the delay to wait now (seconds) and double the following one (up to the cap)."""
        delay = min(self._next, self._cap)
        self._next = min(self._next * 2, self._cap)
        if self._jitter:
            delay = min(delay * (1 - self._jitter + 2 * self._jitter * self._rng()), self._cap)
        return delay

    def reset(self) -> None:
        """Start again from the first delay (call after a success)."""
        self._next = self._first
