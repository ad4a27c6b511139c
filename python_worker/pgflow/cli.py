"""The ``pgflow`` command line: ``pgflow install`` (more commands arrive with later issues)."""

from __future__ import annotations

import os

import click
import psycopg

from pgflow._version import __version__
from pgflow.errors import NoDatabaseConfigured, PgflowError
from pgflow.install import METHODS, install

DSN_ENV_VARS = ("PGFLOW_DATABASE_URL", "DATABASE_URL")


def resolve_dsn(dsn: str | None) -> str:
    """Return the DSN to use: ``dsn`` if given, else the first DSN environment variable set.

    Args:
        dsn: the value of ``--dsn``, or None.

    Returns:
        A libpq connection string or URL.

    Raises:
        NoDatabaseConfigured: neither ``dsn`` nor PGFLOW_DATABASE_URL / DATABASE_URL is set.
    """
    if dsn:
        return dsn
    for name in DSN_ENV_VARS:
        if os.environ.get(name):
            return os.environ[name]
    raise NoDatabaseConfigured(
        "no database given: pass --dsn or set PGFLOW_DATABASE_URL or DATABASE_URL"
    )


@click.group()
@click.version_option(__version__, prog_name="pgflow")
def main() -> None:
    """pgflow: SQL-first durable workflows on PostgreSQL."""


@main.command("install")
@click.option(
    "--dsn", help="Database to install into (default: $PGFLOW_DATABASE_URL, $DATABASE_URL)."
)
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="auto",
    show_default=True,
    help="extension: CREATE EXTENSION; sql: plain SQL; auto: extension when the server has it.",
)
def install_command(dsn: str | None, method: str) -> None:
    """Install pgmq (if absent) and the pgflow schema into a database."""
    try:
        report = install(resolve_dsn(dsn), method=method)  # type: ignore[arg-type]
    except (PgflowError, psycopg.Error) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(report))
