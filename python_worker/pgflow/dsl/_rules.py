"""Validation rules of flow definitions.

Each ``check_*`` function enforces one rule and raises :class:`RuleViolation` (rule id and
explanation, without flow or step names). :class:`~pgflow.dsl.Flow` catches it and raises
:class:`~pgflow.errors.FlowDefinitionError`, which adds the flow and step slugs, so that
every message names the flow, the step and the rule.

The rules are those of the upstream DSL, plus what our SQL rejects anyway
(flow slugs over 47 characters, options outside the int range, NUL characters in patterns),
so that a bad definition fails when its module is imported rather than when a worker
first talks to the database.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

SLUG_MAX_LENGTH = 128
"""Longest flow or step slug (``pgflow.is_valid_slug``)."""

FLOW_SLUG_MAX_LENGTH = 47
"""Longest flow slug: each flow has a pgmq queue named like it, and pgmq allows 47 characters."""

RESERVED_SLUGS = frozenset({"run"})
"""Slugs that ``pgflow.is_valid_slug`` rejects although they match the pattern."""

WHEN_MODES = ("fail", "skip", "skip-cascade")
"""Allowed values of ``when_unmet`` and ``when_exhausted``."""

SQL_INT_MAX = 2**31 - 1
"""Largest value of a PostgreSQL ``int`` column (every ``opt_*`` column is one)."""

FLOW_OPTION_MINIMUMS = {
    "max_attempts": 1,
    "base_delay": 1,
    "timeout": 3,
    "concurrency_limit": 1,
    "run_timeout": 1,
}
"""Smallest accepted value of each integer flow option (upstream DSL; SQL alone accepts 0
attempts). ``concurrency_limit`` and ``run_timeout`` are pgflow-py's, as SQL checks them."""

STEP_OPTION_MINIMUMS = {
    "max_attempts": 1,
    "base_delay": 1,
    "timeout": 3,
    "start_delay": 0,
    "max_in_flight": 1,
}
"""Smallest accepted value of each step option (as in the upstream DSL; ``max_in_flight`` is
pgflow-py's, as SQL checks it)."""

ON_LIMIT_MODES = ("queue", "reject")
"""Allowed values of a flow's ``on_limit`` (``pgflow.create_flow``)."""

_SLUG_PATTERN = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


class RuleViolation(Exception):
    """Internal: a rule was broken; the caller adds the flow and step slugs."""

    def __init__(self, rule: str, detail: str):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


def check_slug(slug: object, *, what: str, max_length: int = SLUG_MAX_LENGTH) -> str:
    """Check a flow or step slug as ``pgflow.is_valid_slug`` does.

    Args:
        slug: The candidate slug.
        what: ``"flow"`` or ``"step"``, used in the message.
        max_length: Longest accepted slug, in characters.

    Returns:
        The slug.

    Raises:
        RuleViolation: ``slug_type``, ``slug_format`` or ``slug_length``.
    """
    if not isinstance(slug, str):
        raise RuleViolation("slug_type", f"the {what} slug must be a str, got {slug!r}")
    if not _SLUG_PATTERN.fullmatch(slug):
        raise RuleViolation(
            "slug_format",
            f"{what} slug {slug!r} must match ^[a-zA-Z_][a-zA-Z0-9_]*$ "
            "(letters, digits and underscores, not starting with a digit)",
        )
    if slug in RESERVED_SLUGS:
        raise RuleViolation("slug_format", f"{what} slug {slug!r} is reserved")
    if len(slug) > max_length:
        reason = " (the pgmq queue name limit)" if max_length == FLOW_SLUG_MAX_LENGTH else ""
        raise RuleViolation(
            "slug_length",
            f"{what} slug is {len(slug)} characters long; at most {max_length} are allowed{reason}",
        )
    return slug


def check_option(name: str, value: object, minimum: int) -> int | None:
    """Check an integer option (attempt count or seconds); None means "not set".

    Args:
        name: Option name as in the DSL, e.g. ``"timeout"``.
        value: The given value.
        minimum: Smallest accepted value.

    Returns:
        The value, unchanged.

    Raises:
        RuleViolation: ``option_type`` for a non-int (bool, float and str included),
            ``option_range`` below ``minimum`` or above the PostgreSQL int range.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleViolation("option_type", f"option {name} must be an int or None, got {value!r}")
    if value < minimum or value > SQL_INT_MAX:
        raise RuleViolation(
            "option_range",
            f"option {name} must be between {minimum} and {SQL_INT_MAX}, got {value}",
        )
    return value


def check_when_mode(name: str, value: object) -> str | None:
    """Check ``when_unmet`` / ``when_exhausted``; None means "not set" (SQL default).

    Raises:
        RuleViolation: ``when_mode`` for anything but fail, skip or skip-cascade.
    """
    if value is None or (isinstance(value, str) and value in WHEN_MODES):
        return value
    allowed = ", ".join(repr(mode) for mode in WHEN_MODES)
    raise RuleViolation("when_mode", f"{name} must be one of {allowed}, got {value!r}")


def check_on_limit(value: object, concurrency_limit: int | None) -> str | None:
    """Check a flow's ``on_limit``; None means "not set" (SQL default ``"queue"``).

    Args:
        value: The given on_limit.
        concurrency_limit: The flow's checked concurrency_limit (None: no limit).

    Returns:
        The value, unchanged.

    Raises:
        RuleViolation: ``on_limit`` for anything but queue or reject;
            ``on_limit_without_concurrency_limit`` when set on a flow without a limit.
    """
    if value is None:
        return None
    if not (isinstance(value, str) and value in ON_LIMIT_MODES):
        allowed = ", ".join(repr(mode) for mode in ON_LIMIT_MODES)
        raise RuleViolation("on_limit", f"on_limit must be one of {allowed}, got {value!r}")
    if concurrency_limit is None:
        raise RuleViolation(
            "on_limit_without_concurrency_limit",
            f"on_limit needs concurrency_limit: on_limit={value!r} only applies to a flow "
            "with a concurrency_limit (add concurrency_limit=N, or leave on_limit out)",
        )
    return value


def check_pattern(name: str, pattern: object) -> dict[str, Any] | None:
    """Check a condition pattern (``if_`` / ``if_not``) and return a private JSON copy.

    A pattern is a JSON object matched by containment (``@>``) against the step input.
    Tuples become lists; the copy protects the step from later changes to ``pattern``.

    Args:
        name: ``"if_"`` or ``"if_not"``.
        pattern: The given pattern, or None.

    Returns:
        A deep copy made of dict, list, str, int, float, bool and None only.

    Raises:
        RuleViolation: ``pattern`` when it is not a mapping, or holds a value JSON cannot
            represent or PostgreSQL jsonb cannot store (NaN, infinity, non-str key, NUL
            character, unpaired surrogate, other types).
    """
    if pattern is None:
        return None
    if not isinstance(pattern, Mapping):
        raise RuleViolation(
            "pattern", f"{name} must be a dict (a JSON object pattern), got {pattern!r}"
        )
    copy: dict[str, Any] = _json_copy(pattern, name)
    return copy


def _json_copy(value: object, path: str) -> Any:
    """Return a JSON-only deep copy of ``value``, or raise RuleViolation naming ``path``."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RuleViolation("pattern", f"{path} is {value!r}, which JSON cannot represent")
        return value
    if isinstance(value, str):
        _check_jsonb_text(value, path)
        return value
    if isinstance(value, Mapping):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise RuleViolation(
                    "pattern", f"{path} has key {key!r}; JSON object keys must be str"
                )
            _check_jsonb_text(key, f"{path} key {key!r}")
            result[key] = _json_copy(item, f"{path}[{key!r}]")
        return result
    if isinstance(value, list | tuple):
        return [_json_copy(item, f"{path}[{index}]") for index, item in enumerate(value)]
    raise RuleViolation(
        "pattern", f"{path} is {value!r} ({type(value).__name__}), which is not JSON"
    )


def _check_jsonb_text(text: str, path: str) -> None:
    if "\x00" in text:
        raise RuleViolation("pattern", f"{path} contains a NUL character (jsonb rejects it)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RuleViolation(
            "pattern", f"{path} contains an unpaired surrogate (not valid UTF-8)"
        ) from None


_CRON_FIELD = re.compile(r"^[0-9*/,\-A-Za-z]+$")
_CRON_SECONDS = re.compile(r"^\s*([0-9]+)\s*seconds?\s*$")


def check_cron(cron: object) -> str | None:
    """Check a flow schedule: a 5-field cron expression or ``"N seconds"`` (1 to 59).

    Only the shape is checked here; pg_cron validates the expression itself when the
    schedule is created (``pgflow.schedule_flow``), and ``N seconds`` needs pg_cron >= 1.5.

    Raises:
        RuleViolation: ``cron`` when it is not such a string.
    """
    if cron is None:
        return None
    if not isinstance(cron, str):
        raise RuleViolation("cron", f"cron must be a str such as '0 * * * *', got {cron!r}")
    seconds = _CRON_SECONDS.match(cron)
    if seconds:
        if not 1 <= int(seconds.group(1)) <= 59:
            raise RuleViolation("cron", f"cron {cron!r}: second intervals must be 1 to 59")
        return cron.strip()
    fields = cron.split()
    if len(fields) != 5 or not all(_CRON_FIELD.match(field) for field in fields):
        raise RuleViolation(
            "cron",
            f"cron {cron!r} is not a 5-field cron expression (minute hour day month weekday)"
            " or 'N seconds'",
        )
    return " ".join(fields)


def check_cron_input(value: object) -> Any:
    """Check the input of scheduled runs and return a private JSON copy ({} when None).

    Raises:
        RuleViolation: ``cron_input`` when it holds a value JSON or jsonb cannot store.
    """
    if value is None:
        return {}
    try:
        return _json_copy(value, "cron_input")
    except RuleViolation as violation:
        raise RuleViolation("cron_input", violation.detail) from None
