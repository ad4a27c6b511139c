"""Durations and deadlines as the commands read and write them: ``90s``, ``1h30m``, ``2d``.

``pgflow start --deadline`` takes a duration from now (the database's now: the client
sends it as an interval) or an ISO 8601 timestamp with an offset; ``pgflow status`` shows
time left in the same units (:func:`two_units`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Final

import click

#: Seconds per unit of a duration.
UNITS: Final = {"d": 86400, "h": 3600, "m": 60, "s": 1}

_DURATION = re.compile(r"(?:(?P<d>\d+)d)?(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?")


def parse_duration(text: str) -> timedelta:
    """Parse a duration: whole numbers with units ``d``, ``h``, ``m``, ``s``, in that order.

    ``90s``, ``15m``, ``2h``, ``1d``, ``1h30m``, ``1d 12h`` (spaces between parts allowed,
    case-insensitive).

    Raises:
        ValueError: not such a duration (a bare number, an unknown unit, units out of
            order), or zero.
    """
    compact = "".join(text.split()).lower()
    found = _DURATION.fullmatch(compact)
    if not compact or found is None:
        raise ValueError(
            f"{text!r} is not a duration: use whole numbers with units d, h, m, s "
            "in that order, e.g. 90s, 15m, 2h, 1d, 1h30m"
        )
    seconds = sum(int(found.group(unit) or 0) * size for unit, size in UNITS.items())
    if seconds == 0:
        raise ValueError(f"duration {text!r} is zero: a deadline must be in the future")
    try:
        return timedelta(seconds=seconds)
    except OverflowError:
        raise ValueError(f"duration {text!r} is too long") from None


def parse_deadline(text: str) -> timedelta | datetime:
    """Parse ``--deadline``: a duration from now (:func:`parse_duration`) or a timestamp.

    A timestamp is ISO 8601 with a UTC offset (``2026-05-01T12:00:00+02:00``, ``...Z``).

    Returns:
        A timedelta (relative: the client adds it to the engine's time, ``pgflow._now()``)
        or an aware datetime (absolute).

    Raises:
        ValueError: neither, or a timestamp without an offset (ambiguous).
    """
    stripped = text.strip()
    if stripped[:1].isdigit() and ("-" in stripped or ":" in stripped):
        try:
            moment = datetime.fromisoformat(stripped)
        except ValueError:
            raise ValueError(
                f"{text!r} is not an ISO 8601 timestamp (e.g. 2026-05-01T12:00:00+00:00)"
            ) from None
        if moment.tzinfo is None:
            raise ValueError(f"timestamp {text!r} has no UTC offset: add one (e.g. +00:00 or Z)")
        return moment
    return parse_duration(stripped)


def deadline_callback(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> timedelta | datetime | None:
    """The click callback of ``--deadline``: :func:`parse_deadline` (usage error, exit 2)."""
    if value is None:
        return None
    try:
        return parse_deadline(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


def two_units(seconds: float) -> str:
    """A duration in its two largest units, cut down: ``1h 20m``, ``2d 3h``, ``45s``.

    The second unit is the next one down, left out when zero (``2h``; 1 d 0 h 5 min reads
    ``1d``); negative durations count as ``0s``.
    """
    whole = max(0, int(seconds))
    names = list(UNITS)
    for index, unit in enumerate(names):
        size = UNITS[unit]
        if whole >= size or unit == "s":
            first, rest = divmod(whole, size)
            text = f"{first}{unit}"
            if unit != "s":
                minor = names[index + 1]
                second = rest // UNITS[minor]
                if second:
                    text += f" {second}{minor}"
            return text
    raise AssertionError("unreachable: the seconds unit always matches")
