"""The trailing options of ``start_flow``: their checks, and how the database's refusals read.

``idempotency_key`` and ``concurrency_key`` are checked as ``pgflow._check_run_key``
checks them, before anything is sent; ``deadline`` becomes statement parameters so that a
relative deadline is computed on the engine's clock (``pgflow._now() + interval``: the
database's ``now()`` outside tests), never on Python's. The SQL errors of a keyed start
become pgflow errors: 53400 :class:`~pgflow.errors.ConcurrencyLimitReached` (with the
runs holding the slots), 22023 :class:`~pgflow.errors.InvalidStartOption`, 25000
:class:`~pgflow.errors.WrongIsolationLevel`.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from typing import Any, Final, TypeAlias

import psycopg

from pgflow.errors import ConcurrencyLimitReached, InvalidStartOption, WrongIsolationLevel

#: A deadline: an aware datetime (absolute), or a timedelta or a number of seconds from the
#: engine's time, ``pgflow._now()`` (relative).
Deadline: TypeAlias = datetime | timedelta | int | float

#: The longest key ``start_flow`` accepts, in characters.
MAX_KEY_LENGTH: Final = 255

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# "<caller>: concurrency limit of flow 'f' for key 'k' is reached (n of m): held by run ..."
_LIMIT = re.compile(
    r"concurrency limit of flow '(?P<flow>(?:[^']|'')*)' for key '(?P<key>(?:[^']|'')*)'"
    r" is reached"
)


def check_run_key(name: str, key: str | None) -> str | None:
    """Return ``key`` if it is None or a valid run key (``idempotency_key``, ``concurrency_key``).

    Args:
        name: the option's name, for the message.
        key: the key.

    Raises:
        InvalidStartOption: the key is not a string, holds a NUL character, is empty or
            ASCII whitespace only (as SQL decides), or is longer than 255 characters.
    """
    if key is None:
        return None
    if not isinstance(key, str):
        raise InvalidStartOption(f"{name} must be a string, got {type(key).__name__}")
    if "\x00" in key:
        raise InvalidStartOption(f"{name} cannot hold a NUL character (PostgreSQL text cannot)")
    if not key.strip(" \t\n\r\f\v"):  # the whitespace SQL's _check_run_key calls blank
        raise InvalidStartOption(
            f"{name} must not be blank (got {key!r}): pass None for no {name}, "
            "or a text that names the thing, e.g. 'order-42'"
        )
    if len(key) > MAX_KEY_LENGTH:
        raise InvalidStartOption(
            f"{name} must be at most {MAX_KEY_LENGTH} characters (got {len(key)})"
        )
    return key


def deadline_params(deadline: Deadline | None) -> dict[str, Any]:
    """The statement parameters of a deadline: ``deadline_at`` and ``deadline_in``.

    An aware datetime goes as ``deadline_at`` (timestamptz); a timedelta or a number of
    seconds as ``deadline_in`` (an interval the statement adds to the engine's time,
    ``pgflow._now()``); None sets neither (the flow's ``run_timeout`` applies, if any).

    Raises:
        InvalidStartOption: a naive datetime, a relative deadline that is not positive or
            not finite, or a value of another type (bool included). A datetime in the past
            is refused by the database (database clock), also as InvalidStartOption.
    """
    if deadline is None:
        return {"deadline_at": None, "deadline_in": None}
    if isinstance(deadline, datetime):
        if deadline.tzinfo is None or deadline.utcoffset() is None:
            raise InvalidStartOption(
                f"deadline {deadline.isoformat()} has no time zone: pass an aware datetime "
                "(e.g. datetime.now(UTC) + ...) or a timedelta from now on the database's clock"
            )
        return {"deadline_at": deadline, "deadline_in": None}
    if isinstance(deadline, bool) or not isinstance(deadline, timedelta | int | float):
        raise InvalidStartOption(
            "deadline must be an aware datetime, a timedelta or a number of seconds, "
            f"got {type(deadline).__name__}"
        )
    if not isinstance(deadline, timedelta):
        if not math.isfinite(deadline):
            raise InvalidStartOption(f"deadline must be a finite number of seconds, got {deadline}")
        try:
            deadline = timedelta(seconds=deadline)
        except OverflowError as exc:
            raise InvalidStartOption(f"deadline of {deadline} seconds is too far away") from exc
    if deadline <= timedelta(0):
        raise InvalidStartOption(
            f"deadline must be in the future, got {deadline.total_seconds():g} s from now"
        )
    return {"deadline_at": None, "deadline_in": deadline}


def translate_start_error(exc: psycopg.Error, concurrency_key: str | None) -> Exception | None:
    """The pgflow error for a refusal of a keyed start's options, or None if none fits.

    Args:
        exc: the database error.
        concurrency_key: the key the start was given (the limit error names it too).
    """
    message = exc.diag.message_primary or str(exc)
    if isinstance(exc, psycopg.errors.ConfigurationLimitExceeded):
        return limit_reached(exc, concurrency_key)
    if isinstance(exc, psycopg.errors.InvalidTransactionState):
        return WrongIsolationLevel(message)
    if isinstance(exc, psycopg.errors.InvalidParameterValue) and any(
        name in message for name in ("idempotency_key", "concurrency_key", "deadline")
    ):
        return InvalidStartOption(message)
    if isinstance(exc, psycopg.errors.DatetimeFieldOverflow):  # now() + a huge interval
        return InvalidStartOption(f"deadline is too far away: {message}")
    return None


def limit_reached(
    exc: psycopg.Error, concurrency_key: str | None = None
) -> ConcurrencyLimitReached:
    """A :class:`ConcurrencyLimitReached` from a 53400 error of ``_take_concurrency_slot``.

    The holders are the run ids of the error's DETAIL (``Runs holding the slots: <id>,
    ... Runs queued for one: n.``), else of its message (``... held by run <id>, ...``);
    the flow and, when ``concurrency_key`` is None, the key are read from the message.
    """
    message = exc.diag.message_primary or str(exc)
    detail = exc.diag.message_detail or ""
    listing = detail.split("Runs queued", 1)[0] if detail else message.split("held by", 1)[-1]
    named = _LIMIT.search(message)
    flow = named.group("flow").replace("''", "'") if named else None
    if concurrency_key is None and named is not None:
        concurrency_key = named.group("key").replace("''", "'")
    return ConcurrencyLimitReached(
        message,
        concurrency_key=concurrency_key,
        holders=_UUID.findall(listing),
        flow_slug=flow,
    )
