"""Connection outages: logged once (WARNING) when they start and once (INFO) when they end.

While the database refuses connections (``too many clients``, SQLSTATE 53300), is down, or
the pool cannot hand out a connection within its timeout, every retry of every part of the
worker would log a line. An :class:`Outage` turns them into two lines: a WARNING at the
first failure (with the error and, when a connection limit refused it, a hint about
``max_connections``) and an INFO line once the connections work again, with how many
failures there were and how long it lasted. The retries in between log at DEBUG.

The durations are measured on the worker's monotonic clock: they describe the worker's own
view of the database (which it cannot ask for the time while unreachable), not engine state.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final

import psycopg
from psycopg_pool import PoolTimeout

from pgflow.worker.log import fields

logger = logging.getLogger("pgflow.worker")

#: SQLSTATEs that say "no connection" rather than "this statement failed": too many
#: connections, and the server shutting down or starting up (class 08, connection
#: exceptions, counts too).
CONNECTION_SQLSTATES: Final = frozenset({"53300", "57P01", "57P02", "57P03"})

#: Hint added to the WARNING when a connection limit refused the connection.
CONNECTION_LIMIT_HINT: Final = (
    "a connection limit is reached (the server's max_connections, or a CONNECTION LIMIT of "
    "the role or database): size it for every worker's pool and listener and the handlers' "
    "own connections (docs/connections.md)"
)


def is_connection_error(exc: BaseException) -> bool:
    """Return True when ``exc`` means "no usable connection", not "the statement failed".

    True for a pool timeout, and for a :class:`psycopg.OperationalError` without SQLSTATE
    (connection refused or lost, raised by the client library), of class 08, or with a
    SQLSTATE of :data:`CONNECTION_SQLSTATES`. False for everything else, e.g. a statement
    timeout (57014), which the database did answer.
    """
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    sqlstate = exc.sqlstate
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in CONNECTION_SQLSTATES


#: What the server says when a connection limit refuses a connection (SQLSTATE 53300).
_LIMIT_MESSAGES: Final = (
    "too many clients already",  # max_connections
    "remaining connection slots are reserved",  # max_connections minus the reserved ones
    "too many connections for role",  # CREATE ROLE ... CONNECTION LIMIT
    "too many connections for database",  # CREATE DATABASE ... CONNECTION LIMIT
)


def is_connection_limit(exc: BaseException) -> bool:
    """Return True when ``exc`` is a connection refused because a connection limit is reached.

    SQLSTATE 53300, or the server's message when the client library gives no SQLSTATE (a
    refused connection carries only the text: ``sorry, too many clients already``,
    ``remaining connection slots are reserved ...``, ``too many connections for role``).
    """
    if getattr(exc, "sqlstate", None) == "53300":
        return True
    text = str(exc)
    return any(message in text for message in _LIMIT_MESSAGES)


class Outage:
    """Log one kind of connection trouble once when it starts and once when it ends.

    Call :meth:`failed` at every failure and :meth:`succeeded` at every success; the first
    failure logs a WARNING, the others DEBUG lines. A success ends the outage (an INFO line
    with ``failures`` and ``outage_s``) once ``settle_seconds`` have passed without a
    failure; an earlier success only marks it as recovering, and a later success or
    :meth:`poll` call ends it. So a failure that follows a success closely (another
    connection of the pool found broken, a refusal between two accepted connections) stays
    in the same outage instead of starting a new one.

    Args:
        started: the WARNING message of the first failure; ``{error}`` is replaced by the
            error text (``"<TypeName>: <message>"``).
        ended: the INFO message when the outage is over; None: nothing is logged (the
            caller logs it, from what :meth:`succeeded` returns).
        settle_seconds: seconds without a failure before a success ends the outage (0: the
            first success ends it).
        clock: monotonic seconds (``time.monotonic``).
        log: the logger written to.
    """

    def __init__(
        self,
        *,
        started: str,
        ended: str | None,
        settle_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        log: logging.Logger = logger,
    ) -> None:
        self._started = started
        self._ended = ended
        self._settle = settle_seconds
        self._clock = clock
        self._log = log
        #: True from the first failure until a success ended the outage.
        self.active = False
        #: Failures of the current outage (of the last one once it ended).
        self.failures = 0
        #: Outages started so far.
        self.outages = 0
        self._started_at = 0.0
        self._last_failure = 0.0
        self._recovered_at: float | None = None

    def failed(self, exc: BaseException, *, message: str | None = None, **extra: Any) -> bool:
        """Record a failure; log a WARNING if it starts an outage, else a DEBUG line.

        Args:
            exc: the error (its text goes into the message and the ``error`` field).
            message: the WARNING message if this failure starts an outage, instead of
                ``started`` (``{error}`` is replaced the same way).
            **extra: more fields for the log line (e.g. ``retry_in_s``).

        Returns:
            True when this failure started an outage (the WARNING was logged).
        """
        now = self._clock()
        self._last_failure = now
        self._recovered_at = None
        text = f"{type(exc).__name__}: {exc}"  # as db_errors.error_text
        if self.active:
            self.failures += 1
            self._log.debug(
                "connection failure in an outage already logged",
                extra=fields(error=text, failures=self.failures, **extra),
            )
            return False
        self.active = True
        self.failures = 1
        self.outages += 1
        self._started_at = now
        hint = {"hint": CONNECTION_LIMIT_HINT} if is_connection_limit(exc) else {}
        template = self._started if message is None else message
        self._log.warning(template.format(error=text), extra=fields(error=text, **hint, **extra))
        return True

    def succeeded(self) -> dict[str, Any] | None:
        """Record a success; end the outage if none failed for ``settle_seconds``.

        Returns:
            ``{"failures": N, "outage_s": seconds}`` when this call ended an outage
            (``outage_s``: from the first failure to the first success after the last
            one), else None.
        """
        if not self.active:
            return None
        if self._recovered_at is None:
            self._recovered_at = self._clock()
        return self.poll()

    def poll(self) -> dict[str, Any] | None:
        """End a recovering outage once ``settle_seconds`` passed since its last failure.

        Returns:
            The summary (as :meth:`succeeded`) when this call ended it, else None.
        """
        if not self.active or self._recovered_at is None:
            return None
        if self._clock() - self._last_failure < self._settle:
            return None
        self.active = False
        summary = {
            "failures": self.failures,
            "outage_s": round(self._recovered_at - self._started_at, 3),
        }
        if self._ended is not None:
            self._log.info(self._ended, extra=fields(**summary))
        return summary
