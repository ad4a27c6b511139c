"""What pgflow runs on, checked for ``pgflow check-schema``.

pgmq, the flows' queues and their NOTIFY triggers, and the pg_cron job of the stalled-task
sweep.

Each ``check_*`` adds its errors and warnings to a :class:`~pgflow.schema.report.Findings`
from the facts :func:`pgflow.schema.catalog.environment_plan` read; no database access.
:func:`pgflow.schema.check.evaluate` calls them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pgflow.schema.catalog import CRON_JOB, NOTIFY_TRIGGER
from pgflow.schema.report import Findings

__all__ = ["MAX_QUEUE_NAME_LENGTH", "check_cron", "check_flows", "check_pgmq", "version_key"]

#: pgmq limits queue names (and so flow slugs) to this many characters.
MAX_QUEUE_NAME_LENGTH = 47


def check_pgmq(out: Findings, pgmq: Mapping[str, Any], needs: Mapping[str, Any]) -> None:
    """Errors for a pgmq that is missing, too old or lacking what pgflow uses.

    ``needs`` is the manifest's pgmq part (``min_version``, ``functions``, ``relations``,
    ``message_record_fields``); ``pgmq`` is what
    :func:`pgflow.schema.catalog.environment_plan` read.
    """
    if not pgmq["installed"]:
        out.error("pgmq_not_installed", "schema pgmq does not exist", hint="run `pgflow install`")
        return
    minimum, version = needs["min_version"], pgmq["extension_version"]
    if version is not None and version_key(version) < version_key(minimum):
        out.error(
            "pgmq_version_too_old",
            f"pgmq {version} is installed; pgflow needs >= {minimum}",
            hint="ALTER EXTENSION pgmq UPDATE",
            expected=f">= {minimum}",
            found=version,
        )
    fields = pgmq["message_record_fields"]
    wanted = needs["message_record_fields"]
    if fields is None:
        out.error(
            "pgmq_message_record_missing",
            "type pgmq.message_record does not exist",
            hint=f"install pgmq >= {minimum}",
        )
    else:
        present = {f["name"]: f["type"] for f in fields}
        problems = [
            f"{f['name']} is missing"
            if f["name"] not in present
            else f"{f['name']} is {present[f['name']]}, expected {f['type']}"
            for f in wanted
            if present.get(f["name"]) != f["type"]
        ]
        if problems:
            out.error(
                "pgmq_message_record_mismatch",
                f"pgmq.message_record does not have the fields the worker reads: "
                f"{'; '.join(problems)} (pgmq older than {minimum}?)",
                hint=f"upgrade pgmq to >= {minimum}",
                expected=[f"{f['name']} {f['type']}" for f in wanted],
                found=[f"{f['name']} {f['type']}" for f in fields],
            )
    missing = sorted(set(needs["functions"]) - set(pgmq["functions"]))
    if missing:
        out.error(
            "pgmq_function_missing",
            f"pgmq lacks function(s) pgflow calls: {', '.join('pgmq.' + m for m in missing)}",
            hint=f"upgrade pgmq to >= {minimum}",
            missing=missing,
        )
    missing = sorted(set(needs["relations"]) - set(pgmq["relations"]))
    if missing:
        out.error(
            "pgmq_relation_missing",
            f"pgmq lacks table(s) pgflow reads: {', '.join('pgmq.' + m for m in missing)}",
            missing=missing,
        )


def version_key(version: str) -> tuple[int, ...]:
    """``"1.13.0"`` -> ``(1, 13, 0)``; trailing zeros dropped, non-numeric suffixes ignored."""
    parts = [int(p) for p in re.findall(r"\d+", version.split("-")[0])]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def check_flows(out: Findings, flows: list[Any] | None, pgmq: Mapping[str, Any]) -> None:
    """Errors for flows without a usable queue; warnings for queues without NOTIFY.

    An error for a flow whose slug is too long for a pgmq queue name or whose queue table is
    missing; a warning for a queue without a working NOTIFY trigger. ``flows`` is None when
    the flows were not read.
    """
    if flows is None:
        return
    if flows and pgmq["installed"] and not pgmq["notify_available"]:
        out.warn(
            "pgmq_notify_unavailable",
            "pgmq has no pgmq.notify_insert_throttle (no NOTIFY on insert): workers only poll",
            hint="upgrade pgmq",
        )
    for flow in flows:
        slug = flow["flow_slug"]
        if len(slug) > MAX_QUEUE_NAME_LENGTH:
            out.error(
                "flow_queue_name_too_long",
                f"flow {slug!r}: its slug has {len(slug)} characters, but pgmq queue "
                f"names have at most {MAX_QUEUE_NAME_LENGTH}, so it cannot have a queue",
                hint="delete the flow (pgflow.delete_flow_and_data) and recreate it "
                "under a shorter slug",
                flow_slug=slug,
            )
            continue
        if not flow["queue_table"]:
            out.error(
                "flow_queue_missing",
                f"flow {slug!r}: its queue table pgmq.q_{slug.lower()} does not exist",
                hint=f"select pgmq.create('{slug}')",
                flow_slug=slug,
            )
            continue
        if flow["queue_registered"] is False:
            out.warn(
                "flow_queue_unregistered",
                f"flow {slug!r}: queue table pgmq.q_{slug.lower()} exists but pgmq.meta "
                "has no row for the queue",
                flow_slug=slug,
            )
        if slug != slug.lower():
            out.warn(
                "notify_unsupported_queue_name",
                f"flow {slug!r}: pgmq cannot NOTIFY for a queue name with upper-case "
                "letters; workers poll this queue",
                flow_slug=slug,
            )
            continue
        if not pgmq["notify_available"]:
            continue
        _check_notify(out, slug, flow)


def _check_notify(out: Findings, slug: str, flow: Mapping[str, Any]) -> None:
    enable = f"select pgmq.enable_notify_insert('{slug}')"
    trigger = flow["notify_trigger"]
    if trigger is None:
        out.warn(
            "notify_trigger_missing",
            f"flow {slug!r}: queue pgmq.q_{slug} has no {NOTIFY_TRIGGER} trigger, so "
            "workers only notice new tasks when they poll",
            hint=f"start a pgflow worker for the flow, or {enable}",
            flow_slug=slug,
        )
    else:
        if not trigger["deferrable"]:
            out.warn(
                "notify_trigger_not_deferrable",
                f"flow {slug!r}: trigger {NOTIFY_TRIGGER} on pgmq.q_{slug} is not a "
                "DEFERRABLE constraint trigger as pgmq creates it",
                hint=enable,
                flow_slug=slug,
            )
        if not trigger["enabled"]:
            out.warn(
                "notify_trigger_disabled",
                f"flow {slug!r}: trigger {NOTIFY_TRIGGER} on pgmq.q_{slug} is disabled",
                hint=f"alter table pgmq.q_{slug} enable trigger {NOTIFY_TRIGGER}",
                flow_slug=slug,
            )
    if flow["notify_throttle"] is False:
        out.warn(
            "notify_throttle_missing",
            f"flow {slug!r}: pgmq.notify_insert_throttle has no row for the queue, so "
            "its NOTIFY trigger never fires a notification",
            hint=enable,
            flow_slug=slug,
        )


def check_cron(out: Findings, cron: Mapping[str, Any], database: str | None) -> None:
    """Warnings when pg_cron is installed but the stalled-task sweep's job is not usable.

    The job is missing for ``database``, cannot be read (no privilege), or is inactive.
    """
    if not cron["installed"]:
        return
    schedule = "select pgflow.setup_tick_cron()"
    if not cron["jobs_readable"]:
        out.warn(
            "cron_job_unreadable",
            f"cannot read cron.job to look for the {CRON_JOB} job (no privilege)",
        )
        return
    jobs = [j for j in cron["jobs"] if j.get("database") in (None, database)]
    if not jobs:
        out.warn(
            "cron_job_missing",
            f"pg_cron is installed but has no {CRON_JOB} job for this database: wait "
            "timeouts, timers and stalled tasks are only handled while pgflow workers run "
            "(each calls pgflow.tick() every --tick-interval seconds, 5 by default)",
            hint=schedule,
        )
    elif not any(j.get("active", True) in (True, "true") for j in jobs):
        out.warn("cron_job_inactive", f"pg_cron job {CRON_JOB} is not active", hint=schedule)
