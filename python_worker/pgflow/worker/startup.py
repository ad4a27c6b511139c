"""What a worker does in the database before it reads any task.

Each function sends one or two statements on a connection the caller holds; the caller
retries the whole sequence while the database is unreachable (connection errors pass
through), so every step is safe to repeat. Errors that retrying cannot fix become
:class:`~pgflow.errors.WorkerStartupError` (exit code 2) or
:class:`~pgflow.errors.FlowShapeMismatch` (exit code 1).
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from typing import Any, LiteralString

import psycopg
from psycopg import errors as pg_errors

from pgflow.dsl import Flow
from pgflow.errors import FlowShapeMismatch, SchemaVersionMismatch, WorkerStartupError
from pgflow.schema import upstream
from pgflow.schema.check import check_worker_compatibility_async
from pgflow.worker import queries
from pgflow.worker.db_errors import RETRYABLE_DB_ERRORS, error_text
from pgflow.worker.log import fields
from pgflow.worker.modes import PGFLOW_PY, UPSTREAM, UPSTREAM_FUNCTIONS, UPSTREAM_NOTICE, SqlMode

logger = logging.getLogger("pgflow.worker")

Connection = psycopg.AsyncConnection[Any]


async def sql_mode(conn: Connection) -> SqlMode:
    """Return the SQL interface of the database: pgflow-py's, or upstream pgflow's alone.

    Upstream's (:data:`~pgflow.worker.modes.UPSTREAM`) when schema pgflow holds upstream's
    tables and no version of ours (installed by upstream's migrations); the worker then
    logs :data:`~pgflow.worker.modes.UPSTREAM_NOTICE`. Otherwise pgflow-py's, whose
    absence :func:`check_schema` reports.
    """
    cur = await conn.execute(upstream.FOUND)
    row = await cur.fetchone()
    if row is None or not row[0]:
        return PGFLOW_PY
    logger.warning(UPSTREAM_NOTICE, extra=fields(mode=UPSTREAM.name))
    return UPSTREAM


async def check_upstream(conn: Connection) -> None:
    """Refuse to start in upstream mode when a function it calls is missing.

    Raises:
        WorkerStartupError: naming the missing functions.
    """
    cur = await conn.execute(
        "select array(select f from unnest(%(functions)s::text[]) as f "
        "where case when f like '%%(%%' then pg_catalog.to_regprocedure(f) is null "
        "else not exists (select 1 from pg_catalog.pg_proc as p "
        "join pg_catalog.pg_namespace as n on n.oid = p.pronamespace "
        "where n.nspname || '.' || p.proname = f) end)",
        {"functions": list(UPSTREAM_FUNCTIONS)},
    )
    row = await cur.fetchone()
    missing = list(row[0]) if row else []
    if missing:
        raise WorkerStartupError(
            f"upstream mode needs {', '.join(missing)}, which this database lacks "
            f"(an upstream pgflow older than 0.14?); {upstream.adoption_hint()}"
        )


async def check_schema(conn: Connection, flow_slugs: list[str]) -> None:
    """Refuse to start on a missing or incompatible schema, with the check's message.

    Runs the checks of ``pgflow check-schema`` that matter to this worker (pgflow and pgmq
    versions, function signatures, record types, the queues of its flows), so an old pgmq
    or schema fails here rather than with an SQL error mid-run.

    Raises:
        WorkerStartupError: pgflow is not installed, or the check found errors.
    """
    try:
        await conn.execute(queries.SCHEMA_VERSION)
    except (pg_errors.UndefinedFunction, pg_errors.InvalidSchemaName) as exc:
        raise WorkerStartupError(
            f"pgflow is not installed in this database: run `pgflow install` ({error_text(exc)})"
        ) from exc
    except pg_errors.InsufficientPrivilege as exc:
        cur = await conn.execute(queries.CURRENT_ROLE)
        row = await cur.fetchone()
        raise WorkerStartupError(_grant_hint(str(row[0]) if row else "?", error_text(exc))) from exc
    try:
        await check_worker_compatibility_async(conn, flow_slugs)
    except SchemaVersionMismatch as exc:
        raise WorkerStartupError(str(exc)) from exc
    cur = await conn.execute(
        queries.MISSING_PRIVILEGES,
        {"functions": list(queries.WORKER_FUNCTIONS), "tables": list(queries.WORKER_TABLES)},
    )
    row = await cur.fetchone()
    if row and row[1]:
        raise WorkerStartupError(_grant_hint(str(row[0]), "it may not use " + ", ".join(row[1])))


def _grant_hint(role: str, problem: str) -> str:
    """The startup error of a database role without the ``pgflow_worker`` privileges."""
    return (
        f"database role {role} lacks the privileges of a pgflow worker ({problem}); "
        f"as an administrator: GRANT pgflow_worker TO {role}"
    )


async def track_worker_function(conn: Connection, function_name: str) -> None:
    """Record the deployment name in ``pgflow.worker_functions``."""
    await conn.execute(queries.TRACK_WORKER_FUNCTION, {"function_name": function_name})


async def compile_flow(conn: Connection, flow: Flow, allow_data_loss: bool) -> str:
    """Create or verify the flow from its shape with ``pgflow.ensure_flow_compiled``.

    Returns:
        The status: ``compiled``, ``verified`` or ``recompiled``.

    Raises:
        FlowShapeMismatch: the stored flow differs and ``allow_data_loss`` is false.
        WorkerStartupError: the SQL refused the shape (e.g. a slug too long for pgmq).
    """
    try:
        cur = await conn.execute(
            queries.ENSURE_FLOW_COMPILED,
            {
                "flow_slug": flow.slug,
                "shape": json.dumps(flow.shape()),
                "allow_data_loss": allow_data_loss,
            },
        )
    except RETRYABLE_DB_ERRORS:
        raise
    except psycopg.Error as exc:
        raise WorkerStartupError(
            f"flow {flow.slug!r} could not be compiled: {error_text(exc)}"
        ) from exc
    row = await cur.fetchone()
    result = row[0] if row else {}
    status = str(result.get("status"))
    differences = list(result.get("differences") or [])
    if status == "mismatch":
        raise FlowShapeMismatch(flow.slug, differences)
    log = fields(flow_slug=flow.slug, status=status, differences=differences)
    if status == "recompiled":
        logger.warning("flow recompiled: its old definition and runs were deleted", extra=log)
    else:
        logger.info(f"flow {status}", extra=log)
    return status


async def sync_options(conn: Connection, flow: Flow) -> list[dict[str, Any]]:
    """Make the stored flow's options those of the definition, and log each change.

    Runs after :func:`compile_flow` (the structure then matches): changing only
    ``max_attempts``, ``base_delay``, ``timeout`` or ``start_delay`` of the flow or a step,
    ``concurrency_limit``, ``on_limit`` or ``run_timeout`` of the flow or ``max_in_flight`` of
    a step takes effect at the next worker start, runs in flight included (their later
    retries, delays, timeouts and claims use the new values; a raised limit starts queued
    runs at the next tick). An option removed from the code goes back to
    its default (the flow's: 3 attempts, 5 s, 60 s; a step's: the flow's).

    Returns:
        The changes, as ``pgflow.sync_flow_options`` lists them.

    Raises:
        WorkerStartupError: the SQL refused an option value.
    """
    try:
        cur = await conn.execute(
            queries.SYNC_FLOW_OPTIONS,
            {"flow_slug": flow.slug, "shape": json.dumps(flow.shape())},
        )
    except RETRYABLE_DB_ERRORS:
        raise
    except psycopg.Error as exc:
        raise WorkerStartupError(
            f"options of flow {flow.slug!r} could not be applied: {error_text(exc)}"
        ) from exc
    row = await cur.fetchone()
    changes: list[dict[str, Any]] = list(row[0]) if row and row[0] else []
    for change in changes:  # step_slug None: the flow's own option
        logger.info("flow option changed", extra=fields(flow_slug=flow.slug, **change))
    return changes


async def sync_schedule(conn: Connection, flow: Flow) -> None:
    """Make the flow's default pg_cron schedule match its ``cron=`` / ``cron_input=``.

    A flow without ``cron`` has its default schedule removed (if any). Without pg_cron a
    flow that asks for a schedule is logged as an error and served anyway: its runs can
    still be started by hand.
    """
    cron = flow.cron
    params = {
        "flow_slug": flow.slug,
        "schedule": cron,
        "input": json.dumps(flow.cron_input if cron else {}),
    }
    try:
        async with conn.transaction():
            cur = await conn.execute(queries.SYNC_FLOW_SCHEDULE, params)
            row = await cur.fetchone()
    except RETRYABLE_DB_ERRORS:
        raise
    except psycopg.Error as exc:
        logger.error(
            "flow schedule not created; runs must be started by hand",
            extra=fields(flow_slug=flow.slug, cron=cron, error=error_text(exc)),
        )
        return
    action = row[0] if row else "none"
    if action != "none":
        logger.info(f"flow schedule {action}", extra=fields(flow_slug=flow.slug, cron=cron))


async def register_worker(
    conn: Connection,
    flow_slug: str,
    worker_id: uuid.UUID,
    function_name: str,
    statement: LiteralString = queries.REGISTER_WORKER,
) -> None:
    """Insert this process's ``pgflow.workers`` row for a flow (``queue_name`` = slug).

    ``statement``: the mode's (``register_worker`` of a :class:`SqlMode`).
    """
    # UniqueViolation: the id is our own fresh uuid4, so an earlier attempt committed
    # before its connection died; the row is ours.
    with contextlib.suppress(pg_errors.UniqueViolation):
        await conn.execute(
            statement,
            {"worker_id": worker_id, "queue_name": flow_slug, "function_name": function_name},
        )
    logger.info("worker registered", extra=fields(flow_slug=flow_slug, worker_id=str(worker_id)))


async def enable_notify(conn: Connection, flow_slug: str, throttle_ms: int) -> None:
    """Enable pgmq's NOTIFY on insert for the flow queue unless it already is.

    ``pgflow.enable_flow_notify`` serialises workers starting together, so the trigger is
    created once, and needs no pgmq privilege of the worker. If it fails (e.g. a pgmq
    without NOTIFY support) the worker just polls.
    """
    if flow_slug != flow_slug.lower():
        logger.warning(
            "pgmq does not notify for queue names with upper-case letters; "
            "this flow is polled only",
            extra=fields(flow_slug=flow_slug),
        )
    params = {"flow_slug": flow_slug, "throttle_ms": throttle_ms}
    try:
        async with conn.transaction():
            cur = await conn.execute(queries.ENABLE_FLOW_NOTIFY, params)
            row = await cur.fetchone()
    except RETRYABLE_DB_ERRORS:
        raise
    except psycopg.Error as exc:
        logger.warning(
            "could not enable NOTIFY on the flow queue; polling only",
            extra=fields(flow_slug=flow_slug, error=error_text(exc)),
        )
        return
    if row and row[0]:
        logger.info("NOTIFY enabled on the flow queue", extra=fields(flow_slug=flow_slug))
