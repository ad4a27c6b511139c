"""Calling a handler: what it receives, how its result becomes JSON, the thread a sync one runs in.

Used by :mod:`pgflow.worker.executor`, which runs a claimed task to its report.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pgflow.dsl import Step


def handler_input(step: Step, record: Mapping[str, Any]) -> Any:
    """Return what the step's handler receives, as upstream pgflow's TS workers do.

    Root single step: the run input (``flow_input``; SQL puts ``{}`` in ``input``).
    Dependent single step: ``{dep_slug: output}`` over completed dependencies. Map step:
    one array element. The last two are ``record["input"]`` as ``start_tasks`` built it.
    """
    if step.step_type == "single" and step.is_root:
        return record["flow_input"]
    return record["input"]


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


def run_in_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Run a sync handler in its own daemon thread; return a future for its result.

    A thread per task, not a shared pool: a handler that outlives its timeout (a thread
    cannot be killed) then occupies nothing others need, and daemon threads never keep a
    stopping process alive after the shutdown grace.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

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
