"""LISTEN for pgmq's insert notifications on one dedicated connection, and reconnect.

pgmq's notify-insert trigger (enabled per queue with ``pgmq.enable_notify_insert``) sends
``pg_notify('pgmq.q_<queue>.INSERT')``, throttled per queue. The listener maps each channel
back to its flow and wakes that flow's poller; it never reads messages itself.

If the connection dies (server restart, ``pg_terminate_backend``, network), the listener
logs that the worker has fallen back to polling every ``poll_interval_seconds``,
reconnects with exponential backoff, and on success wakes every poller (notifications sent
meanwhile are lost). A connection that stays silent is probed with ``SELECT 1`` so a dead
peer is noticed even without a TCP reset (TCP keepalives are on too).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

import psycopg

from pgflow.worker import queries
from pgflow.worker.config import Backoff
from pgflow.worker.db_errors import error_text
from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")

#: Seconds of silence after which the LISTEN connection is probed with ``SELECT 1``.
PROBE_AFTER_SECONDS = 15.0


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

    async def run(self) -> None:
        """Listen until cancelled; reconnect with backoff whenever the connection fails."""
        backoff = Backoff(self._reconnect_max_seconds)
        while True:
            try:
                await self._listen_once(backoff)
            except asyncio.CancelledError:
                self.connected = False
                raise
            except Exception as exc:
                was_connected = self.connected
                self.connected = False
                delay = backoff.next_delay()
                if was_connected:
                    self.losses += 1
                    logger.warning(
                        "LISTEN connection lost; falling back to polling until it is back",
                        extra=fields(
                            error=error_text(exc),
                            poll_interval_s=self._poll_interval_seconds,
                            retry_in_s=delay,
                        ),
                    )
                else:
                    logger.warning(
                        "LISTEN connection failed; polling meanwhile",
                        extra=fields(error=error_text(exc), retry_in_s=delay),
                    )
                await asyncio.sleep(delay)

    async def _listen_once(self, backoff: Backoff) -> None:
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
            backoff.reset()
            logger.info(
                "listening for queue notifications", extra=fields(channels=sorted(self._by_channel))
            )
            self._wake_all()  # anything sent while we were not listening
            while True:
                async for notify in conn.notifies(timeout=PROBE_AFTER_SECONDS):
                    self.notifications += 1
                    wake = self._by_channel.get(notify.channel)
                    if wake is not None:
                        wake()
                await conn.execute(queries.PROBE)  # silent for a while: is the peer alive?

    def _wake_all(self) -> None:
        for wake in self._by_channel.values():
            wake()
