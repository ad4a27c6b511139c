"""Failed runs grouped by flow, failed step and kind of error, for the "Needs attention" page.

:func:`failed_groups` counts the failed runs of each group with when the group was first
and last seen; :func:`failed_group_runs` lists the runs of one group (up to a limit) and
:func:`failed_group_size` counts them all, so an operator can act on the whole group
(retry them all) and be told what is left when it is larger than one action takes. The
kind of error is the short form of :func:`pgflow.observe.run_words.short_error` (the
exception type name the worker stores first), so ``CardDeclined: card 4242`` and
``CardDeclined: card 1111`` fall together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString

import psycopg


@dataclass(frozen=True)
class FailedGroup:
    """Failed runs that failed alike: same flow, same failed step, same kind of error.

    Attributes:
        flow_slug: the flow.
        step_slug: the run's first failed step (definition order); "" when none failed.
        error_key: the error's short form (:func:`pgflow.observe.run_words.short_error`):
            its exception type name, else its first line cut at 80 characters.
        sample_error: the full text of one of the errors (the latest).
        runs: how many failed runs the group holds.
        first_seen: the earliest failure time among them.
        last_seen: the latest.
    """

    flow_slug: str
    step_slug: str
    error_key: str
    sample_error: str
    runs: int
    first_seen: datetime
    last_seen: datetime


# Failed runs with their first failed step and the short form of its error (the SQL twin of
# short_error: a leading type name, else the first line cut at 80 characters).
_FAILED: Final[LiteralString] = """
select r.run_id, r.flow_slug, r.failed_at, coalesce(fs.step_slug, '') as step_slug,
  coalesce(fs.error_message, '') as error_message,
  coalesce(substring(split_part(btrim(coalesce(fs.error_message, '')), E'\\n', 1)
                     from '^([A-Za-z_][A-Za-z0-9_.]*)(?::|$)'),
           left(split_part(btrim(coalesce(fs.error_message, '')), E'\\n', 1), 80)) as error_key
from pgflow.runs as r
left join lateral (
  select ss.step_slug, ss.error_message
  from pgflow.step_states as ss
  join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
  where ss.run_id = r.run_id and ss.status = 'failed'
  order by s.step_index
  limit 1
) as fs on true
where r.status = 'failed'
"""
_FAILED_GROUPS: Final[LiteralString] = (
    "select f.flow_slug, f.step_slug, f.error_key,"
    " (array_agg(f.error_message order by f.failed_at desc))[1], count(*)::int,"
    " min(f.failed_at), max(f.failed_at)"
    " from (" + _FAILED + ") as f group by 1, 2, 3 order by max(f.failed_at) desc limit %(limit)s"
)
_FAILED_GROUP_SIZE: Final[LiteralString] = (
    "select count(*)::int from (" + _FAILED + ") as f"
    " where f.flow_slug = %(flow)s and f.step_slug = %(step)s and f.error_key = %(error_key)s"
)
_FAILED_GROUP_RUNS: Final[LiteralString] = (
    "select f.run_id::text from (" + _FAILED + ") as f"
    " where f.flow_slug = %(flow)s and f.step_slug = %(step)s and f.error_key = %(error_key)s"
    " order by f.failed_at desc limit %(limit)s"
)


def failed_groups(conn: psycopg.Connection[Any], *, limit: int = 100) -> list[FailedGroup]:
    """Group the failed runs by flow, failed step and kind of error, latest failure first.

    Args:
        conn: an open connection (only reads).
        limit: the most groups returned.

    Returns:
        The groups, the one with the latest failure first.

    Raises:
        psycopg.Error: the database refused the query.
    """
    rows = conn.execute(_FAILED_GROUPS, {"limit": limit}).fetchall()
    return [FailedGroup(*row) for row in rows]


def failed_group_runs(
    conn: psycopg.Connection[Any], flow: str, step: str, error_key: str, *, limit: int = 1000
) -> list[str]:
    """The ids of the failed runs of one :class:`FailedGroup`, latest failure first.

    Args:
        conn: an open connection (only reads).
        flow: the group's ``flow_slug``.
        step: its ``step_slug``.
        error_key: its ``error_key``.
        limit: the most run ids returned.

    Raises:
        psycopg.Error: the database refused the query.
    """
    params = {"flow": flow, "step": step, "error_key": error_key, "limit": limit}
    return [row[0] for row in conn.execute(_FAILED_GROUP_RUNS, params).fetchall()]


def failed_group_size(conn: psycopg.Connection[Any], flow: str, step: str, error_key: str) -> int:
    """How many failed runs one :class:`FailedGroup` holds now (no limit).

    Args:
        conn: an open connection (only reads).
        flow: the group's ``flow_slug``.
        step: its ``step_slug``.
        error_key: its ``error_key``.

    Raises:
        psycopg.Error: the database refused the query.
    """
    params = {"flow": flow, "step": step, "error_key": error_key}
    row = conn.execute(_FAILED_GROUP_SIZE, params).fetchone()
    return int(row[0]) if row is not None else 0
