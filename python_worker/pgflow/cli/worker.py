"""``pgflow-worker module:flow [module:flow ...]``: run a worker for one or more flows.

Each argument names a :class:`pgflow.dsl.Flow` (a :class:`pgflow.dsl.Job` is one) as
``package.module:attribute`` (the attribute may be dotted). The current directory (or
``--app-dir``) is put first on ``sys.path`` before importing, as uvicorn does, so
``pgflow-worker myflows:analyze`` works from a project directory without installing it.

Exit codes: 0 after a clean stop (SIGTERM/SIGINT, or every worker row deprecated);
1 when a flow stored in the database differs from its definition (the differences are
printed; rerun with ``--allow-data-loss`` to recreate it); 2 on a usage or startup error
(bad flow reference, pgflow not installed, no database configured). Database outages
never end the process: it retries with backoff.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from pgflow.cli.util import command_dsn
from pgflow.dsl import Flow
from pgflow.errors import FlowDefinitionError, PgflowError
from pgflow.worker.config import (
    MIN_POOL_MAX_IDLE_SECONDS,
    MIN_TICK_INTERVAL_SECONDS,
    WorkerConfig,
)
from pgflow.worker.log import LOG_FORMATS, LogFormat, configure_logging
from pgflow.worker.runner import Worker


def load_flow(reference: str) -> Flow:
    """Import and return the flow named by ``module:attribute``.

    Args:
        reference: ``package.module:attribute`` (``attribute`` may be dotted).

    Returns:
        The :class:`pgflow.dsl.Flow` (or Job) found there.

    Raises:
        click.BadParameter: the reference is malformed, cannot be imported, does not
            name a flow, or the module defines a flow that breaks a rule.
    """
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise click.BadParameter(
            f"{reference!r}: expected module:attribute, e.g. myapp.flows:analyze"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise click.BadParameter(f"{reference!r}: cannot import {module_name!r}") from exc
        raise  # an import error inside the user's module: show its traceback
    except FlowDefinitionError as exc:  # a flow of the module breaks a rule: say which
        raise click.BadParameter(f"{reference!r}: {exc}") from exc
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise click.BadParameter(
                f"{reference!r}: module {module_name!r} has no attribute {attribute!r}"
            ) from None
    if not isinstance(value, Flow):
        raise click.BadParameter(
            f"{reference!r} is a {type(value).__name__}, not a pgflow Flow or Job"
        )
    return value


@click.command(context_settings={"auto_envvar_prefix": "PGFLOW_WORKER"})
@click.argument("flows", nargs=-1, required=True, metavar="MODULE:FLOW...")
@click.option(
    "--dsn",
    help="Database URL (default: $PGFLOW_DATABASE_URL, $DATABASE_URL, else the embedded dev"
    " cluster).",
)
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=WorkerConfig.max_concurrency,
    show_default=True,
    help="Most handlers running at once, across all flows.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=WorkerConfig.batch_size,
    show_default=True,
    help="Most messages read per poll.",
)
@click.option(
    "--complete-batch-size",
    type=click.IntRange(min=1),
    default=WorkerConfig.complete_batch_size,
    show_default=True,
    help="Most reports per pgflow.complete_tasks / pgflow.fail_tasks call (group commit;"
    " 1: one report per call).",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=WorkerConfig.max_connections,
    show_default=True,
    help="Most pooled connections (plus one LISTEN connection unless --no-listen); the pool"
    " keeps 1 and opens more only while statements wait.",
)
@click.option(
    "--pool-max-idle",
    type=click.FloatRange(min=MIN_POOL_MAX_IDLE_SECONDS),
    default=WorkerConfig.pool_max_idle_seconds,
    show_default=True,
    help="Seconds after which an idle pooled connection beyond the first is closed (one per"
    " such period), so a pool grown by a burst gives its connections back.",
)
@click.option(
    "--poll-interval",
    type=click.FloatRange(min=0.01),
    default=WorkerConfig.poll_interval_seconds,
    show_default=True,
    help="Seconds between fallback polls when no NOTIFY arrives.",
)
@click.option(
    "--shutdown-grace",
    type=click.FloatRange(min=0),
    default=WorkerConfig.shutdown_grace_seconds,
    show_default=True,
    help="Seconds in-flight tasks get to finish after SIGTERM/SIGINT.",
)
@click.option(
    "--heartbeat-interval",
    type=click.FloatRange(min=0.1),
    default=WorkerConfig.heartbeat_interval_seconds,
    show_default=True,
    help="Seconds between heartbeats (and between checks for cancelled tasks while handlers run).",
)
@click.option(
    "--tick-interval",
    type=click.FloatRange(min=0),
    default=WorkerConfig.tick_interval_seconds,
    show_default=True,
    help="Seconds between pgflow.tick() calls, which fire the waits past their deadline "
    "(signal timeouts, timers) and requeue the tasks of dead workers; one tick runs at a "
    "time across all workers (0: never, leave it to pg_cron or another worker; "
    "otherwise at least 0.1).",
)
@click.option(
    "--requeue-stalled-interval",
    type=click.FloatRange(min=0),
    default=None,
    help="Deprecated alias of --tick-interval.",
)
@click.option(
    "--sweep-interval",
    type=click.FloatRange(min=0),
    default=None,
    hidden=True,
    help="Deprecated alias of --tick-interval.",
)
@click.option(
    "--listen/--no-listen",
    default=WorkerConfig.listen,
    show_default=True,
    help="Wake on pgmq NOTIFY (disable behind PgBouncer in transaction mode).",
)
@click.option(
    "--prepared-statements/--no-prepared-statements",
    default=WorkerConfig.prepared_statements,
    show_default=True,
    help="Prepare frequent statements server-side (never behind a transaction-mode pooler).",
)
@click.option(
    "--function-name",
    default=WorkerConfig.function_name,
    show_default=True,
    help="Deployment name recorded in pgflow.workers and pgflow.worker_functions.",
)
@click.option(
    "--allow-data-loss",
    is_flag=True,
    help="Drop and recreate a flow whose stored definition differs (deletes its runs).",
)
@click.option(
    "--log-format",
    type=click.Choice(LOG_FORMATS),
    default="text",
    show_default=True,
    help="json: one JSON object per line.",
)
@click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"], case_sensitive=False),
    default="INFO",
    show_default=True,
    help="Root log level (DEBUG adds a line per task start and completion).",
)
@click.option(
    "--log-summary-interval",
    type=click.FloatRange(min=0),
    default=WorkerConfig.log_summary_interval_seconds,
    show_default=True,
    help="Seconds between INFO summary lines (tasks completed, failed, retried, requeued,"
    " in flight; 0: none).",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(min=0, max=65535),
    default=None,
    help="Serve Prometheus metrics on this TCP port (path /metrics; 0: any free port,"
    " logged). Not served unless given.",
)
@click.option(
    "--metrics-host",
    default=WorkerConfig.metrics_host,
    show_default=True,
    help="Address the metrics endpoint listens on (0.0.0.0: every interface).",
)
@click.option(
    "--app-dir",
    default=".",
    show_default=True,
    help="Directory put first on sys.path before importing the flows.",
)
def main(
    flows: tuple[str, ...],
    dsn: str | None,
    max_concurrency: int,
    batch_size: int,
    complete_batch_size: int,
    max_connections: int,
    pool_max_idle: float,
    poll_interval: float,
    shutdown_grace: float,
    heartbeat_interval: float,
    tick_interval: float,
    requeue_stalled_interval: float | None,
    sweep_interval: float | None,
    listen: bool,
    prepared_statements: bool,
    function_name: str,
    allow_data_loss: bool,
    log_format: LogFormat,
    log_level: str,
    log_summary_interval: float,
    metrics_port: int | None,
    metrics_host: str,
    app_dir: str,
) -> None:
    """Run a pgflow worker for the given flows (MODULE:FLOW, e.g. myapp.flows:analyze)."""
    tick_interval = _tick_interval(
        tick_interval,
        {
            "--requeue-stalled-interval": requeue_stalled_interval,
            "--sweep-interval": sweep_interval,
        },
    )
    sys.path.insert(0, os.path.abspath(app_dir))
    loaded = [load_flow(reference) for reference in flows]
    try:
        config = WorkerConfig(
            dsn=command_dsn(dsn),
            function_name=function_name,
            max_concurrency=max_concurrency,
            batch_size=batch_size,
            complete_batch_size=complete_batch_size,
            max_connections=max_connections,
            pool_max_idle_seconds=pool_max_idle,
            poll_interval_seconds=poll_interval,
            shutdown_grace_seconds=shutdown_grace,
            heartbeat_interval_seconds=heartbeat_interval,
            tick_interval_seconds=tick_interval,
            listen=listen,
            prepared_statements=prepared_statements,
            allow_data_loss=allow_data_loss,
            log_summary_interval_seconds=log_summary_interval,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
        )
        worker = Worker(loaded, config)
    except (PgflowError, ValueError) as exc:
        raise click.UsageError(str(exc)) from exc
    configure_logging(log_format, log_level)
    sys.exit(worker.run())


def _tick_interval(tick_interval: float, aliases: dict[str, float | None]) -> float:
    """Resolve ``--tick-interval`` and its deprecated aliases.

    ``--requeue-stalled-interval`` (the name before wait steps, when the timer only
    requeued stalled tasks) and ``--sweep-interval`` (hidden, older still) set the same
    interval.

    Args:
        tick_interval: the value of ``--tick-interval`` (seconds).
        aliases: each alias's name and value (seconds), None when not given.

    Returns:
        The seconds between two ``pgflow.tick()`` calls: the alias's value when one was
        given (with a deprecation notice on stderr), else the option's.

    Raises:
        click.UsageError: more than one of the option and its aliases was given.
        click.BadParameter: the value is between 0 and 0.1 s, exclusive (0 means never;
            a shorter period only loads the database).
    """
    given = {name: value for name, value in aliases.items() if value is not None}
    if not given:
        return _check_tick_interval("--tick-interval", tick_interval)
    source = click.get_current_context().get_parameter_source("tick_interval")
    if source is not click.core.ParameterSource.DEFAULT:
        given = {"--tick-interval": tick_interval, **given}
    if len(given) > 1:
        raise click.UsageError(
            f"{' and '.join(given)} set the same interval (the old names are deprecated "
            "aliases of --tick-interval): give one"
        )
    ((name, value),) = given.items()
    value = _check_tick_interval(name, value)
    click.echo(f"pgflow-worker: {name} is deprecated; use --tick-interval", err=True)
    return value


def _check_tick_interval(name: str, seconds: float) -> float:
    if 0 < seconds < MIN_TICK_INTERVAL_SECONDS:
        raise click.BadParameter(
            f"{seconds:g} s is too short: give 0 (never tick) or at least "
            f"{MIN_TICK_INTERVAL_SECONDS:g} s",
            param_hint=name,
        )
    return seconds


if __name__ == "__main__":
    main()
