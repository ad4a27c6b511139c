"""Pieces shared by the ``pgflow`` commands: the ``--dsn`` option and plain tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

DSN_HELP = (
    "Database URL or libpq string (default: $PGFLOW_DATABASE_URL, $DATABASE_URL, "
    "else the embedded dev cluster)."
)


def dsn_option(function: F) -> F:
    """Add the ``--dsn`` option shared by the database commands."""
    return click.option("--dsn", help=DSN_HELP)(function)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return a plain table with columns padded to their widest cell."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    lines = [headers, *rows]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def db_error_message(exc: BaseException) -> str:
    """The message of a database error for a terminal: its primary text and hint.

    A PL/pgSQL error's ``str()`` carries the ``CONTEXT:`` lines of the function stack,
    which name internals and say nothing the user can act on.
    """
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None)
    if not primary:
        return str(exc)
    hint = getattr(diag, "message_hint", None)
    return f"{primary}\nHint: {hint}" if hint else primary
