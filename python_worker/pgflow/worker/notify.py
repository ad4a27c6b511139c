"""LISTEN for pgmq's insert notifications on one dedicated connection, and reconnect.

pgmq's notify-insert trigger (enabled per queue with ``pgmq.enable_notify_insert``) sends
``pg_notify('pgmq.q_<queue>.INSERT')``, throttled per queue. The listener maps each channel
back to its flow and wakes that flow's poller; it never reads messages itself.

If the connection dies (server restart, ``pg_terminate_backend``, network) or cannot be
opened (``too many clients already``), the listener logs once that the worker has fallen
back to polling every ``poll_interval_seconds`` (the pollers go on meanwhile), reconnects
with exponential backoff (0.5 s doubling up to ``reconnect_max_seconds``, +/-20 % jitter;
the failed attempts in between log at DEBUG), and on success logs how many attempts failed
and wakes every poller (notifications sent meanwhile are lost). The backoff starts over
only after a connection that stayed up :data:`STABLE_AFTER_SECONDS`: one dropped right
after it opened (the server full, a session killer) goes on backing off instead of
reconnecting twice a second. A connection that stays silent is probed with ``SELECT 1``
so a dead peer is noticed even without a TCP reset (TCP keepalives are on too).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Mapping

import psycopg

from pgflow.worker import queries
from pgflow.worker.config import RECONNECT_JITTER, Backoff
from pgflow.worker.log import fields
from pgflow.worker.outage import Outage

logger = logging.getLogger("pgflow.worker")

#: Seconds of silence after which the LISTEN connection is probed with ``SELECT 1``.
PROBE_AFTER_SECONDS = 15.0
#: Seconds a LISTEN connection must stay up before its loss restarts the backoff at 0.5 s
#: (and counts as a new outage, logged again).
STABLE_AFTER_SECONDS = 30.0
#: The WARNING when a LISTEN connection that was up is lost.
LOST = "LISTEN connection lost; falling back to polling until it is back"


class Listener:
    """One LISTEN connection for all the queues of a worker.

    Args:
        dsn: the database to connect to.
        application_name: shown in ``pg_stat_activity`` (``pgflow-worker-listen:<id>``).
        wakers: queue name -> callback waking that queue's poller.
        poll_interval_seconds: the fallback poll period, for the log line on loss.
        reconnect_max_seconds: cap of the reconnection backoff.
    """

    def __init__(
        self,
        *,
        dsn: str,
        application_name: str,
        wakers: Mapping[str, Callable[[], None]],
        poll_interval_seconds: float,
        reconnect_max_seconds: float,
    ) -> None:
        self._dsn = dsn
        self._application_name = application_name
        self._by_channel = {queries.notify_channel(q): wake for q, wake in wakers.items()}
        self._listen = [queries.listen_statement(q) for q in wakers]
        self._poll_interval_seconds = poll_interval_seconds
        self._reconnect_max_seconds = reconnect_max_seconds
        #: True while the LISTEN connection is up.
        self.connected = False
        #: Times the connection was lost (for tests and diagnostics).
        self.losses = 0
        #: Notifications received.
        self.notifications = 0
        #: The last delays waited before reconnecting, in seconds (tests, diagnostics).
        self.delays: deque[float] = deque(maxlen=64)
        self._outage = Outage(started="LISTEN connection failed; polling meanwhile", ended=None)
        self._connected_at = 0.0

    async def run(self) -> None:
        """Listen until cancelled; reconnect with backoff whenever the connection fails."""
        backoff = Backoff(self._reconnect_max_seconds, jitter=RECONNECT_JITTER)
        loop = asyncio.get_running_loop()
        while True:
            try:
                await self._listen_once()
            except asyncio.CancelledError:
                self.connected = False
                raise
            except Exception as exc:
                was_connected = self.connected
                self.connected = False
                if was_connected and self._stable(loop):
                    backoff.reset()
                delay = backoff.next_delay()
                self.delays.append(delay)
                if was_connected:
                    self.losses += 1
                    self._outage.failed(
                        exc,
                        message=LOST,
                        poll_interval_s=self._poll_interval_seconds,
                        retry_in_s=round(delay, 3),
                    )
                else:
                    self._outage.failed(exc, retry_in_s=round(delay, 3))
                await asyncio.sleep(delay)

    def _stable(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Return True once the connection has been up :data:`STABLE_AFTER_SECONDS`.

        The outage before it is then over: a loss after this starts a new one, logged again.
        """
        if loop.time() - self._connected_at < STABLE_AFTER_SECONDS:
            return False
        self._outage.succeeded()
        return True

    async def _listen_once(self) -> None:
        conn = await psycopg.AsyncConnection.connect(
            self._dsn,
            autocommit=True,
            application_name=self._application_name,
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
        )
        async with conn:
            for statement in self._listen:
                await conn.execute(statement)
            self.connected = True
            loop = asyncio.get_running_loop()
            self._connected_at = loop.time()
            failed = {"failures": self._outage.failures} if self._outage.active else {}
            logger.info(
                "listening for queue notifications",
                extra=fields(channels=sorted(self._by_channel), **failed),
            )
            self._wake_all()  # anything sent while we were not listening
            while True:
                async for notify in conn.notifies(timeout=PROBE_AFTER_SECONDS):
                    self.notifications += 1
                    wake = self._by_channel.get(notify.channel)
                    if wake is not None:
                        wake()
                await conn.execute(queries.PROBE)  # silent for a while: is the peer alive?
                if self._outage.active:
                    self._stable(loop)

    def _wake_all(self) -> None:
        for wake in self._by_channel.values():
            wake()
