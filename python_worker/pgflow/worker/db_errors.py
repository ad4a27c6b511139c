"""How the worker tells a lost database from a refused statement, and words an error."""

from __future__ import annotations

import psycopg
from psycopg_pool import PoolTimeout

#: Errors worth retrying a statement for: the database is unreachable, not the query wrong.
RETRYABLE_DB_ERRORS: tuple[type[BaseException], ...] = (psycopg.OperationalError, PoolTimeout)


def error_text(exc: BaseException) -> str:
    """Return the error message stored by ``fail_task``: ``"<TypeName>: <message>"``."""
    return f"{type(exc).__name__}: {exc}"
