"""Database errors in the worker: lost database or refused statement, and report retries.

The worker retries a statement only while the database is unreachable, words errors as
``fail_task`` stores them, and sends its reports through :func:`send_report`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from pgflow.worker.config import Backoff
from pgflow.worker.log import fields
from pgflow.worker.outage import is_connection_error

logger = logging.getLogger("pgflow.worker")

T = TypeVar("T")

#: Errors worth retrying a statement for: the database is unreachable, not the query wrong.
RETRYABLE_DB_ERRORS: tuple[type[BaseException], ...] = (psycopg.OperationalError, PoolTimeout)


def error_text(exc: BaseException) -> str:
    """Return the error message stored by ``fail_task``: ``"<TypeName>: <message>"``."""
    return f"{type(exc).__name__}: {exc}"


async def send_report(
    pool: AsyncConnectionPool,
    query: Any,
    params: Mapping[str, Any],
    read: Callable[[Any], Awaitable[T]],
    *,
    reconnect_max_seconds: float,
    describe: Callable[[], Mapping[str, Any]],
) -> T:
    """Send a report statement and return ``read(cursor)``, retrying while unreachable.

    The backoff between tries is capped at ``reconnect_max_seconds``. Reports are
    idempotent in SQL (a repeated or late call changes nothing), so retrying after a lost
    connection is safe. ``describe()`` gives the fields of the retry warning.

    Raises:
        psycopg.errors.ProgramLimitExceeded: a value the server cannot take (a jsonb over
            its own size limit): an OperationalError, but the same report would fail
            forever. (An output over ``pgflow.max_payload_bytes`` is not an error:
            ``complete_tasks`` refuses that report alone.)
        psycopg.Error: any other refusal of the statement.
    """
    backoff = Backoff(reconnect_max_seconds)
    while True:
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(query, params)
                return await read(cur)
        except psycopg.errors.ProgramLimitExceeded:
            raise
        except RETRYABLE_DB_ERRORS as exc:
            delay = backoff.next_delay()
            logger.log(  # a lost or missing connection: the pool logs the outage once
                logging.DEBUG if is_connection_error(exc) else logging.WARNING,
                "database unreachable while reporting; retrying",
                extra=fields(**describe(), error=error_text(exc), retry_in_s=delay),
            )
            await asyncio.sleep(delay)
