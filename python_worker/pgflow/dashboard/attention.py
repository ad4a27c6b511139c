"""The "Needs attention" page: failed runs grouped, stuck runs by reason, acting on a group.

``GET /attention`` lists the failed runs grouped by flow, failed step and kind of error
(:mod:`pgflow.observe.failed_groups`) with counts and first/last seen, and the stuck runs
(:mod:`pgflow.observe.stuck`) grouped by reason. ``POST /attention/act`` acts on a whole
group with a reason: retry (or rerun) every failed run of a failed group, or cancel every
run of a stuck group (resume, for the paused group). Each run goes through the same
client verb as the run page, with ``expected_status`` the status the group implies, and
the flash message counts the outcomes ("retry 12 runs: 10 done, 1 already moved on, 1
not done"). One action takes at most :data:`GROUP_LIMIT` runs; a larger group is said so
("retry 1,000 of 20,000 runs: 1,000 done; 19,000 remain: run it again"). The form carries
when the page was shown (``seen_at``, the engine's clock, ``pgflow._now()``): "rerun all"
leaves alone a run rerun since then ("already rerun"), so a second click does not rerun the
group twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Final

import psycopg
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from pgflow.client import Client
from pgflow.dashboard.actions import VERBS, checked_form, refuse
from pgflow.dashboard.auth import Identity
from pgflow.dashboard.run_query import parse_time
from pgflow.dashboard.web import Dashboard, dashboard, gate, redirect_with_flash, render
from pgflow.errors import PgflowError
from pgflow.observe.failed_groups import failed_group_runs, failed_group_size, failed_groups
from pgflow.observe.run_history import reruns_since
from pgflow.observe.stuck import stuck_counts, stuck_runs

#: Per stuck reason: the run status its runs are in, and the verbs a group may take.
STUCK_ACTIONS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "paused": ("paused", ("resume", "cancel")),
    "queued_too_long": ("queued", ("cancel",)),
    "waiting_too_long": ("started", ("cancel",)),
}
#: The verbs a failed group may take.
FAILED_ACTIONS: Final = ("retry", "rerun")
#: The most runs one group action touches (a larger group takes several clicks).
GROUP_LIMIT: Final = 1000
#: The order the flash message counts the outcomes in.
_OUTCOMES: Final = ("done", "already moved on", "already rerun", "not done")


def attention_page(request: Request) -> Response:
    """``GET /attention``: failed groups and stuck runs."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    with dashboard(request).connection() as conn:
        groups = failed_groups(conn)
        stuck = stuck_runs(conn)
        counts = stuck_counts(conn)
        seen_at = conn.execute("select pgflow._now()").fetchone()
    by_reason: dict[str, list[object]] = {}
    for row in stuck:
        by_reason.setdefault(row.reason, []).append(row)
    context = {
        "groups": groups,
        "stuck": by_reason,
        "stuck_counts": counts,
        "stuck_actions": STUCK_ACTIONS,
        "failed_actions": FAILED_ACTIONS,
        "seen_at": seen_at[0].isoformat() if seen_at is not None else "",
    }
    return render(request, "attention.html", context, identity)


async def group_action(request: Request) -> Response:
    """``POST /attention/act``: one verb on every run of a group; the counts in a flash."""
    checked = await checked_form(request)
    if isinstance(checked, Response):
        return checked
    identity, form = checked
    reason = form.get("reason", "").strip()
    if not reason:
        return redirect_with_flash("/attention", "not done: a reason is required", "error")
    verb = form.get("verb", "")
    kind = form.get("group", "")
    if kind == "failed" and verb in FAILED_ACTIONS:
        expected = "failed"
    elif kind in STUCK_ACTIONS and verb in STUCK_ACTIONS[kind][1]:
        expected = STUCK_ACTIONS[kind][0]
    else:
        return refuse(400, f"no action {verb!r} for group {kind!r}")
    text, level = await run_in_threadpool(
        act_on_group, dashboard(request), identity, kind, verb, expected, reason, form
    )
    return redirect_with_flash("/attention", text, level)


def act_on_group(
    dash: Dashboard,
    identity: Identity,
    kind: str,
    verb: str,
    expected: str,
    reason: str,
    form: Mapping[str, str],
) -> tuple[str, str]:
    """Do ``verb`` on every run of the group (at most :data:`GROUP_LIMIT`); say what came of it.

    Args:
        dash: the app's state.
        identity: who acts.
        kind: ``failed`` (a failed group: ``flow``, ``step``, ``error_key`` in ``form``) or
            a stuck reason of :data:`STUCK_ACTIONS`.
        verb: a key of :data:`pgflow.dashboard.actions.VERBS`.
        expected: the run status the group implies (``expected_status`` of each call).
        reason: why.
        form: the form (``seen_at``: when the page was shown, required for ``rerun``).

    Returns:
        ``("<verb> <n> runs: <a> done, <b> already moved on, <c> not done", kind)``; for a
        group larger than :data:`GROUP_LIMIT`, ``"<verb> <n> of <total> runs: ...; <m>
        remain: run it again"``.
    """
    seen_at = _seen_at(form) if verb == "rerun" else None
    if verb == "rerun" and seen_at is None:
        return "not done: the form did not say when you saw the group", "error"
    outcomes: Counter[str] = Counter()
    with dash.connection() as conn:
        if kind == "failed":
            flow, step = form.get("flow", ""), form.get("step", "")
            error_key = form.get("error_key", "")
            run_ids = failed_group_runs(conn, flow, step, error_key, limit=GROUP_LIMIT)
            total = failed_group_size(conn, flow, step, error_key)
        else:
            run_ids = sorted(
                {str(r.run_id) for r in stuck_runs(conn, reasons=[kind], limit=GROUP_LIMIT)}
            )
            total = stuck_counts(conn).get(kind, 0)
        # Runs rerun since the page was shown are left alone. Check, then act: another post
        # at the same moment can still rerun a run twice (rerun_flow has no idempotency key).
        rerun = reruns_since(conn, run_ids, seen_at) if seen_at is not None else {}
        client = Client(connection=conn)
        method = getattr(client, VERBS[verb])
        for run_id in run_ids:
            if run_id in rerun:
                outcomes["already rerun"] += 1
                continue
            try:
                result = method(
                    run_id, actor=identity.actor, reason=reason, expected_status=expected
                )
            except (PgflowError, psycopg.Error):
                outcomes["not done"] += 1
                continue
            outcomes["done" if result.changed else "already moved on"] += 1
    if not run_ids:
        return f"{verb}: no run in this group any more", "info"
    return _said(verb, outcomes, len(run_ids), max(total, len(run_ids)))


def _said(verb: str, outcomes: Counter[str], tried: int, total: int) -> tuple[str, str]:
    """The flash text and kind of a group action that tried ``tried`` of ``total`` runs."""
    counts = ", ".join(f"{outcomes[k]:,} {k}" for k in _OUTCOMES if outcomes[k])
    remain = total - tried
    if outcomes["not done"]:
        level = "error"
    elif outcomes["done"] == tried and not remain:
        level = "ok"
    else:
        level = "info"
    if remain:
        return (
            f"{verb} {tried:,} of {total:,} runs: {counts}; {remain:,} remain: run it again",
            level,
        )
    runs = "run" if tried == 1 else "runs"
    return f"{verb} {tried:,} {runs}: {counts}", level


def _seen_at(form: Mapping[str, str]) -> datetime | None:
    """The form's ``seen_at`` (ISO 8601, from the database clock), or None if unreadable."""
    try:
        return parse_time(form.get("seen_at", ""))
    except ValueError:
        return None
