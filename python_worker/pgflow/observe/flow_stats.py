"""Flows as an operator sees them: runs by status, and per step outcomes and durations.

:func:`list_flows` counts each flow's runs by status (one pass over ``pgflow.runs``).
:func:`step_stats` and :func:`run_counts` read the 5-minute statistics the engine keeps for
finished runs (``pgflow.get_step_stats`` and ``pgflow.get_run_counts``, which fill the
closed buckets they are missing and compute the open ones from the runs), so a flow's
page costs the same over a million runs as over a hundred.

What the numbers mean (the SQL functions' contract):

- A step counts when its run ends; its duration is the whole step, ``step_states``
  ``started_at`` -> ``completed_at`` (for a map step, until its last task completed),
  queueing, retries and backoff included. p50 / p95 are histogram estimates, within 19%.
- ``failure_rate`` = failed / (completed + failed); ``retry_rate`` = the completed or
  failed steps with a task attempted more than once / (completed + failed).
- Windows end now (database clock) and start on the 5-minute grid at or before
  ``now - window``; they reach back at most 31 days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString

import psycopg

from pgflow.errors import FlowNotFound

#: The windows the dashboard and ``pgflow flows --window`` offer, in seconds.
WINDOWS: Final[dict[str, int]] = {"1h": 3600, "24h": 86400, "7d": 7 * 86400}
#: Run statuses in the order tables show them.
RUN_STATUSES: Final = ("queued", "started", "paused", "completed", "failed", "cancelled", "expired")
#: The stats grid: a run-count interval must be a multiple of it (seconds).
STATS_BUCKET_S: Final = 300


@dataclass(frozen=True)
class FlowSummary:
    """A flow and its runs.

    Attributes:
        flow_slug: the flow.
        step_count: its steps.
        runs_by_status: every status of :data:`RUN_STATUSES` -> runs in it now (0 included).
        last_started_at: when its newest run started (or was queued), None without runs.
    """

    flow_slug: str
    step_count: int
    runs_by_status: dict[str, int]
    last_started_at: datetime | None


@dataclass(frozen=True)
class StepStats:
    """One step of a flow over a window: how its steps ended, how often retried, how long.

    Attributes:
        step_slug: the step.
        finished: steps that completed or failed (of runs that ended in the window).
        completed: of which completed.
        failed: of which failed.
        skipped: steps skipped (conditions, ``when_exhausted``, ``skip_step``).
        cancelled: steps cancelled with their run.
        failure_rate: ``failed / finished``, None when none finished.
        retried: finished steps with a task attempted more than once.
        retry_rate: ``retried / finished``, None when none finished.
        p50_s: median duration of the completed steps (seconds, estimate), None if none.
        p95_s: 95th percentile of the same (seconds, estimate), None if none.
    """

    step_slug: str
    finished: int
    completed: int
    failed: int
    skipped: int
    cancelled: int
    failure_rate: float | None
    retried: int
    retry_rate: float | None
    p50_s: float | None
    p95_s: float | None


@dataclass(frozen=True)
class RunCountBucket:
    """Runs of a flow started and ended in one interval.

    Attributes:
        bucket_start: the interval's start (on the epoch's grid of its length).
        started: runs started in it (queued runs included).
        finished: runs that ended in it (``completed + failed + cancelled + expired``).
        completed: of which completed.
        failed: of which failed.
        cancelled: of which cancelled.
        expired: of which expired.
        p50_s: median duration of the runs completed in it (seconds, estimate), or None.
        p95_s: their 95th percentile (seconds, estimate), or None.
    """

    bucket_start: datetime
    started: int
    finished: int
    completed: int
    failed: int
    cancelled: int
    expired: int
    p50_s: float | None
    p95_s: float | None


#: Per flow: its steps, its runs by status and its newest run's start. The counts read
#: every run once (about 0.1 s per million runs); the newest start is one probe of
#: idx_runs_flow_started_at per flow.
_LIST_FLOWS: Final[LiteralString] = """
select f.flow_slug,
       (select count(*)::int from pgflow.steps as s where s.flow_slug = f.flow_slug),
       coalesce(c.by_status, '{}'::jsonb),
       (select max(r.started_at) from pgflow.runs as r where r.flow_slug = f.flow_slug)
from pgflow.flows as f
left join (
  select x.flow_slug, jsonb_object_agg(x.status, x.n) as by_status
  from (select r.flow_slug, r.status, count(*)::int as n
        from pgflow.runs as r group by r.flow_slug, r.status) as x
  group by x.flow_slug
) as c on c.flow_slug = f.flow_slug
order by f.flow_slug
"""

_STEP_STATS: Final[LiteralString] = """
select step_slug, completed, failed, skipped, cancelled, retried, failure_rate, retry_rate,
       p50_seconds, p95_seconds
from pgflow.get_step_stats(%(flow_slug)s, pgflow._now() - make_interval(secs => %(window_s)s))
"""

_RUN_COUNTS: Final[LiteralString] = """
select interval_start, started, completed, failed, cancelled, expired, p50_seconds, p95_seconds
from pgflow.get_run_counts(%(flow_slug)s, pgflow._now() - make_interval(secs => %(window_s)s),
                           %(bucket_s)s)
"""


def list_flows(conn: psycopg.Connection[Any]) -> list[FlowSummary]:
    """Return every flow with its step count, its runs by status and its newest run's start.

    Args:
        conn: a connection to the pgflow database.

    Returns:
        The flows ordered by slug.

    Raises:
        psycopg.Error: the query failed.
    """
    flows = []
    for slug, steps, by_status, last_started in conn.execute(_LIST_FLOWS).fetchall():
        counts = {status: int(by_status.get(status, 0)) for status in RUN_STATUSES}
        flows.append(FlowSummary(slug, steps, counts, last_started))
    return flows


def step_stats(conn: psycopg.Connection[Any], flow_slug: str, window_s: float) -> list[StepStats]:
    """Return per step of a flow its outcomes, retries and durations over a window.

    Calls ``pgflow.get_step_stats``, which writes the stats of the closed 5-minute buckets
    it lacks (commit afterwards when ``conn`` is not in autocommit mode).

    Args:
        conn: a connection to the pgflow database (``pgflow_client`` and
            ``pgflow_operator`` may call the function).
        flow_slug: the flow.
        window_s: how far back, in seconds (e.g. ``WINDOWS["24h"]``); at most 31 days.

    Returns:
        One row per step of the flow, in step order (zeros and None for a step with
        nothing finished in the window).

    Raises:
        FlowNotFound: no flow has this slug.
        ValueError: ``window_s`` is not positive or reaches back more than 31 days.
        psycopg.Error: another database error.
    """
    _check_window(window_s)
    params = {"flow_slug": flow_slug, "window_s": float(window_s)}
    rows = _call(conn, _STEP_STATS, params, flow_slug)
    return [
        StepStats(
            step_slug=step,
            finished=completed + failed,
            completed=completed,
            failed=failed,
            skipped=skipped,
            cancelled=cancelled,
            failure_rate=failure_rate,
            retried=retried,
            retry_rate=retry_rate,
            p50_s=p50,
            p95_s=p95,
        )
        for (
            step,
            completed,
            failed,
            skipped,
            cancelled,
            retried,
            failure_rate,
            retry_rate,
            p50,
            p95,
        ) in rows
    ]


def run_counts(
    conn: psycopg.Connection[Any], flow_slug: str, window_s: float, bucket_s: int
) -> list[RunCountBucket]:
    """Return the runs of a flow started and ended per interval over a window.

    Calls ``pgflow.get_run_counts`` (which, like ``get_step_stats``, writes missing stats).

    Args:
        conn: a connection to the pgflow database.
        flow_slug: the flow.
        window_s: how far back, in seconds; at most 31 days.
        bucket_s: the interval length in seconds, a multiple of 300 (5 minutes).

    Returns:
        One bucket per interval, oldest first, from the one holding ``now - window_s`` to
        the one holding now; empty intervals included (zeros).

    Raises:
        FlowNotFound: no flow has this slug.
        ValueError: ``window_s`` is out of range or ``bucket_s`` not a positive multiple
            of 300.
        psycopg.Error: another database error.
    """
    _check_window(window_s)
    if bucket_s <= 0 or bucket_s % STATS_BUCKET_S:
        raise ValueError(
            f"bucket_s must be a positive multiple of {STATS_BUCKET_S}, got {bucket_s}"
        )
    params = {"flow_slug": flow_slug, "window_s": float(window_s), "bucket_s": int(bucket_s)}
    rows = _call(conn, _RUN_COUNTS, params, flow_slug)
    return [
        RunCountBucket(
            bucket_start=start,
            started=int(started),
            finished=int(completed + failed + cancelled + expired),
            completed=int(completed),
            failed=int(failed),
            cancelled=int(cancelled),
            expired=int(expired),
            p50_s=p50,
            p95_s=p95,
        )
        for start, started, completed, failed, cancelled, expired, p50, p95 in rows
    ]


def _check_window(window_s: float) -> None:
    if not 0 < window_s <= 31 * 86400:
        raise ValueError(f"window_s must be more than 0 and at most 31 days, got {window_s}")


def _call(
    conn: psycopg.Connection[Any], query: LiteralString, params: dict[str, Any], flow_slug: str
) -> list[tuple[Any, ...]]:
    try:
        return conn.execute(query, params).fetchall()
    except psycopg.errors.NoDataFound as exc:
        raise FlowNotFound(f"no flow named {flow_slug!r}") from exc
    except psycopg.errors.InvalidParameterValue as exc:
        raise ValueError(str(exc.diag.message_primary or exc)) from exc
