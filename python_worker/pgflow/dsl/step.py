"""The Step record, and how a handler's calling convention is detected."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pgflow.dsl._rules import RuleViolation
from pgflow.dsl.wait import Wait

StepType = Literal["single", "map"]

Handler = Callable[..., Any]
"""A step handler: ``handler(input, ctx)`` or ``handler(input)``, plain or ``async def``."""


@dataclass(frozen=True)
class Step:
    """One step of a flow, as registered by a ``Flow`` method (see ``pgflow.dsl``).

    ``Flow.step``, ``Flow.array`` and ``Flow.map`` register a step with a handler,
    ``Flow.wait`` and ``Flow.sleep`` one without.

    Options left as None are not sent to the database, which then applies its defaults
    (max_attempts, base_delay and timeout inherit the flow's; start_delay is 0;
    max_in_flight is no limit; when_unmet is ``"skip"``; when_exhausted is ``"fail"``).

    Attributes:
        slug: Step slug, unique within the flow.
        handler: The user function, called with the step input (and the context); None
            for a step without handler (``Flow.wait``, ``Flow.sleep``), which never gets
            a task: the database completes it when its wait resolves.
        step_type: ``"single"`` (one task) or ``"map"`` (one task per array element).
        dependencies: Slugs of the steps this one waits for, in the order given.
        max_attempts: Attempts before the step fails, first try included.
        base_delay: Retry backoff base in seconds (retry n waits base_delay * 2**n).
        timeout: Seconds a task may run before it counts as stalled.
        start_delay: Seconds to wait before the step's first task becomes visible.
        max_in_flight: Most tasks of the step started at once, across runs and workers.
        if_: JSON object the input must contain (``@>``) for the step to run.
        if_not: JSON object the input must not contain for the step to run.
        when_unmet: What an unmet condition does: ``"fail"``, ``"skip"``, ``"skip-cascade"``.
        when_exhausted: What running out of attempts does (same three values).
        is_array: Defined with ``Flow.array``: a single step whose output must be an array.
        accepts_context: The handler takes ``(input, ctx)``; False when it takes ``(input)``.
        is_async: The handler is a coroutine function (``async def``).
        wait: What the step waits for before it runs (a signal or a time), or None.
    """

    slug: str
    handler: Handler | None
    step_type: StepType = "single"
    dependencies: tuple[str, ...] = ()
    max_attempts: int | None = None
    base_delay: int | None = None
    timeout: int | None = None
    start_delay: int | None = None
    max_in_flight: int | None = None
    if_: dict[str, Any] | None = None
    if_not: dict[str, Any] | None = None
    when_unmet: str | None = None
    when_exhausted: str | None = None
    is_array: bool = False
    accepts_context: bool = True
    is_async: bool = False
    wait: Wait | None = None

    @property
    def is_root(self) -> bool:
        """True when the step has no dependencies (its input comes from the run input)."""
        return not self.dependencies

    @property
    def is_map(self) -> bool:
        """True for a map step (one task per element of an array)."""
        return self.step_type == "map"

    @property
    def has_handler(self) -> bool:
        """True when the step runs a handler (False for ``Flow.wait`` / ``Flow.sleep`` steps)."""
        return self.handler is not None


def inspect_handler(handler: object) -> tuple[bool, bool]:
    """Find out how to call a handler.

    Args:
        handler: The object registered as a step handler.

    Returns:
        ``(accepts_context, is_async)``: whether it takes ``(input, ctx)`` rather than
        ``(input)``, and whether calling it returns a coroutine (``async def``).
        A handler whose signature cannot be read is assumed to take ``(input, ctx)``.

    Raises:
        RuleViolation: ``handler_callable`` when it is not callable;
            ``handler_signature`` when it cannot take one positional argument, or needs
            more than two, or has required keyword-only parameters.
    """
    if not callable(handler):
        raise RuleViolation("handler_callable", f"the handler must be callable, got {handler!r}")
    is_async = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004  (instances with an async __call__)
    )
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return True, is_async

    positional = 0
    required = 0
    variadic = False
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
            required += parameter.default is parameter.empty
        elif parameter.kind is parameter.VAR_POSITIONAL:
            variadic = True
        elif parameter.kind is parameter.KEYWORD_ONLY and parameter.default is parameter.empty:
            raise RuleViolation(
                "handler_signature",
                f"the handler has a required keyword-only parameter {parameter.name!r}; "
                "handlers are called as handler(input, ctx) or handler(input)",
            )
    if positional == 0 and not variadic:
        raise RuleViolation(
            "handler_signature",
            f"the handler takes no positional parameter{signature}; "
            "handlers are called as handler(input, ctx) or handler(input)",
        )
    if required > 2:
        raise RuleViolation(
            "handler_signature",
            f"the handler requires {required} positional parameters{signature}; "
            "handlers are called as handler(input, ctx) or handler(input)",
        )
    return variadic or positional >= 2, is_async
