"""Run a flow's run to its end inside a test: the worker's SQL calls, no worker process.

:func:`run_flow` starts a run with ``pgflow.start_flow`` and drives it as a worker would:
``read_and_start_tasks`` claims the due tasks, the handlers run in the test process (the
step's own, or an override), and ``complete_tasks`` / ``fail_tasks`` report each outcome,
so the run goes through exactly the transitions it goes through in production (retries,
backoff, conditions, map steps, waits, run deadlines). When nothing is due, it calls
``pgflow.tick()`` and then moves the engine's clock (``pgflow.advance_clock``) to the next
thing that will be due: a delayed or backed-off task, a wait's timeout, a timer, the run's
deadline. A run that waits for a signal with no timeout stops there, and the result says
which signals it waits for (:attr:`FlowRun.waiting_for`); send one with
``pgflow_client.send_signal`` and call :func:`continue_run`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import json
import uuid
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Final, LiteralString, TypedDict, TypeVar, Unpack

import psycopg

from pgflow.dsl import Flow, Step
from pgflow.dsl.step import inspect_handler
from pgflow.testing.driver import RunDriver
from pgflow.testing.results import FlowRun
from pgflow.worker import startup

_START: Final[LiteralString] = (
    "select run_id::text from pgflow.start_flow(%(flow_slug)s, %(input)s::jsonb, %(run_id)s::uuid)"
)
_RUN_FLOW: Final[LiteralString] = (
    "select flow_slug from pgflow.runs where run_id = %(run_id)s::uuid"
)

Handler = Callable[..., Any]
T = TypeVar("T")


class RunOptions(TypedDict, total=False):
    """How :func:`run_flow` and :func:`continue_run` drive a run (keyword arguments).

    Attributes:
        overrides: ``{step_slug: handler}``: handlers run instead of the step's own, with
            the same conventions (``(input)`` or ``(input, ctx)``, plain or ``async def``).
        move_clock: when nothing is due, move the engine's clock to the next due time of
            the run (a delay, a backoff, a wait's timeout, a timer, its deadline); default
            True. False: stop there.
        max_handler_calls: stop with :class:`~pgflow.errors.RunStalled` after this many
            calls of the run's handlers (default 10,000).
    """

    overrides: Mapping[str, Handler] | None
    move_clock: bool
    max_handler_calls: int


def run_flow(
    flow: Flow,
    input: Any,
    *,
    dsn: str,
    run_id: str | uuid.UUID | None = None,
    **options: Unpack[RunOptions],
) -> FlowRun:
    """Start a run of ``flow`` and drive it to its end in this process; return it.

    Blocking; from a running event loop (an async test) it runs in a thread with a loop of
    its own, so its async handlers cannot await the test loop's futures: use
    :func:`run_flow_async` there. The fixture ``run_flow`` binds ``dsn``.

    Args:
        flow: the flow (``pgflow.Flow``); it is created in the database from its definition
            if missing (as a worker does at start), and its options synced.
        input: the run input (any JSON value).
        dsn: a database with pgflow installed (the ``pgflow_dsn`` fixture).
        run_id: the run's id (default: a new uuid).
        **options: ``overrides``, ``move_clock``, ``max_handler_calls``
            (:class:`RunOptions`).

    Returns:
        The run as stored (:class:`~pgflow.testing.FlowRun`): ``completed``, ``failed``,
        ``cancelled``, ``expired``, or ``started`` while it waits for a signal nothing
        will send (:attr:`~pgflow.testing.FlowRun.waiting_for`).

    Raises:
        ValueError: an override names a step the flow does not have, or one without handler.
        RunStalled: the run ran away or made no progress.
        pgflow.errors.FlowShapeMismatch: the database holds a different flow of that slug.
        psycopg.Error: the database refused a call (e.g. an input that is not JSON).
    """
    return _blocking(run_flow_async(flow, input, dsn=dsn, run_id=run_id, **options))


def continue_run(
    flow: Flow, run_id: str | uuid.UUID, *, dsn: str, **options: Unpack[RunOptions]
) -> FlowRun:
    """Drive an existing run of ``flow`` on to its end, as :func:`run_flow` does.

    For a run started another way (``pgflow_client.start_flow`` with keys or a deadline),
    or one that stopped waiting for a signal the test has now sent. Arguments, result and
    errors as :func:`run_flow`; ``LookupError`` for an unknown run, ``ValueError`` for a
    run of another flow.
    """
    return _blocking(continue_run_async(flow, run_id, dsn=dsn, **options))


async def run_flow_async(
    flow: Flow,
    input: Any,
    *,
    dsn: str,
    run_id: str | uuid.UUID | None = None,
    **options: Unpack[RunOptions],
) -> FlowRun:
    """:func:`run_flow` for async tests: the same, awaited on the running loop."""
    steps = _steps_with_overrides(flow, options.get("overrides"))
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await _prepare(conn, flow)
        cur = await conn.execute(
            _START,
            {
                "flow_slug": flow.slug,
                "input": json.dumps(input),
                "run_id": None if run_id is None else str(run_id),
            },
        )
        row = await cur.fetchone()
        assert row is not None
        return await _driver(conn, flow, steps, str(row[0]), options).drive()


async def continue_run_async(
    flow: Flow, run_id: str | uuid.UUID, *, dsn: str, **options: Unpack[RunOptions]
) -> FlowRun:
    """:func:`continue_run` for async tests."""
    steps = _steps_with_overrides(flow, options.get("overrides"))
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await _prepare(conn, flow)
        cur = await conn.execute(_RUN_FLOW, {"run_id": str(run_id)})
        row = await cur.fetchone()
        if row is None:
            raise LookupError(f"no run {run_id} in this database")
        if row[0] != flow.slug:
            raise ValueError(f"run {run_id} is a run of flow {row[0]!r}, not of {flow.slug!r}")
        return await _driver(conn, flow, steps, str(run_id), options).drive()


def _driver(
    conn: psycopg.AsyncConnection[Any],
    flow: Flow,
    steps: dict[str, Step],
    run_id: str,
    options: RunOptions,
) -> RunDriver:
    return RunDriver(
        conn,
        flow,
        steps,
        run_id,
        options.get("move_clock", True),
        options.get("max_handler_calls", 10_000),
    )


def _blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end: on a new loop here, or in a thread when a loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pgflow-run-flow") as pool:
        return pool.submit(asyncio.run, coro).result()


def _steps_with_overrides(flow: Flow, overrides: Mapping[str, Handler] | None) -> dict[str, Step]:
    steps = {step.slug: step for step in flow.steps}
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ValueError(
            f"overrides: a mapping {{step_slug: handler}}, got {type(overrides).__name__}"
        )
    for slug, handler in (overrides or {}).items():
        step = steps.get(slug)
        if step is None:
            raise ValueError(
                f"overrides: flow {flow.slug!r} has no step {slug!r} (steps: {', '.join(steps)})"
            )
        if step.handler is None:
            raise ValueError(
                f"overrides: step {slug!r} has no handler (a flow.wait / flow.sleep step): "
                "no task runs for it"
            )
        if not callable(handler):
            raise ValueError(f"overrides: the handler for {slug!r} is not callable: {handler!r}")
        accepts_context, is_async = inspect_handler(handler)
        steps[slug] = dataclasses.replace(
            step, handler=handler, accepts_context=accepts_context, is_async=is_async
        )
    return steps


def prepare_flow(flow: Flow, *, dsn: str) -> None:
    """Create ``flow`` in the database from its definition (or verify it), as a worker does.

    For runs started another way than :func:`run_flow` (``pgflow_client.start_flow`` with an
    ``idempotency_key``, a ``concurrency_key`` or a ``deadline``; SQL), then driven with
    :func:`continue_run`. ``run_flow`` and ``continue_run`` call it themselves.

    Raises:
        pgflow.errors.FlowShapeMismatch: the database holds a different flow of that slug.
    """

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await _prepare(conn, flow)

    _blocking(main())


async def _prepare(conn: psycopg.AsyncConnection[Any], flow: Flow) -> None:
    """Create or verify the flow and sync its options, as a worker does at start."""
    await startup.compile_flow(conn, flow, allow_data_loss=False)
    await startup.sync_options(conn, flow)
