"""The ``pgflow`` command line.

``pgflow install`` installs the schema; ``pgflow start``, ``status`` and ``runs`` start and
follow runs (here; keys, slots and deadlines are worded by :mod:`pgflow.cli.run_limits`);
``pgflow cancel|pause|resume|retry|rerun|skip|complete-step|events`` operate runs
(:mod:`pgflow.cli.control`); ``pgflow signal`` sends a signal to a run
(:mod:`pgflow.cli.signal`); ``pgflow dev up|down|status|dsn|psql|destroy`` manage the
embedded dev cluster (:mod:`pgflow.cli.dev`); ``check-schema``, ``migrate`` and
``schedules`` administer the schema (:mod:`pgflow.cli.admin`); ``pgflow workers`` and
``pgflow flows`` show workers and flow stats (:mod:`pgflow.cli.observe`); ``pgflow
dashboard`` serves the web dashboard (:mod:`pgflow.cli.dashboard`). Every command that needs a
database takes ``--dsn``, else uses ``PGFLOW_DATABASE_URL``, ``DATABASE_URL``, then the dev
cluster, started on demand (:func:`pgflow.cli.util.command_dsn`). Data goes to stdout,
notes and progress to stderr.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

import click
import psycopg

from pgflow._version import __version__
from pgflow.cli import admin, control, dashboard, dev, formatting, observe, run_limits, signal
from pgflow.cli.durations import deadline_callback
from pgflow.cli.util import (
    click_dsn,
    command_dsn,
    db_error_message,
    dsn_option,
    parse_json_option,
    table,
)
from pgflow.client import RUN_STATUSES, Client
from pgflow.errors import PgflowError
from pgflow.schema.install import METHODS, Method, install

__all__ = ["main"]


def _client(dsn: str | None) -> Client:
    return Client(click_dsn(dsn))


@click.group()
@click.version_option(__version__, prog_name="pgflow")
def main() -> None:
    """pgflow: SQL-first durable workflows on PostgreSQL."""


# ---------------------------------------------------------------- install


@main.command("install")
@dsn_option
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="auto",
    show_default=True,
    help="extension: CREATE EXTENSION; sql: plain SQL; auto: extension when the server has it.",
)
def install_command(dsn: str | None, method: Method) -> None:
    """Install pgmq (if absent) and the pgflow schema into a database."""
    try:
        report = install(command_dsn(dsn), method=method)
    except (PgflowError, psycopg.Error) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(str(report))


# ---------------------------------------------------------------- runs


def _parse_input(text: str) -> Any:
    """Parse ``--input``: JSON text, or ``@path`` to read JSON from a file."""
    return parse_json_option(text, "--input")


@main.command("start")
@click.argument("flow")
@click.option(
    "--input",
    "input_text",
    default="{}",
    show_default=True,
    help="Run input as JSON, or @FILE to read it from a file.",
)
@click.option("--run-id", type=click.UUID, help="Use this uuid as the run id (default: random).")
@click.option(
    "--idempotency-key",
    callback=run_limits.key_callback,
    help="At most one run of FLOW per key: a repeated start prints the first run's id.",
)
@click.option(
    "--concurrency-key",
    callback=run_limits.key_callback,
    help="Take a slot of this key (the flow's concurrency_limit); over it, queue or refuse.",
)
@click.option(
    "--deadline",
    metavar="DURATION|TIMESTAMP",
    callback=deadline_callback,
    help="Expire the run if unfinished by then: 90s, 15m, 2h, 1d, 1h30m from now (database "
    "clock), or an ISO 8601 timestamp with offset.",
)
@click.option("--wait", is_flag=True, help="Wait for the run to finish; print its output.")
@click.option(
    "--timeout",
    "timeout_seconds",
    type=float,
    default=300.0,
    show_default=True,
    help="With --wait: give up after this many seconds (exit 1).",
)
@dsn_option
def start_command(
    flow: str,
    input_text: str,
    run_id: uuid.UUID | None,
    idempotency_key: str | None,
    concurrency_key: str | None,
    deadline: timedelta | datetime | None,
    wait: bool,
    timeout_seconds: float,
    dsn: str | None,
) -> None:
    """Start a run of FLOW.

    Prints the run id; with --wait, says on stderr whether the run started or was
    queued, prints the run output (JSON) once the run completes, and exits 1 if it failed,
    was cancelled or expired, or did not finish in time. A start with an --idempotency-key
    used before prints the existing run's id and notes "already started" on stderr; a run
    over its key's concurrency limit is queued (stderr says its place and the run holding
    the slot) or refused (exit 1, naming the holders). A blank or over-255-character key is
    a usage error (exit 2).
    """
    value = _parse_input(input_text)
    with _client(dsn) as client:
        try:
            state = client.start_flow(
                flow,
                value,
                run_id=run_id,
                idempotency_key=idempotency_key,
                concurrency_key=concurrency_key,
                deadline=deadline,
            )
            queued = state.status == "queued"
            slot = client.get_run_slot(state.run_id) if queued else None
            if not wait:
                click.echo(state.run_id)
            if wait and not state.duplicate:
                of = f" of flow {flow}"
                notes = [run_limits.begun_text(state.run_id, state.status, slot, of=of)]
            else:
                notes = run_limits.start_notes(state, slot)
            for note in notes:
                click.echo(note, err=True)
            if not wait:
                return
            final = client.wait_for_run(state.run_id, timeout_seconds=timeout_seconds)
        except (PgflowError, psycopg.Error) as exc:
            raise click.ClickException(db_error_message(exc)) from exc
    if final.status == "completed":
        click.echo(f"run {final.run_id} completed in {_duration(final.duration_seconds)}", err=True)
        click.echo(json.dumps(final.output, indent=2))
        return
    failed = final.failed_step
    where = f" at step {failed.step_slug}: {failed.error_message}" if failed else ""
    raise click.ClickException(f"run {final.run_id} {final.status}{where}")


@main.command("status")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the run state as JSON.")
@dsn_option
def status_command(run_id: str, as_json: bool, dsn: str | None) -> None:
    """Show a run and the state of each of its steps.

    Also says why a failed run failed (the failed step and its error), who cancelled or
    paused a run and why, for each task waiting to be retried, its last error and when its
    next attempt is due, and for each waiting step what it waits for, since when and until
    when (signal timeout, timer). For a run with a concurrency key: the key, its limit,
    and a queued run's place in the queue with the run(s) holding the slot(s); a run that
    expired or was cancelled while queued says it never started; for a run with a
    deadline: the time left (database clock), or when it expired. Reads only.
    """
    with _client(dsn) as client:
        try:
            state = client.get_run(run_id)
            counts = client.task_counts(run_id)
            live = state.status in ("started", "paused")
            retrying = client.retrying_tasks(state.run_id) if live else []
            # A run created queued that ended: its events say whether it ever started.
            ended_queued = state.queued_at is not None and state.finished
            noted = state.status in ("cancelled", "paused") or ended_queued
            events = client.events(state.run_id) if noted and not as_json else []
            waiting = any(step.status == "waiting" for step in state.steps)
            waits = client.get_run_waits(state.run_id) if waiting else []
            slot = client.get_run_slot(state.run_id) if state.concurrency_key else None
            ahead = state.deadline is not None and state.status in run_limits.LIVE_STATUSES
            deadline = client.get_run_deadline(state.run_id) if ahead else None
            now = client.engine_time()  # ages on the engine's clock, never Python's
        except (PgflowError, psycopg.Error) as exc:
            raise click.ClickException(str(exc)) from exc
    if as_json:
        data = dataclasses.asdict(state)
        data["retrying_tasks"] = [dataclasses.asdict(task) for task in retrying]
        data["waits"] = [dataclasses.asdict(wait) for wait in waits]
        data["slot"] = None if slot is None else dataclasses.asdict(slot)
        data["deadline_seconds_left"] = None if deadline is None else deadline.seconds_left
        click.echo(json.dumps(data, indent=2, default=str))
        return
    click.echo(f"run      {state.run_id}")
    click.echo(f"flow     {state.flow_slug}")
    timing = formatting.run_timing(state, run_limits.never_started(state, events), now)
    click.echo(f"status   {state.status}  ({timing})")
    for label, text in formatting.why_lines(state, events):
        click.echo(f"{label:<8} {text}")
    for label, text in run_limits.status_lines(state, slot, deadline):
        click.echo(f"{label:<8} {text}")
    click.echo("")
    paused = state.status == "paused"
    wait_notes = {w.step_slug: formatting.wait_note(w, paused) for w in waits if w.waiting}
    rows = []
    for step in state.steps:
        by_status = counts.get(step.step_slug, {})
        tasks = (
            "-" if step.initial_tasks is None else f"{step.completed_tasks}/{step.initial_tasks}"
        )
        running = by_status.get("started", 0)
        note = _one_line(step.error_message or step.skip_reason or "")
        if step.status == "waiting" and step.step_slug in wait_notes:
            note = _one_line(wait_notes[step.step_slug], 200)
        rows.append(
            [
                step.step_slug,
                step.status,
                tasks,
                str(running) if running else "",
                _duration(_seconds_between(step.started_at, step.completed_at or step.failed_at)),
                note,
            ]
        )
    click.echo(table(["STEP", "STATUS", "TASKS DONE", "RUNNING", "TOOK", "NOTE"], rows))
    if retrying:
        click.echo("")
        click.echo(formatting.retrying_table(retrying, state.status, now))


@main.command("runs")
@click.option("--flow", "flow_slug", help="Only runs of this flow.")
@click.option("--status", type=click.Choice(RUN_STATUSES), help="Only runs in this status.")
@click.option("--step", "step_slug", help="Only runs whose step STEP failed or failed an attempt.")
@click.option("--error-contains", help="Only runs with an error (of --step) containing this text.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@dsn_option
def runs_command(
    flow_slug: str | None,
    status: str | None,
    step_slug: str | None,
    error_contains: str | None,
    limit: int,
    dsn: str | None,
) -> None:
    """List the latest runs, newest first.

    STARTED reads "queued" for a run waiting for a concurrency slot, "never" for one that
    expired or was cancelled while queued (TOOK "-").
    """
    with _client(dsn) as client:
        try:
            runs = client.list_runs(
                flow_slug=flow_slug,
                status=status,
                limit=limit,
                step_slug=step_slug,
                error_contains=error_contains,
            )
            ended_queued = {
                run.run_id
                for run in runs
                if run_limits.may_have_ended_queued(run)
                and run_limits.never_started(run, client.events(run.run_id))
            }
        except (PgflowError, psycopg.Error) as exc:
            raise click.ClickException(str(exc)) from exc
    if not runs:
        click.echo("no runs", err=True)
        return
    rows = [
        [
            run.run_id,
            run.flow_slug,
            run.status,
            formatting.started_cell(run, run.run_id in ended_queued),
            formatting.took_cell(run, run.run_id in ended_queued),
            str(run.remaining_steps),
        ]
        for run in runs
    ]
    click.echo(table(["RUN ID", "FLOW", "STATUS", "STARTED", "TOOK", "STEPS LEFT"], rows))


# ---------------------------------------------------------------- formatting

_duration = formatting.duration
_seconds_between = formatting.seconds_between
_one_line = formatting.one_line


# The dev cluster, schema administration and run-control commands live apart.
main.add_command(dev.dev_group)
main.add_command(admin.check_schema_command)
main.add_command(admin.migrate_command)
main.add_command(admin.schedules_command)
main.add_command(admin.schedule_group)
main.add_command(signal.signal_command)
main.add_command(observe.workers_command)
main.add_command(observe.flows_command)
main.add_command(dashboard.dashboard_command)
for _command in control.COMMANDS:
    main.add_command(_command)


if __name__ == "__main__":
    main()
