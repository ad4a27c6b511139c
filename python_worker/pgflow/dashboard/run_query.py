"""The runs list's query string: filters and the page cursor, read and written back.

Parameters: ``flow``, ``status``, ``step``, ``error`` (contains, case-insensitive),
``from`` and ``to`` (start time range: ISO 8601, a time without offset counts as UTC, as
an HTML ``datetime-local`` field sends it), ``run`` (a run id: the page redirects to that
run), and the cursor ``before`` / ``before_id`` (the last row of the previous page).
Every link to another page of the list carries all the filters given.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlencode

from pgflow.observe.runs import STATUSES, RunCursor, RunFilters

#: The filter parameters, in the order links write them.
FILTER_PARAMS = ("flow", "status", "step", "error", "from", "to")


@dataclass(frozen=True)
class RunQuery:
    """What a runs-list request asked for.

    Attributes:
        filters: the filters to apply.
        cursor: where the page starts (None: the newest runs).
        values: the filter parameters as given (non-blank ones), to write back into links
            and into the form.
        problems: what could not be understood (a bad time, an unknown status), said to
            the user; those filters are not applied.
        run_id: a well-formed run id asked for with ``run`` (the page redirects to it).
    """

    filters: RunFilters
    cursor: RunCursor | None
    values: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    run_id: str | None = None


def parse_time(text: str) -> datetime:
    """Parse a time of the range filter: ISO 8601; without an offset, UTC.

    Raises:
        ValueError: not an ISO 8601 date or time.
    """
    value = datetime.fromisoformat(text.strip())
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def parse_run_query(params: Mapping[str, str]) -> RunQuery:
    """Read the runs list's query string.

    Args:
        params: the query parameters (the last value of each).

    Returns:
        The filters, cursor and problems; never raises for bad input.
    """
    values = {name: params[name].strip() for name in FILTER_PARAMS if params.get(name, "").strip()}
    problems: list[str] = []
    times: dict[str, datetime | None] = {"from": None, "to": None}
    for name in times:
        if name in values:
            try:
                times[name] = parse_time(values[name])
            except ValueError:
                problems.append(f"{name!r} is not a date and time: {values[name]!r}")
    status = values.get("status")
    if status is not None and status not in STATUSES:
        problems.append(f"unknown status {status!r}")
        status = None
    filters = RunFilters(
        flow=values.get("flow"),
        status=status,
        step=values.get("step"),
        error=values.get("error"),
        started_from=times["from"],
        started_to=times["to"],
    )
    run_id = None
    asked = params.get("run", "").strip()
    if asked:
        try:
            run_id = str(uuid.UUID(asked))
        except ValueError:
            problems.append(f"{asked!r} is not a run id (a uuid)")
    return RunQuery(filters, _cursor(params), values, problems, run_id)


def _cursor(params: Mapping[str, str]) -> RunCursor | None:
    at, run_id = params.get("before", ""), params.get("before_id", "")
    if not at or not run_id:
        return None
    try:
        return RunCursor(parse_time(at), str(uuid.UUID(run_id)))
    except ValueError:
        return None


def older_link(query: RunQuery, cursor: RunCursor) -> str:
    """The link to the page after ``cursor``, with every filter of ``query``."""
    params = dict(query.values)
    params["before"] = cursor.started_at.isoformat()
    params["before_id"] = cursor.run_id
    return "/?" + urlencode(params)


def newest_link(query: RunQuery) -> str:
    """The link to the first page of the list, with every filter of ``query``."""
    return "/?" + urlencode(query.values) if query.values else "/"
