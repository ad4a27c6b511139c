"""``pgflow workers`` and ``pgflow flows``: the workers and the flows as an operator sees them.

Both read through :mod:`pgflow.observe` (ages on the database clock) and are registered on
the ``pgflow`` group by :mod:`pgflow.cli.main`. Tables go to stdout, notes to stderr;
``--json`` prints the records instead.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import click
import psycopg

from pgflow.cli.formatting import compact_duration, duration, when
from pgflow.cli.util import click_dsn, db_error_message, dsn_option, table
from pgflow.errors import FlowNotFound
from pgflow.observe.flow_stats import (
    RUN_STATUSES,
    STATS_BUCKET_S,
    WINDOWS,
    FlowSummary,
    RunCountBucket,
    StepStats,
    list_flows,
    run_counts,
    step_stats,
)
from pgflow.observe.workers import (
    DEAD_AFTER_S_DEFAULT,
    DeadWorkerTask,
    WorkerRow,
    dead_worker_tasks,
    list_workers,
)


def _connect(dsn: str | None) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(click_dsn(dsn), autocommit=True)
    except psycopg.Error as exc:
        raise click.ClickException(db_error_message(exc)) from exc


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, default=str)


# ---------------------------------------------------------------- pgflow workers


@click.command("workers")
@dsn_option
@click.option(
    "--all",
    "include_ended",
    is_flag=True,
    help="Also list stopped workers and workers dead for over an hour without tasks.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the workers as JSON.")
@click.option(
    "--dead-after",
    "dead_after_s",
    type=click.FloatRange(min=0, min_open=True),
    default=DEAD_AFTER_S_DEFAULT,
    show_default=True,
    metavar="SECONDS",
    help="A worker that did not stop and has not sent a heartbeat for this long is dead.",
)
def workers_command(
    dsn: str | None, include_ended: bool, as_json: bool, dead_after_s: float
) -> None:
    """List the workers: state, last heartbeat, tasks in flight.

    A worker whose heartbeat stopped is DEAD; its started tasks are listed below the
    table with when the stalled-task sweep requeues them (until then they look like
    running work). Stopped workers, and workers dead for over an hour without tasks, are
    left out unless --all. Reads pgflow.workers (the pgflow_operator role may).
    """
    with _connect(dsn) as conn:
        try:
            workers = list_workers(conn, dead_after_s=dead_after_s, include_ended=include_ended)
            tasks = dead_worker_tasks(conn, dead_after_s=dead_after_s)
        except psycopg.Error as exc:
            raise click.ClickException(db_error_message(exc)) from exc
    if as_json:
        click.echo(
            _json(
                {
                    "workers": [dataclasses.asdict(w) for w in workers],
                    "dead_worker_tasks": [dataclasses.asdict(t) for t in tasks],
                }
            )
        )
        return
    if not workers:
        click.echo("no workers", err=True)
    else:
        click.echo(workers_table(workers))
    if tasks:
        click.echo("")
        click.echo("Started tasks of dead workers (nobody will report them):")
        click.echo(dead_tasks_table(tasks))
    dead = [w for w in workers if w.state == "dead"]
    if dead:
        held = sum(w.tasks_in_flight for w in dead)
        noun = "worker" if len(dead) == 1 else "workers"
        click.echo(
            f"{len(dead)} dead {noun} (no heartbeat for over {compact_duration(dead_after_s)})"
            f" holding {held} started task{'' if held == 1 else 's'}",
            err=True,
        )


def workers_table(workers: Sequence[WorkerRow]) -> str:
    """The table of ``pgflow workers``: dead workers read ``DEAD`` in capitals."""
    rows = [
        [
            str(w.worker_id),
            w.flow_slug,
            w.function_name,
            "DEAD" if w.state == "dead" else w.state,
            when(w.started_at),
            f"{compact_duration(w.heartbeat_age_s)} ago",
            str(w.tasks_in_flight),
        ]
        for w in workers
    ]
    headers = ["WORKER", "FLOW", "FUNCTION", "STATE", "STARTED", "LAST HEARTBEAT", "IN FLIGHT"]
    return table(headers, rows)


def dead_tasks_table(tasks: Sequence[DeadWorkerTask]) -> str:
    """The started tasks of dead (or stopped) workers, with when the sweep requeues them."""
    rows = [
        [
            str(t.run_id),
            t.flow_slug,
            t.step_slug,
            str(t.task_index),
            str(t.attempt),
            str(t.worker_id)[:8],
            t.worker_state,
            when(t.started_at),
            _sweep_cell(t),
        ]
        for t in tasks
    ]
    headers = [
        "RUN",
        "FLOW",
        "STEP",
        "TASK",
        "ATTEMPT",
        "WORKER",
        "WORKER STATE",
        "STARTED",
        "REQUEUED BY THE SWEEP",
    ]
    return table(headers, rows)


def _sweep_cell(task: DeadWorkerTask) -> str:
    if task.run_status == "paused":
        return "after resume"
    if task.sweep_in_s > 0:
        return f"in {compact_duration(task.sweep_in_s)}"
    return "at the next tick"


# ---------------------------------------------------------------- pgflow flows


@click.command("flows")
@click.argument("flow", required=False)
@click.option(
    "--window",
    type=click.Choice(list(WINDOWS)),
    default=None,
    help="With FLOW: the window of the step statistics (default 24h).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON.")
@dsn_option
def flows_command(flow: str | None, window: str | None, as_json: bool, dsn: str | None) -> None:
    """List the flows with their runs by status; with FLOW, its steps' statistics.

    With FLOW: per step, over the window (runs that ended in it), how many finished,
    failed and were retried (a task attempted more than once), and the p50 / p95 of the
    completed steps' durations (estimates, within 19%); then the runs started and ended
    in the window.
    """
    if flow is None and window is not None:
        raise click.UsageError("--window needs FLOW (the statistics are per flow)")
    with _connect(dsn) as conn:
        try:
            if flow is None:
                _print_flows(list_flows(conn), as_json)
                return
            label = window or "24h"
            window_s = WINDOWS[label]
            steps = step_stats(conn, flow, window_s)
            # 5-minute intervals: the first starts where the step statistics' window does.
            buckets = run_counts(conn, flow, window_s, STATS_BUCKET_S)
        except FlowNotFound as exc:
            raise click.ClickException(str(exc)) from exc
        except psycopg.Error as exc:
            raise click.ClickException(db_error_message(exc)) from exc
    _print_flow(flow, label, steps, buckets, as_json)


def _print_flows(flows: Sequence[FlowSummary], as_json: bool) -> None:
    if as_json:
        click.echo(_json([dataclasses.asdict(f) for f in flows]))
        return
    if not flows:
        click.echo("no flows", err=True)
        return
    headers = ["FLOW", "STEPS", *(s.upper() for s in RUN_STATUSES), "LAST STARTED"]
    rows = [
        [
            f.flow_slug,
            str(f.step_count),
            *(str(f.runs_by_status.get(status, 0)) for status in RUN_STATUSES),
            when(f.last_started_at),
        ]
        for f in flows
    ]
    click.echo(table(headers, rows))


def _print_flow(
    flow: str,
    label: str,
    steps: Sequence[StepStats],
    buckets: Sequence[RunCountBucket],
    as_json: bool,
) -> None:
    started = sum(b.started for b in buckets)
    finished = {
        "completed": sum(b.completed for b in buckets),
        "failed": sum(b.failed for b in buckets),
        "cancelled": sum(b.cancelled for b in buckets),
        "expired": sum(b.expired for b in buckets),
    }
    since = buckets[0].bucket_start if buckets else None
    if as_json:
        data = {
            "flow": flow,
            "window": label,
            "since": since,
            "steps": [dataclasses.asdict(s) for s in steps],
            "runs": {"started": started, **finished},
        }
        click.echo(_json(data))
        return
    click.echo(f"flow {flow}: steps of the runs that ended since {when(since)} (last {label})")
    click.echo(steps_table(steps))
    ended = ", ".join(f"{n} {status}" for status, n in finished.items())
    click.echo(f"\nruns since {when(since)}: {started} started; ended: {ended}")


def steps_table(steps: Sequence[StepStats]) -> str:
    """The per-step table of ``pgflow flows FLOW``."""
    rows = [
        [
            s.step_slug,
            str(s.finished),
            str(s.failed),
            _rate(s.failure_rate),
            str(s.retried),
            _rate(s.retry_rate),
            took(s.p50_s),
            took(s.p95_s),
            str(s.skipped),
        ]
        for s in steps
    ]
    headers = [
        "STEP",
        "FINISHED",
        "FAILED",
        "FAIL %",
        "RETRIED",
        "RETRY %",
        "P50",
        "P95",
        "SKIPPED",
    ]
    return table(headers, rows)


def took(seconds: float | None) -> str:
    """A step duration: ``850 ms`` under a second, else as ``pgflow status`` says it."""
    if seconds is not None and seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return duration(seconds)


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"
