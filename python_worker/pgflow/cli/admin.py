"""Schema administration commands: ``check-schema``, ``migrate``, ``schedules``, ``schedule sync``.

Registered on the ``pgflow`` group by :mod:`pgflow.cli.main`.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime

import click
import psycopg

from pgflow.cli.util import click_dsn, db_error_message, dsn_option, table
from pgflow.cli.worker import load_flow
from pgflow.errors import PgflowError
from pgflow.schedules import describe_next_run, list_schedules, sync_schedules
from pgflow.schema.check import check_schema
from pgflow.schema.migrate import migrate


@click.command("check-schema")
@dsn_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check_schema_command(dsn: str | None, as_json: bool) -> None:
    """Check the database against the pgflow contract (compat/manifest.json).

    Exits 1 when errors are found; warnings alone exit 0.
    """
    try:
        report = check_schema(click_dsn(dsn))
    except psycopg.Error as exc:
        raise click.ClickException(f"could not check the schema: {exc}") from exc
    click.echo(report.to_json() if as_json else report.to_text())
    sys.exit(report.exit_code)


@click.command("migrate")
@dsn_option
def migrate_command(dsn: str | None) -> None:
    """Upgrade the pgflow schema to this package's version (one transaction per step)."""
    try:
        report = migrate(click_dsn(dsn))
    except PgflowError as exc:
        raise click.ClickException(str(exc)) from exc
    except psycopg.Error as exc:
        raise click.ClickException(db_error_message(exc)) from exc
    click.echo(str(report))


@click.command("schedules")
@dsn_option
def schedules_command(dsn: str | None) -> None:
    """List scheduled flows with their next run (pg_cron)."""
    try:
        schedules = list_schedules(click_dsn(dsn))
    except psycopg.Error as exc:
        raise click.ClickException(db_error_message(exc)) from exc
    if not schedules:
        click.echo("no schedules", err=True)
        return
    now = datetime.now(UTC)
    rows = [
        [
            s.name,
            s.flow_slug,
            s.schedule,
            "yes" if s.active else "no",
            describe_next_run(s.next_run, now) if s.active else "-",
        ]
        for s in schedules
    ]
    click.echo(table(["SCHEDULE", "FLOW", "CRON", "ACTIVE", "NEXT RUN"], rows))


@click.group("schedule")
def schedule_group() -> None:
    """Manage the pg_cron schedules of flows."""


@schedule_group.command("sync")
@click.argument("flow_refs", nargs=-1, required=True, metavar="MODULE:FLOW...")
@click.option(
    "--app-dir",
    default=".",
    show_default=True,
    help="Directory put first on sys.path before importing the flows.",
)
@dsn_option
def schedule_sync_command(flow_refs: tuple[str, ...], app_dir: str, dsn: str | None) -> None:
    """Make the database's schedules match the cron= options of the given flows.

    Flows without cron= lose their default schedule; other flows are left alone. The flows
    must exist in the database (start their worker once, or run flow.to_sql()).
    """
    sys.path.insert(0, os.path.abspath(app_dir))
    flows = [load_flow(reference) for reference in flow_refs]
    try:
        actions = sync_schedules(click_dsn(dsn), flows)
    except psycopg.errors.ForeignKeyViolation as exc:
        raise click.ClickException(
            f"{db_error_message(exc)}\nStart the flow's worker once (it creates the flow), or "
            "run the SQL of flow.to_sql(), then sync again."
        ) from exc
    except psycopg.Error as exc:
        raise click.ClickException(db_error_message(exc)) from exc
    for slug, action in actions.items():
        click.echo(f"{slug}: {action}")
