"""Turn a flow definition into its shape JSON (upstream's format) or into a SQL script.

The shape is what a worker passes to ``pgflow.ensure_flow_compiled(slug, shape)``: the
database creates the flow from it, or compares it with the stored definition. The SQL
script (``create_flow`` then one ``add_step`` per step, each followed by ``add_wait`` or
``add_timer`` when the step waits) builds the same definition, for migrations or for
databases that workers do not compile into.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pgflow.dsl.flow import Flow
    from pgflow.dsl.step import Step
    from pgflow.dsl.wait import Wait

# (DSL/SQL name, shape key) of the integer options, in create_flow's / add_step's parameter
# order; the flow's on_limit (text) is handled on its own.
_SHARED_OPTIONS = (
    ("max_attempts", "maxAttempts"),
    ("base_delay", "baseDelay"),
    ("timeout", "timeout"),
)
_FLOW_OPTIONS = (
    *_SHARED_OPTIONS,
    ("concurrency_limit", "concurrencyLimit"),
    ("run_timeout", "runTimeout"),
)
_STEP_OPTIONS = (*_SHARED_OPTIONS, ("start_delay", "startDelay"), ("max_in_flight", "maxInFlight"))


def flow_shape(flow: Flow) -> dict[str, Any]:
    """Return the shape of ``flow`` in upstream's format (as ``pgflow._get_flow_shape`` builds it).

    Args:
        flow: The flow definition.

    Returns:
        ``{"steps": [step shape, ...], "options": {...}}``; each step shape is
        ``{"slug", "stepType", "dependencies" (sorted), "whenUnmet", "whenExhausted",
        "requiredInputPattern", "forbiddenInputPattern", "options"}`` with patterns as
        ``{"defined": False}`` or ``{"defined": True, "value": <object>}``. An
        ``"options"`` object only holds the options that were set (camelCase keys:
        maxAttempts, baseDelay, timeout; for the flow also pgflow-py's concurrencyLimit,
        onLimit (a string) and runTimeout; for steps startDelay and pgflow-py's
        maxInFlight), and is left out when none were (so flows without pgflow-py options
        have upstream's shape). A step that waits also has ``"wait"``: ``{"kind":
        "signal", "signal": <name>, "match": <object or null>, "timeout": <seconds or
        null>, "onTimeout": <mode>, "handler": <bool>}`` or ``{"kind": "timer",
        "seconds": <int or null>, "until": <path or null>}``; other steps have no
        ``"wait"`` key (so shapes of flows without waits are upstream's). Steps are in
        definition order. The result is a fresh copy.
    """
    shape: dict[str, Any] = {"steps": [_step_shape(step) for step in flow.steps]}
    options: dict[str, Any] = _set_options(flow, _FLOW_OPTIONS)
    if flow.on_limit is not None:
        options["onLimit"] = flow.on_limit
    if options:
        shape["options"] = options
    return shape


def _step_shape(step: Step) -> dict[str, Any]:
    shape: dict[str, Any] = {
        "slug": step.slug,
        "stepType": step.step_type,
        "dependencies": sorted(step.dependencies),
        "whenUnmet": step.when_unmet or "skip",
        "whenExhausted": step.when_exhausted or "fail",
        "requiredInputPattern": _pattern_shape(step.if_),
        "forbiddenInputPattern": _pattern_shape(step.if_not),
    }
    options = _set_options(step, _STEP_OPTIONS)
    if options:
        shape["options"] = options
    if step.wait is not None:
        shape["wait"] = wait_shape(step.wait)
    return shape


def wait_shape(wait: Wait) -> dict[str, Any]:
    """Return the ``"wait"`` entry of a step shape (as ``pgflow._get_flow_shape`` builds it).

    Args:
        wait: The step's wait.

    Returns:
        For a signal: ``{"kind", "signal", "match", "timeout", "onTimeout", "handler"}``;
        for a timer: ``{"kind", "seconds", "until"}``; every key present, unset values None.
    """
    if wait.is_signal:
        return {
            "kind": "signal",
            "signal": wait.signal_name,
            "match": copy.deepcopy(wait.signal_match),
            "timeout": wait.timeout,
            "onTimeout": wait.on_timeout,
            "handler": wait.runs_handler,
        }
    return {"kind": "timer", "seconds": wait.seconds, "until": wait.until}


def _pattern_shape(pattern: dict[str, Any] | None) -> dict[str, Any]:
    if pattern is None:
        return {"defined": False}
    return {"defined": True, "value": copy.deepcopy(pattern)}


def _set_options(owner: object, names: tuple[tuple[str, str], ...]) -> dict[str, int]:
    values = {key: getattr(owner, attribute) for attribute, key in names}
    return {key: value for key, value in values.items() if value is not None}


def flow_to_sql(flow: Flow) -> str:
    """Return a SQL script that defines ``flow`` with ``create_flow`` and ``add_step``.

    Only options that were set are passed (as named arguments: pgflow-py's
    ``concurrency_limit``, ``on_limit``, ``run_timeout`` and ``max_in_flight`` too), so the
    SQL defaults apply to the others exactly as with ``ensure_flow_compiled``. Literals are
    quoted so that any pattern content is safe to run.

    Args:
        flow: The flow definition.

    Returns:
        One ``SELECT pgflow.create_flow(...);`` line, then one ``SELECT
        pgflow.add_step(...);`` line per step in definition order, each followed by a
        ``SELECT pgflow.add_wait(...);`` or ``SELECT pgflow.add_timer(...);`` line when
        the step waits; newline-terminated.
    """
    flow_args = [sql_literal(flow.slug)]
    flow_args += _named_int_args(flow, _FLOW_OPTIONS)
    if flow.on_limit is not None:
        flow_args.append(f"on_limit => {sql_literal(flow.on_limit)}")
    lines = [f"SELECT pgflow.create_flow({', '.join(flow_args)});"]
    for step in flow.steps:
        args = [sql_literal(flow.slug), sql_literal(step.slug)]
        if step.dependencies:
            args.append(f"ARRAY[{', '.join(sql_literal(dep) for dep in step.dependencies)}]")
        args += _named_int_args(step, _STEP_OPTIONS)
        if step.step_type != "single":
            args.append(f"step_type => {sql_literal(step.step_type)}")
        for name, pattern in (
            ("required_input_pattern", step.if_),
            ("forbidden_input_pattern", step.if_not),
        ):
            if pattern is not None:
                args.append(f"{name} => {_jsonb_literal(pattern)}")
        for name, mode in (
            ("when_unmet", step.when_unmet),
            ("when_exhausted", step.when_exhausted),
        ):
            if mode is not None:
                args.append(f"{name} => {sql_literal(mode)}")
        lines.append(f"SELECT pgflow.add_step({', '.join(args)});")
        if step.wait is not None:
            lines.append(_wait_sql(flow.slug, step.slug, step.wait))
    return "\n".join(lines) + "\n"


def _wait_sql(flow_slug: str, step_slug: str, wait: Wait) -> str:
    """The ``add_wait`` / ``add_timer`` call storing ``wait`` (set values only)."""
    args = [sql_literal(flow_slug), sql_literal(step_slug)]
    if not wait.is_signal:
        if wait.seconds is not None:
            args.append(f"seconds => {int(wait.seconds)}")
        if wait.until is not None:
            args.append(f"until_path => {sql_literal(wait.until)}")
        return f"SELECT pgflow.add_timer({', '.join(args)});"
    args.append(sql_literal(wait.signal_name or ""))
    if wait.signal_match is not None:
        args.append(f"signal_match => {_jsonb_literal(wait.signal_match)}")
    if wait.timeout is not None:
        args.append(f"timeout => {int(wait.timeout)}")
    args.append(f"on_timeout => {sql_literal(wait.on_timeout)}")
    args.append(f"runs_handler => {'true' if wait.runs_handler else 'false'}")
    return f"SELECT pgflow.add_wait({', '.join(args)});"


def _jsonb_literal(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    return f"{sql_literal(text)}::jsonb"


def _named_int_args(owner: object, names: tuple[tuple[str, str], ...]) -> list[str]:
    args = []
    for attribute, _key in names:
        value = getattr(owner, attribute)
        if value is not None:
            args.append(f"{attribute} => {int(value)}")
    return args


def sql_literal(text: str) -> str:
    """Quote ``text`` as a SQL string literal, whatever ``standard_conforming_strings`` is.

    Single quotes are doubled; text containing a backslash becomes an escape string
    (``E'...'``) with the backslashes doubled, which reads the same under either setting.

    Args:
        text: Any text without NUL characters (PostgreSQL text cannot hold them).

    Returns:
        The literal, quotes included.

    Raises:
        ValueError: ``text`` contains a NUL character.
    """
    if "\x00" in text:
        raise ValueError("a SQL literal cannot contain a NUL character")
    quoted = text.replace("'", "''")
    if "\\" in quoted:
        return "E'" + quoted.replace("\\", "\\\\") + "'"
    return "'" + quoted + "'"
