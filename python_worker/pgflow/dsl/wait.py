"""The Wait record of a step that waits (for a signal or for a time), and its rules.

A step waits when it is defined with ``@flow.step(wait_for=...)`` (its handler runs once
the signal came), ``flow.wait(...)`` (no handler: its output is the signal's payload) or
``flow.sleep(...)`` (a timer: no handler, it completes when the time comes). The database
stores the wait with ``pgflow.add_wait`` / ``pgflow.add_timer`` (see those functions'
COMMENTs for how a wait behaves at run time).

The ``*_wait`` builders check a definition as those SQL functions do, and raise
:class:`~pgflow.dsl._rules.RuleViolation` so that a bad wait fails when its module is
imported, not when a worker first talks to the database.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pgflow.dsl._rules import RuleViolation, check_option, check_pattern

WaitKind = Literal["signal", "timer"]
OnTimeout = Literal["fail", "skip", "skip-cascade", "continue"]

ON_TIMEOUT_MODES: tuple[OnTimeout, ...] = ("fail", "skip", "skip-cascade", "continue")
"""Allowed values of ``on_timeout`` (``pgflow.add_wait``)."""

SIGNAL_NAME_MAX_LENGTH = 128
"""Longest signal name (``pgflow._check_signal_name``)."""

_UNTIL_PATH = re.compile(r"[^.\s]+(?:\.[^.\s]+)*")


@dataclass(frozen=True)
class Wait:
    """What a step waits for before it runs (or, without handler, before it completes).

    Attributes:
        kind: ``"signal"`` (a named signal sent to the run) or ``"timer"`` (a time).
        signal_name: Signal kind: the name of the signal the step takes.
        signal_match: Signal kind: JSON object the signal's payload must contain (``@>``);
            None takes any payload.
        timeout: Signal kind: seconds from when the step starts waiting until the wait
            times out; None waits for ever.
        on_timeout: Signal kind: what a timeout does: ``"fail"`` (the step fails, then its
            ``when_exhausted`` applies), ``"skip"``, ``"skip-cascade"`` (as an unmet
            condition) or ``"continue"`` (the step goes on without a signal).
        runs_handler: The step has a handler, which runs once the wait resolves; False for
            ``flow.wait`` (output: the signal's payload) and timers.
        seconds: Timer kind: seconds after the step starts waiting when it completes.
        until: Timer kind: where to read the ISO 8601 timestamp it completes at:
            ``"input.<key>..."`` (the run input) or ``"<dependency>.<key>..."``.
    """

    kind: WaitKind
    signal_name: str | None = None
    signal_match: dict[str, Any] | None = None
    timeout: int | None = None
    on_timeout: OnTimeout = "fail"
    runs_handler: bool = False
    seconds: int | None = None
    until: str | None = None

    @property
    def is_signal(self) -> bool:
        """True for a wait on a signal, False for a timer."""
        return self.kind == "signal"


def signal_wait(
    signal_name: object,
    *,
    match: object = None,
    timeout: object = None,
    on_timeout: object = None,
    runs_handler: bool,
    names: tuple[str, str, str] = ("signal", "match", "timeout"),
) -> Wait:
    """Check the settings of a wait on a signal and return its Wait.

    Args:
        signal_name: The signal name: 1 to 128 characters, not blank, without control
            characters or leading / trailing white space.
        match: None, or a JSON object the payload must contain.
        timeout: None, or seconds (an int >= 1).
        on_timeout: None (``"fail"``) or one of :data:`ON_TIMEOUT_MODES`.
        runs_handler: Whether the step has a handler that runs after the wait.
        names: How the caller calls the name, match and timeout arguments, for messages
            (``@flow.step`` says wait_for, signal_match and wait_timeout).

    Returns:
        The Wait (kind ``"signal"``), with a private copy of ``match``.

    Raises:
        RuleViolation: ``signal_name``, ``pattern`` (match), ``option_type`` /
            ``option_range`` (timeout) or ``on_timeout``.
    """
    name_arg, match_arg, timeout_arg = names
    name = check_signal_name(signal_name, name_arg)
    pattern = check_pattern(match_arg, match)
    seconds = check_option(timeout_arg, timeout, 1)
    mode = check_on_timeout(on_timeout)
    return Wait(
        kind="signal",
        signal_name=name,
        signal_match=pattern,
        timeout=seconds,
        on_timeout=mode,
        runs_handler=runs_handler,
    )


def timer_wait(*, seconds: object, until: object, dependencies: Sequence[str]) -> Wait:
    """Check the settings of a timer and return its Wait.

    Args:
        seconds: Seconds to sleep (an int >= 0), or None when ``until`` is given.
        until: A path ``"input.<key>..."`` or ``"<dependency>.<key>..."`` (the root alone
            reads the whole run input or dependency output), or None when ``seconds`` is
            given. ``input`` always means the run input.
        dependencies: The step's dependencies (the roots ``until`` may use besides input).

    Returns:
        The Wait (kind ``"timer"``).

    Raises:
        RuleViolation: ``sleep_time`` (both or neither given), ``option_type`` /
            ``option_range`` (seconds), ``sleep_until`` (a bad path).
    """
    if (seconds is None) == (until is None):
        raise RuleViolation(
            "sleep_time",
            "flow.sleep takes exactly one of seconds= (a duration) and until= (a path to a "
            f"timestamp), got seconds={seconds!r} and until={until!r}",
        )
    checked_seconds = check_option("seconds", seconds, 0)
    path = None if until is None else check_until_path(until, dependencies)
    return Wait(kind="timer", seconds=checked_seconds, until=path)


def check_signal_name(name: object, argument: str = "signal") -> str:
    """Check a signal name as ``pgflow._check_signal_name`` does.

    Args:
        name: The candidate name.
        argument: The argument's name, for the message.

    Returns:
        The name.

    Raises:
        RuleViolation: ``signal_name`` when it is not a str of 1 to 128 characters, or is
            blank, has a control character or leading / trailing white space.
    """
    if not isinstance(name, str):
        raise RuleViolation("signal_name", f"{argument} must be a signal name (str), got {name!r}")
    problem = None
    if not name.strip():
        problem = "is blank"
    elif len(name) > SIGNAL_NAME_MAX_LENGTH:
        problem = f"is {len(name)} characters long"
    elif any(unicodedata.category(char) == "Cc" for char in name):
        problem = "has a control character"
    elif name != name.strip():
        problem = "has leading or trailing white space"
    if problem is not None:
        raise RuleViolation(
            "signal_name",
            f"{argument} {name!r} {problem}; a signal name is 1 to {SIGNAL_NAME_MAX_LENGTH} "
            "characters, not blank, without control characters or surrounding spaces "
            "(e.g. 'approved' or 'payment.received')",
        )
    return name


def check_on_timeout(value: object) -> OnTimeout:
    """Check ``on_timeout``; None means the default, ``"fail"``.

    Raises:
        RuleViolation: ``on_timeout`` for anything but fail, skip, skip-cascade or continue.
    """
    if value is None:
        return "fail"
    for mode in ON_TIMEOUT_MODES:
        if value == mode and isinstance(value, str):
            return mode
    allowed = ", ".join(repr(mode) for mode in ON_TIMEOUT_MODES)
    raise RuleViolation("on_timeout", f"on_timeout must be one of {allowed}, got {value!r}")


def check_until_path(until: object, dependencies: Sequence[str]) -> str:
    """Check a timer's ``until`` path as ``pgflow.add_timer`` does (and a bit stricter).

    Args:
        until: The candidate path.
        dependencies: The step's dependencies.

    Returns:
        The path.

    Raises:
        RuleViolation: ``sleep_until`` when it is not a str of dot-separated keys without
            white space or control characters, or its first key is neither ``input`` nor
            one of ``dependencies``.
    """
    if not isinstance(until, str):
        raise RuleViolation(
            "sleep_until", f"until must be a path such as 'input.remind_at', got {until!r}"
        )
    if not _UNTIL_PATH.fullmatch(until) or any(
        unicodedata.category(char) == "Cc" for char in until
    ):
        raise RuleViolation(
            "sleep_until",
            f"until {until!r} must be dot-separated keys without white space, such as "
            "'input.remind_at' (the run input) or 'order.ship_by' (a dependency's output)",
        )
    root = until.split(".", 1)[0]
    if root != "input" and root not in dependencies:
        known = ", ".join(dependencies) or "none"
        raise RuleViolation(
            "sleep_until",
            f"until {until!r} must start with 'input' (the run input) or with a dependency "
            f"of the step (depends_on: {known}); {root!r} is neither",
        )
    return until
