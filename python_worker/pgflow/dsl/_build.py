"""Build a validated Step from what a decorator was given."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from pgflow.dsl._rules import (
    STEP_OPTION_MINIMUMS,
    RuleViolation,
    check_option,
    check_pattern,
    check_slug,
    check_when_mode,
)
from pgflow.dsl.step import Handler, Step, StepType, inspect_handler
from pgflow.dsl.wait import Wait, signal_wait

WAIT_OPTION_NAMES = ("wait_for", "wait_timeout", "on_timeout", "signal_match")
"""Keyword options of a step decorator that make the step wait for a signal."""

OPTION_NAMES = (
    *STEP_OPTION_MINIMUMS,
    "if_",
    "if_not",
    "when_unmet",
    "when_exhausted",
    *WAIT_OPTION_NAMES,
)
"""Keyword options shared by every step decorator."""

MakeWait = Callable[[tuple[str, ...]], Wait]
"""Builds the wait of a step from its checked dependencies (raises RuleViolation)."""


class _CommonOptions(TypedDict, total=False):
    """The keyword options of every step decorator (types for checkers; see ``Flow.step``)."""

    slug: str | None
    max_attempts: int | None
    base_delay: int | None
    timeout: int | None
    start_delay: int | None
    max_in_flight: int | None
    if_: dict[str, Any] | None
    if_not: dict[str, Any] | None
    when_unmet: str | None
    when_exhausted: str | None
    wait_for: str | None
    wait_timeout: int | None
    on_timeout: str | None
    signal_match: dict[str, Any] | None


class StepOptions(_CommonOptions, total=False):
    """The keyword options of ``Flow.step`` and ``Flow.array``."""

    depends_on: Sequence[str] | None


class MapOptions(_CommonOptions, total=False):
    """The keyword options of ``Flow.map``."""

    array: str | None


def step_name(handler: object, slug: object) -> str:
    """Return the name to use for a step in messages: its slug, else the handler's name."""
    candidate = slug if slug is not None else getattr(handler, "__name__", None)
    return candidate if isinstance(candidate, str) else repr(candidate)


def build_step(
    defined: Mapping[str, Step],
    handler: Handler | None,
    *,
    step_type: StepType,
    is_array: bool,
    slug: str | None,
    depends_on: object,
    options: Mapping[str, Any],
    make_wait: MakeWait | None = None,
) -> Step:
    """Validate one step definition and return its Step.

    Args:
        defined: Steps already in the flow, by slug, in definition order.
        handler: The decorated object; None for a step without handler (``Flow.wait``,
            ``Flow.sleep``), which must then have a ``slug`` and a ``make_wait``.
        step_type: ``"single"`` or ``"map"``.
        is_array: Defined with ``Flow.array``.
        slug: The given slug, or None to use the handler's ``__name__``.
        depends_on: ``depends_on=`` of step/array, or ``array=`` of map, as given.
        options: Every name of :data:`OPTION_NAMES` with its given value.
        make_wait: The wait of a step without handler, built from its dependencies; None
            reads the wait options (``wait_for`` ...) of ``options`` instead.

    Returns:
        The step, with a private copy of its patterns.

    Raises:
        RuleViolation: The definition breaks a rule (see ``pgflow.dsl._rules`` and
            ``pgflow.dsl.wait``).
    """
    if handler is not None and not callable(handler):
        raise RuleViolation("handler_callable", f"the handler must be callable, got {handler!r}")
    step_slug = _step_slug(handler, slug)
    if step_slug in defined:
        raise RuleViolation("duplicate_step", f"a step {step_slug!r} is already defined")
    if step_type == "map":
        depends_on = _array_dependencies(depends_on)
    dependencies = _dependencies(step_slug, depends_on, defined)
    ints = {
        name: check_option(name, options[name], minimum)
        for name, minimum in STEP_OPTION_MINIMUMS.items()
    }
    when_unmet = check_when_mode("when_unmet", options["when_unmet"])
    when_exhausted = check_when_mode("when_exhausted", options["when_exhausted"])
    if_ = check_pattern("if_", options["if_"])
    if_not = check_pattern("if_not", options["if_not"])
    if when_unmet is not None and if_ is None and if_not is None:
        raise RuleViolation(
            "when_unmet_without_condition",
            "when_unmet only applies to a step with a condition (if_ or if_not)",
        )
    if make_wait is not None:
        wait: Wait | None = make_wait(dependencies)
    else:
        wait = _decorator_wait(step_type, options)
    accepts_context, is_async = (False, False) if handler is None else inspect_handler(handler)
    return Step(
        slug=step_slug,
        handler=handler,
        step_type=step_type,
        dependencies=dependencies,
        if_=if_,
        if_not=if_not,
        when_unmet=when_unmet,
        when_exhausted=when_exhausted,
        is_array=is_array,
        accepts_context=accepts_context,
        is_async=is_async,
        wait=wait,
        **ints,
    )


def _decorator_wait(step_type: StepType, options: Mapping[str, Any]) -> Wait | None:
    """The wait set by ``wait_for=`` (and its companions) of a decorator, or None."""
    given = [name for name in WAIT_OPTION_NAMES if options.get(name) is not None]
    if not given:
        return None
    if step_type == "map":
        raise RuleViolation(
            "wait_on_map",
            f"a map step cannot wait (got {', '.join(given)}); only single steps wait: make "
            "the array step the map consumes depend on a flow.wait step (or wait itself)",
        )
    if options.get("wait_for") is None:
        raise RuleViolation(
            "wait_option_without_wait_for",
            f"{', '.join(given)} only applies to a step that waits for a signal: add wait_for=",
        )
    return signal_wait(
        options["wait_for"],
        match=options.get("signal_match"),
        timeout=options.get("wait_timeout"),
        on_timeout=options.get("on_timeout"),
        runs_handler=True,
        names=("wait_for", "signal_match", "wait_timeout"),
    )


def _step_slug(handler: Handler | None, slug: str | None) -> str:
    if slug is not None or handler is None:
        return check_slug(slug, what="step")
    name = getattr(handler, "__name__", None)
    if not isinstance(name, str):
        raise RuleViolation("slug_type", "the handler has no __name__: pass slug=")
    try:
        return check_slug(name, what="step")
    except RuleViolation as violation:
        violation.detail += " (taken from the handler's name; pass slug= to choose one)"
        raise


def _dependencies(
    step_slug: str, depends_on: object, defined: Mapping[str, Step]
) -> tuple[str, ...]:
    if depends_on is None:
        return ()
    if isinstance(depends_on, str) or not isinstance(depends_on, Sequence):
        raise RuleViolation(
            "dependency_type", f"depends_on must be a list of step slugs, got {depends_on!r}"
        )
    dependencies: list[str] = []
    for dependency in depends_on:
        if not isinstance(dependency, str):
            raise RuleViolation(
                "dependency_type", f"depends_on holds {dependency!r}, which is not a slug"
            )
        if dependency in dependencies:
            raise RuleViolation(
                "duplicate_dependency", f"dependency {dependency!r} is listed twice"
            )
        if dependency == step_slug:
            raise RuleViolation("self_dependency", "a step cannot depend on itself")
        if dependency not in defined:
            known = ", ".join(defined) or "none"
            raise RuleViolation(
                "unknown_dependency",
                f"dependency {dependency!r} is not defined earlier in the flow "
                f"(defined so far: {known}); define a step before the steps using it",
            )
        dependencies.append(dependency)
    return tuple(dependencies)


def _array_dependencies(array: object) -> list[str] | None:
    """Turn ``Flow.map``'s ``array=`` into its dependency list (none, or one slug).

    Raises:
        RuleViolation: ``map_one_dependency`` for several slugs, ``dependency_type`` for
            anything else that is not one slug.
    """
    if array is None:
        return None
    if isinstance(array, str):
        return [array]
    if isinstance(array, list | tuple) and len(array) > 1:
        raise RuleViolation(
            "map_one_dependency",
            f"a map step has at most one dependency, got {list(array)!r}; a map maps over "
            'one step\'s array (array="slug") or, without array=, over the run input',
        )
    raise RuleViolation("dependency_type", f"array= takes one step slug, got {array!r}")
