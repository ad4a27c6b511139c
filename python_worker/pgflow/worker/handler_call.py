"""Calling a handler: what it receives, how its result becomes JSON, the thread a sync one runs in.

Used by :mod:`pgflow.worker.executor`, which runs a claimed task to its report, and by
:mod:`pgflow.testing.runner`, which runs a run inline in a test.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pgflow.context import Context
from pgflow.dsl import Step
from pgflow.errors import PermanentError


def handler_input(step: Step, record: Mapping[str, Any]) -> Any:
    """Return what the step's handler receives, as upstream pgflow's TS workers do.

    Root single step: the run input (``flow_input``; SQL puts ``{}`` in ``input``).
    Dependent single step: ``{dep_slug: output}`` over completed dependencies. Map step:
    one array element. The last two are ``record["input"]`` as ``start_tasks`` built it.
    """
    if step.step_type == "single" and step.is_root:
        return record["flow_input"]
    return record["input"]


async def invoke_handler(step: Step, value: Any, ctx: Context) -> Any:
    """Call the step handler with ``(input, ctx)`` or ``(input)`` and return its result.

    An ``async def`` handler is awaited on the running loop; a plain one runs in its own
    daemon thread (:func:`run_in_daemon_thread`); a plain one that returns an awaitable has
    it awaited. The worker and :func:`pgflow.testing.run_flow` both call handlers this way.

    Raises:
        PermanentError: the step has no handler (``flow.wait`` / ``flow.sleep``): the
            database completes such a step and never queues a task for it.
        BaseException: whatever the handler raises.
    """
    handler = step.handler
    if handler is None:
        raise PermanentError(
            f"step {step.slug!r} has no handler (a flow.wait / flow.sleep step) and cannot "
            "run on a worker; the database should have completed it without a task"
        )
    args = (value, ctx) if step.accepts_context else (value,)
    if step.is_async or inspect.iscoroutinefunction(handler):
        result = await handler(*args)
    else:
        # The outcome comes back as a value and is raised here, in this frame: an exception
        # set on the future would be thrown into the awaiting coroutine by asyncio, and a
        # GeneratorExit thrown there closes the coroutine instead of reaching the caller.
        ok, result = await run_in_daemon_thread(handler, *args)
        if not ok:
            raise result
    if inspect.isawaitable(result):  # a plain def that returned a coroutine
        result = await result
    return result


def encode_output(value: Any) -> str:
    """Serialise a handler result as JSON text for ``complete_tasks``.

    Every JSON value is kept as itself: ``None`` becomes ``null`` (JSON null, never SQL
    NULL), and ``0``, ``False``, ``""``, ``{}``, ``[]`` stay what they are.

    Raises:
        TypeError: the value is not JSON-serialisable (a set, an object, NaN/Infinity...).
    """
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(
            f"handler output is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def run_in_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[tuple[bool, Any]]:
    """Run a sync handler in its own daemon thread; return a future for its outcome.

    The future's result is ``(True, return value)`` or ``(False, the exception raised)``
    (any BaseException); the future itself never holds an exception.

    A thread per task, not a shared pool: a handler that outlives its timeout (a thread
    cannot be killed) then occupies nothing others need, and daemon threads never keep a
    stopping process alive after the shutdown grace.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[bool, Any]] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result((ok, value))

    def target() -> None:
        try:
            result = context.run(fn, *args)
        except BaseException as exc:
            outcome: tuple[bool, Any] = (False, exc)
        else:
            outcome = (True, result)
        with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name="pgflow-handler", daemon=True).start()
    return future
