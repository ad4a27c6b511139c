"""Run-control commands: cancel, pause, resume, retry, rerun, skip, complete-step, events.

``cancel``, ``pause``, ``resume`` and ``retry`` act on one run, or on many with ``--flow``
(:mod:`pgflow.cli.bulk`). Registered on the ``pgflow`` group by :mod:`pgflow.cli.main`.
Each verb calls the SQL function of the same name through :class:`pgflow.Client` (the
database role needs ``pgflow_operator``), as actor ``--actor`` (default ``cli:<os user>``)
with ``--reason``. Exit codes: 0 when the call went through, including "nothing done"
because the run had left ``--expected-status``; 1 when the verb was refused (the run or
step is in a status it does not apply to), the run or step is unknown, or the database
failed; 2 for usage errors.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import click
import psycopg

from pgflow.cli import bulk, formatting, run_limits
from pgflow.cli.util import click_dsn, db_error_message, dsn_option, parse_json_option
from pgflow.client import RUN_STATUSES, Client, RunControlResult
from pgflow.client.control_plans import LEGAL_STATUSES
from pgflow.errors import PgflowError

F = TypeVar("F", bound=Callable[..., Any])

#: The verbs with a bulk form: command name -> (SQL verb and Client method, past tense,
#: what it does to one run).
BULK_VERBS: dict[str, tuple[str, str, str]] = {
    "cancel": ("cancel_run", "cancelled", "Cancel run RUN_ID for good"),
    "pause": ("pause_run", "paused", "Pause run RUN_ID: it starts no new task until resumed"),
    "resume": ("resume_run", "resumed", "Resume paused run RUN_ID where it stood"),
    "retry": ("retry_run", "retried", "Retry failed run RUN_ID from its failed steps"),
}


def default_actor() -> str:
    """``cli:<os user>``: who acts when ``--actor`` is not given."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        user = "unknown"
    return f"cli:{user}"


def _fail(exc: BaseException) -> click.ClickException:
    if isinstance(exc, psycopg.Error):
        return click.ClickException(db_error_message(exc))
    return click.ClickException(str(exc))


def _report(result: RunControlResult, done: str) -> None:
    if result.changed:
        click.echo(f"{done} run {result.run_id}: now {result.status}")
    else:
        click.echo(f"run {result.run_id}: {result.detail}")


def actor_options(function: F) -> F:
    """Add ``--actor``, ``--reason`` and ``--dsn``."""
    function = click.option("--reason", help="Why; recorded with the actor in the run's events.")(
        function
    )
    function = click.option(
        "--actor",
        default=default_actor,
        show_default="cli:<os user>",
        help="Who acts, as recorded in the run's events.",
    )(function)
    return dsn_option(function)


def expected_status_option(function: F) -> F:
    """Add ``--expected-status``."""
    return click.option(
        "--expected-status",
        type=click.Choice(RUN_STATUSES),
        help="Do nothing (exit 0) unless the run is still in this status.",
    )(function)


# ---------------------------------------------------------------- one run or many


def _bulk_command(name: str) -> click.Command:
    verb, done, what = BULK_VERBS[name]
    legal = LEGAL_STATUSES[verb]

    @click.command(name)
    @click.argument("run_id", required=False, type=click.UUID)
    @actor_options
    @expected_status_option
    @click.option("--flow", "flow_slug", help="Act on many runs: the runs of this flow ...")
    @click.option(
        "--status",
        type=click.Choice(legal),
        help=f"... in this status (default {legal[0]}) ...",
    )
    @click.option("--step", "step_slug", help="... whose step STEP failed or failed an attempt ...")
    @click.option("--error-contains", help="... with an error (of --step) containing this text.")
    @click.option(
        "--limit", type=click.IntRange(min=1), help="With --flow: at most this many runs [500]."
    )
    @click.option("--dry-run", is_flag=True, help="With --flow: list the runs, change nothing.")
    def command(
        run_id: uuid.UUID | None,
        actor: str,
        reason: str | None,
        dsn: str | None,
        expected_status: str | None,
        flow_slug: str | None,
        status: str | None,
        step_slug: str | None,
        error_contains: str | None,
        limit: int | None,
        dry_run: bool,
    ) -> None:
        selecting = {
            "--status": status,
            "--step": step_slug,
            "--error-contains": error_contains,
            "--limit": limit,
            "--dry-run": dry_run or None,
        }
        if run_id is not None and flow_slug is not None:
            raise click.UsageError("give RUN_ID or --flow, not both")
        if run_id is None and flow_slug is None:
            raise click.UsageError("give RUN_ID, or --flow to act on many runs")
        if run_id is not None:
            given = [option for option, value in selecting.items() if value is not None]
            if given:
                raise click.UsageError(f"{', '.join(given)} select runs with --flow, not RUN_ID")
            with Client(click_dsn(dsn)) as client:
                try:
                    result = getattr(client, verb)(
                        run_id, actor=actor, reason=reason, expected_status=expected_status
                    )
                except (PgflowError, psycopg.Error) as exc:
                    raise _fail(exc) from exc
            _report(result, done)
            return
        if expected_status is not None:
            raise click.UsageError(
                "--expected-status is for one RUN_ID; with --flow each call expects --status"
            )
        assert flow_slug is not None
        selection = bulk.Selection(
            flow_slug, status or legal[0], step_slug, error_contains, limit or 500
        )
        _run_bulk(dsn, verb, selection, actor, reason, dry_run)

    command.help = (
        f"{what} ({verb}).\n\nWith --flow instead of RUN_ID: every run of the flow in "
        f"--status (and with --step / --error-contains, an error), each in its own call "
        f"that does nothing if the run has left that status meanwhile; prints how many "
        f"moved, had already moved on, or were refused."
    )
    return command


def _run_bulk(
    dsn: str | None,
    verb: str,
    selection: bulk.Selection,
    actor: str,
    reason: str | None,
    dry_run: bool,
) -> None:
    def call(run_id: str, expected: str) -> RunControlResult:
        result: RunControlResult = getattr(client, verb)(
            run_id, actor=actor, reason=reason, expected_status=expected
        )
        return result

    report = bulk.BulkReport()
    with Client(click_dsn(dsn)) as client:
        try:
            run_ids = bulk.select_runs(client, selection)
            if dry_run:
                for run_id in run_ids:
                    click.echo(run_id)
                click.echo(f"{verb}: would act on {len(run_ids)} runs (dry run)", err=True)
                return
            bulk.act_on_runs(
                run_ids, selection.status, call, lambda line: click.echo(line, err=True), report
            )
        except (PgflowError, psycopg.Error) as exc:
            if report.selected:
                click.echo(f"stopped: {report.summary(verb)}", err=True)
            raise _fail(exc) from exc
    click.echo(report.summary(verb))


cancel_command = _bulk_command("cancel")
pause_command = _bulk_command("pause")
resume_command = _bulk_command("resume")
retry_command = _bulk_command("retry")


# ---------------------------------------------------------------- one run


@click.command("rerun")
@click.argument("run_id", type=click.UUID)
@actor_options
@expected_status_option
def rerun_command(
    run_id: uuid.UUID, actor: str, reason: str | None, dsn: str | None, expected_status: str | None
) -> None:
    """Start a new run of RUN_ID's flow with the same input (rerun_flow); print its id.

    The new run takes RUN_ID's concurrency key: over the flow's limit it is queued (stderr
    says its place and the run holding the slot) or refused (exit 1, naming the holders).
    """
    with Client(click_dsn(dsn)) as client:
        try:
            result = client.rerun(
                run_id, actor=actor, reason=reason, expected_status=expected_status
            )
            queued = result.changed and result.status == "queued"
            slot = client.get_run_slot(result.run_id) if queued else None
        except (PgflowError, psycopg.Error) as exc:
            raise _fail(exc) from exc
    if not result.changed:
        click.echo(f"run {result.run_id}: {result.detail}")
        return
    click.echo(result.run_id)
    note = f"rerun of {run_id}"
    click.echo(run_limits.begun_text(result.run_id, result.status, slot, notes=[note]), err=True)


@click.command("skip")
@click.argument("run_id", type=click.UUID)
@click.argument("step")
@actor_options
@expected_status_option
def skip_command(
    run_id: uuid.UUID,
    step: str,
    actor: str,
    reason: str | None,
    dsn: str | None,
    expected_status: str | None,
) -> None:
    """Skip STEP of run RUN_ID by hand (skip_step): its dependents run without its output."""
    with Client(click_dsn(dsn)) as client:
        try:
            result = client.skip_step(
                run_id, step, actor=actor, reason=reason, expected_status=expected_status
            )
        except (PgflowError, psycopg.Error) as exc:
            raise _fail(exc) from exc
    _report(result, f"skipped step {step} of")


@click.command("complete-step")
@click.argument("run_id", type=click.UUID)
@click.argument("step")
@click.option(
    "--output",
    "output_text",
    required=True,
    help="The step's output as JSON, or @FILE to read it from a file.",
)
@actor_options
@expected_status_option
def complete_step_command(
    run_id: uuid.UUID,
    step: str,
    output_text: str,
    actor: str,
    reason: str | None,
    dsn: str | None,
    expected_status: str | None,
) -> None:
    """Complete STEP of run RUN_ID by hand with --output (complete_step); the run moves on."""
    output = parse_json_option(output_text, "--output")
    with Client(click_dsn(dsn)) as client:
        try:
            result = client.complete_step(
                run_id, step, output, actor=actor, reason=reason, expected_status=expected_status
            )
        except (PgflowError, psycopg.Error) as exc:
            raise _fail(exc) from exc
    _report(result, f"completed step {step} of")


@click.command("events")
@click.argument("run_id", type=click.UUID)
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines.")
@dsn_option
def events_command(run_id: uuid.UUID, as_json: bool, dsn: str | None) -> None:
    """Show the audit trail of run RUN_ID, oldest first.

    Status changes, failed attempts, and who cancelled, paused, resumed, retried, skipped
    or completed what, and why.
    """
    with Client(click_dsn(dsn)) as client:
        try:
            events = client.events(run_id)
        except (PgflowError, psycopg.Error) as exc:
            raise _fail(exc) from exc
    if not events:
        click.echo(f"no events for run {run_id} (unknown run, or its data was pruned)", err=True)
        return
    if as_json:
        for event in events:
            click.echo(json.dumps(dataclasses.asdict(event), default=str))
        return
    click.echo(formatting.events_table(events))


#: Every command of this module, for the ``pgflow`` group.
COMMANDS: tuple[click.Command, ...] = (
    cancel_command,
    pause_command,
    resume_command,
    retry_command,
    rerun_command,
    skip_command,
    complete_step_command,
    events_command,
)
