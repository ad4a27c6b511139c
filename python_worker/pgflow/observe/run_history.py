"""What a run's audit trail says about its past: failed attempts, retries and reruns.

The task rows of a step are deleted and made again when ``retry_run`` retries the run, so
only ``pgflow.run_events`` still knows the attempts made before. :func:`read_history`
reads, for the run page:

- every failed attempt (``task:failed``: ``details`` holds ``attempt``, ``error_message``,
  ``retry``, and ``traceback`` when the worker sent one), those before a retry included;
- when the run was retried (``run:retried``), where the timeline's earlier attempts end;
- the runs started from it (``run:rerun``, ``details.new_run_id``).

:func:`reruns_since` tells, for a group action, which runs were rerun after the page was
shown. Reads only, through the primary key of ``run_events`` (run_id, id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import psycopg
from psycopg.rows import dict_row

#: At most this many failed attempts are read for a run: the newest.
MAX_FAILURES: Final = 100

_FAILURES: Final = (
    "select e.step_slug, e.task_index, e.details, e.created_at, count(*) over () as total"
    " from pgflow.run_events as e where e.run_id = %(run_id)s::uuid and e.event = 'task:failed'"
    " order by e.id desc limit %(limit)s"
)
_RETRIES_AND_RERUNS: Final = (
    "select e.event, e.created_at, e.details ->> 'new_run_id' as new_run_id"
    " from pgflow.run_events as e where e.run_id = %(run_id)s::uuid"
    " and e.event in ('run:retried', 'run:rerun') order by e.id"
)
_RERUNS_SINCE: Final = (
    "select e.run_id::text, (array_agg(e.details ->> 'new_run_id' order by e.id desc))[1]"
    " from pgflow.run_events as e where e.run_id = any(%(run_ids)s::uuid[])"
    " and e.event = 'run:rerun' and e.created_at > %(since)s group by e.run_id"
)


@dataclass(frozen=True)
class FailedAttempt:
    """One failed attempt of a task, as its ``task:failed`` event recorded it.

    Attributes:
        step_slug: the task's step.
        task_index: the task's index (None if the event has none).
        attempt: the attempt's number (None if the event has none).
        failed_at: when it failed (the event's time).
        error: the error text the worker reported.
        traceback: the traceback the worker sent with it, else None.
        retried: the task was queued again for another attempt (``details.retry``).
        before_retry: it failed before the run's latest ``retry_run``.
    """

    step_slug: str
    task_index: int | None
    attempt: int | None
    failed_at: datetime
    error: str | None
    traceback: str | None
    retried: bool
    before_retry: bool


@dataclass(frozen=True)
class RunHistory:
    """The past of a run that its current rows no longer show.

    Attributes:
        failures: its failed attempts, oldest first (the newest :data:`MAX_FAILURES`).
        failures_total: how many attempts of it failed in all.
        retried_at: when it was retried (``retry_run``, or a skip that reopened it),
            oldest first.
        reruns: the ids of the runs started from it (``rerun_flow``), oldest first.
    """

    failures: list[FailedAttempt]
    failures_total: int
    retried_at: list[datetime]
    reruns: list[str]


def read_history(
    conn: psycopg.Connection[Any], run_id: str, *, max_failures: int = MAX_FAILURES
) -> RunHistory:
    """Read a run's failed attempts, retries and reruns from its audit trail.

    Args:
        conn: an open connection (only reads ``pgflow.run_events``).
        run_id: the run's uuid as text.
        max_failures: the most failed attempts read (the newest).

    Returns:
        The history; empty lists for a run without any (or an unknown run).

    Raises:
        psycopg.errors.InvalidTextRepresentation: ``run_id`` is not a uuid.
        psycopg.Error: any other refusal (e.g. no privilege on ``pgflow.run_events``).
    """
    params = {"run_id": run_id, "limit": max_failures}
    with conn.cursor(row_factory=dict_row) as cur:
        failed = cur.execute(_FAILURES, params).fetchall()
        marks = cur.execute(_RETRIES_AND_RERUNS, params).fetchall()
    retried_at = [m["created_at"] for m in marks if m["event"] == "run:retried"]
    reruns = [m["new_run_id"] for m in marks if m["event"] == "run:rerun" and m["new_run_id"]]
    last_retry = retried_at[-1] if retried_at else None
    failures = [_failure(row, last_retry) for row in reversed(failed)]
    total = int(failed[0]["total"]) if failed else 0
    return RunHistory(failures, total, retried_at, reruns)


def rerun_ids(conn: psycopg.Connection[Any], run_id: str) -> list[str]:
    """The ids of the runs started from ``run_id`` by ``rerun_flow``, oldest first.

    Raises:
        psycopg.Error: as :func:`read_history`.
    """
    with conn.cursor(row_factory=dict_row) as cur:
        marks = cur.execute(_RETRIES_AND_RERUNS, {"run_id": run_id}).fetchall()
    return [m["new_run_id"] for m in marks if m["event"] == "run:rerun" and m["new_run_id"]]


def reruns_since(
    conn: psycopg.Connection[Any], run_ids: Sequence[str], since: datetime
) -> dict[str, str]:
    """The runs of ``run_ids`` rerun after ``since``, each with its newest rerun's id.

    Args:
        conn: an open connection.
        run_ids: run uuids as text.
        since: a time on the engine's clock (e.g. its ``pgflow._now()`` when a page was
            shown).

    Returns:
        ``{run_id: new_run_id}`` for the runs that ``rerun_flow`` started again after
        ``since`` (the others are left out).

    Raises:
        psycopg.Error: as :func:`read_history`.
    """
    if not run_ids:
        return {}
    rows = conn.execute(_RERUNS_SINCE, {"run_ids": list(run_ids), "since": since}).fetchall()
    return {run_id: new_run_id for run_id, new_run_id in rows if new_run_id}


def _failure(row: dict[str, Any], last_retry: datetime | None) -> FailedAttempt:
    details = row["details"] if isinstance(row["details"], dict) else {}
    attempt = details.get("attempt")
    traceback = details.get("traceback")
    return FailedAttempt(
        step_slug=row["step_slug"],
        task_index=row["task_index"],
        attempt=int(attempt) if isinstance(attempt, int) else None,
        failed_at=row["created_at"],
        error=details.get("error_message"),
        traceback=traceback if isinstance(traceback, str) and traceback.strip() else None,
        retried=details.get("retry") is True,
        before_retry=last_retry is not None and row["created_at"] < last_retry,
    )
