"""Pieces shared by the commands: finding the database, ``--dsn``, JSON options, tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from pgflow import dev
from pgflow.dsn import DEV_CLUSTER_ENV_VAR, configured_dsn, dev_cluster_enabled
from pgflow.errors import DevClusterError, NoDatabaseConfigured, PgflowError

F = TypeVar("F", bound=Callable[..., Any])

DSN_HELP = (
    "Database URL or libpq string (default: $PGFLOW_DATABASE_URL, $DATABASE_URL, "
    "else the embedded dev cluster)."
)


def command_dsn(explicit: str | None) -> str:
    """Return the DSN a command connects to, starting the dev cluster when it is the one.

    Order: ``explicit`` (``--dsn``), ``PGFLOW_DATABASE_URL``, ``DATABASE_URL``, then the
    embedded dev cluster (:mod:`pgflow.dev`), created or started on demand (a note goes to
    stderr). Unlike :func:`pgflow.dsn.resolve_dsn` (library code), this may start a server:
    that is the commands' job.

    Raises:
        NoDatabaseConfigured: none of the sources is set and the dev cluster is disabled
            (``PGFLOW_DEV_CLUSTER=off``) or cannot be started here (the message says why).
    """
    dsn = configured_dsn(explicit)
    if dsn is not None:
        return dsn
    hint = "no database given: pass --dsn or set PGFLOW_DATABASE_URL or DATABASE_URL"
    if not dev_cluster_enabled():
        raise NoDatabaseConfigured(f"{hint} (the dev cluster is off: {DEV_CLUSTER_ENV_VAR})")
    try:
        return dev.ensure_running()
    except DevClusterError as exc:
        raise NoDatabaseConfigured(f"{hint}; the embedded dev cluster failed: {exc}") from exc


def click_dsn(explicit: str | None) -> str:
    """:func:`command_dsn`, with its errors as a :class:`click.ClickException` (exit 1)."""
    try:
        return command_dsn(explicit)
    except PgflowError as exc:
        raise click.ClickException(str(exc)) from exc


def dsn_option(function: F) -> F:
    """Add the ``--dsn`` option shared by the database commands."""
    return click.option("--dsn", help=DSN_HELP)(function)


def parse_json_option(text: str, option: str) -> Any:
    """Parse the value of a JSON option: JSON text, or ``@path`` to read JSON from a file.

    Args:
        text: the option's value.
        option: the option's name (``--input``), for messages.

    Raises:
        click.BadParameter: the file cannot be read, or the text is not JSON (NaN and
            Infinity, which Python's parser accepts, are not JSON either). Exit code 2.
    """
    source = option
    if text.startswith("@"):
        source = text[1:]
        try:
            text = Path(source).read_text()
        except OSError as exc:
            raise click.BadParameter(f"cannot read {source}: {exc}", param_hint=option) from exc
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise click.BadParameter(f"{source} is not JSON: {exc}", param_hint=option) from exc


def _reject_constant(name: str) -> Any:
    """``json.loads`` hook: NaN and Infinity are Python extensions, not JSON."""
    raise ValueError(f"{name} is not a JSON value")


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
