"""``pgflow dev up|down|status|dsn|psql|destroy``: manage the embedded dev cluster.

The cluster itself is :mod:`pgflow.dev`; these commands print its DSN and notes, and turn
its errors into exit status 1. Registered on the ``pgflow`` group by :mod:`pgflow.cli.main`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TypeVar

import click

from pgflow import dev
from pgflow.errors import PgflowError

T = TypeVar("T")


def _run(action: Callable[[], T]) -> T:
    """Run a dev-cluster operation; its pgflow errors become exit status 1."""
    try:
        return action()
    except PgflowError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group("dev")
def dev_group() -> None:
    """Manage the embedded dev cluster (in ./.pgflow, or $PGFLOW_HOME)."""


@dev_group.command("up")
def dev_up() -> None:
    """Create and start the dev cluster if needed; print its DSN."""
    click.echo(_run(dev.up))


@dev_group.command("down")
def dev_down() -> None:
    """Stop the dev cluster (its data stays)."""
    if not _run(dev.down):
        click.echo("pgflow dev: not running", err=True)


@dev_group.command("status")
def dev_status() -> None:
    """Say whether the dev cluster exists and runs (exit 3 when not running)."""
    current = _run(dev.status)
    click.echo(str(current))
    if not current.running:
        sys.exit(3)


@dev_group.command("dsn")
def dev_dsn() -> None:
    """Print the dev cluster's DSN (starting it if needed)."""
    click.echo(_run(dev.ensure_running))


@dev_group.command(
    "psql", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.argument("psql_args", nargs=-1, type=click.UNPROCESSED)
def dev_psql(psql_args: tuple[str, ...]) -> None:
    """Open psql on the dev cluster (extra arguments go to psql)."""
    dsn = _run(dev.ensure_running)
    argv = _run(lambda: dev.psql_command(dsn, psql_args))
    os.execv(argv[0], argv)


@dev_group.command("destroy")
@click.confirmation_option(prompt="Stop the dev cluster and delete all its data?")
def dev_destroy() -> None:
    """Stop the dev cluster and delete its data."""
    _run(dev.destroy)
