"""Scheduled flows: list them with their next run, and sync them with flow definitions.

A schedule is a row of ``pgflow.schedules`` plus a pg_cron job (``pgflow.schedule_flow``).
Flows declare theirs with ``Flow(..., cron=..., cron_input=...)``; the worker syncs its flows
at start, ``pgflow schedule sync`` does it without a worker. Next-run times are computed
from the engine's clock (``pgflow._now()``, on which the runs' time slots are cut) and
pg_cron's time zone (setting ``cron.timezone``, GMT by default).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import psycopg
from cronsim import CronSim, CronSimError

from pgflow.dsl import Flow

_SECONDS = re.compile(r"^\s*(\d+)\s*seconds?\s*$")


@dataclass(frozen=True)
class Schedule:
    """One scheduled flow.

    Attributes:
        name: the schedule name (the flow slug unless named otherwise).
        flow_slug: the flow it starts.
        schedule: a cron expression, or ``"N seconds"``.
        input: the JSON input of its runs.
        active: whether its pg_cron job is active (False when the job is missing).
        next_run: when pg_cron starts the next run, or None when unknown.
    """

    name: str
    flow_slug: str
    schedule: str
    input: Any
    active: bool
    next_run: datetime | None


def next_run(schedule: str, now: datetime, timezone: str = "GMT") -> datetime | None:
    """Return the first time after ``now`` at which ``schedule`` fires.

    Args:
        schedule: a 5-field cron expression or ``"N seconds"``.
        now: an aware datetime (the engine's clock, ``pgflow._now()``).
        timezone: the time zone pg_cron evaluates cron expressions in.

    Returns:
        The next firing as an aware datetime, or None for an expression cronsim rejects.
    """
    seconds = _SECONDS.match(schedule)
    if seconds:
        step = int(seconds.group(1))
        epoch = int(now.timestamp())
        return datetime.fromtimestamp((epoch // step + 1) * step, tz=now.tzinfo)
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    try:
        local = now.astimezone(zone).replace(microsecond=0)
        return next(CronSim(schedule, local))
    except CronSimError:
        return None


def list_schedules(conn_or_dsn: psycopg.Connection[Any] | str) -> list[Schedule]:
    """Return every schedule, ordered by name, with its next run.

    Args:
        conn_or_dsn: a psycopg connection or a DSN.

    Returns:
        The schedules; empty when there are none (also when pg_cron is not installed).
    """
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            return list_schedules(conn)
    conn = conn_or_dsn
    has_cron = conn.execute(
        "select exists (select 1 from pg_catalog.pg_extension where extname = 'pg_cron')"
    ).fetchone()
    active_sql = (
        "coalesce((select j.active from cron.job j"
        " where j.jobname = 'pgflow_schedule:' || s.schedule_name), false)"
        if has_cron and has_cron[0]
        else "false"
    )
    rows = conn.execute(
        "select s.schedule_name, s.flow_slug, s.schedule, s.input, "
        + active_sql
        + ", (select pgflow._now()), coalesce(current_setting('cron.timezone', true), 'GMT')"
        " from pgflow.schedules s order by s.schedule_name"
    ).fetchall()
    return [
        Schedule(name, flow, schedule, flow_input, active, next_run(schedule, now, tz))
        for name, flow, schedule, flow_input, active, now, tz in rows
    ]


def sync_schedules(
    conn_or_dsn: psycopg.Connection[Any] | str, flows: Iterable[Flow]
) -> dict[str, str]:
    """Make the default schedule of each flow match its ``cron`` / ``cron_input``.

    Flows without ``cron`` lose their default schedule; named schedules and flows not
    given are left alone.

    Args:
        conn_or_dsn: a psycopg connection or a DSN.
        flows: the flows (:class:`pgflow.dsl.Flow`, or Jobs).

    Returns:
        ``{flow_slug: action}`` with action created, updated, unchanged, removed or none.

    Raises:
        psycopg.errors.UndefinedObject: a flow has a schedule but pg_cron is not installed
            (the message says what to install).
        psycopg.errors.ForeignKeyViolation: a flow is not in the database yet (start its
            worker once, or create it with ``flow.to_sql()``).
    """
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            return sync_schedules(conn, flows)
    actions: dict[str, str] = {}
    for flow in flows:
        cron = flow.cron
        flow_input = json.dumps(flow.cron_input if cron else {})
        row = conn_or_dsn.execute(
            "select pgflow.sync_flow_schedule(%s, %s, %s::jsonb)", (flow.slug, cron, flow_input)
        ).fetchone()
        actions[flow.slug] = str(row[0]) if row else "none"
    return actions


def describe_next_run(moment: datetime | None, now: datetime) -> str:
    """Render a next-run time for people: ``2026-11-30 00:05:00+00:00 (in 4 min)``."""
    if moment is None:
        return "unknown"
    delta = moment - now
    if delta < timedelta(0):
        return f"{moment.isoformat(sep=' ')}"
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        rel = f"in {int(delta.total_seconds())} s"
    elif minutes < 120:
        rel = f"in {minutes} min"
    else:
        rel = f"in {minutes // 60} h"
    return f"{moment.isoformat(sep=' ')} ({rel})"
