"""The "Needs attention" page: failed runs grouped, stuck runs by reason, acting on a group.

``GET /attention`` lists the failed runs grouped by flow, failed step and kind of error
(:mod:`pgflow.observe.failed_groups`) with counts and first/last seen, and the stuck runs
(:mod:`pgflow.observe.stuck`) grouped by reason. ``POST /attention/act`` acts on a whole
group with a reason: retry (or rerun) every failed run of a failed group, or cancel every
run of a stuck group (resume, for the paused group). Each run goes through the same
client verb as the run page, with ``expected_status`` the status the group implies, and
the flash message counts the outcomes ("retry 12 runs: 10 done, 1 already moved on, 1
not done").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Final

import psycopg
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from pgflow.client import Client
from pgflow.dashboard.actions import VERBS, checked_form, refuse
from pgflow.dashboard.auth import Identity
from pgflow.dashboard.web import Dashboard, dashboard, gate, redirect_with_flash, render
from pgflow.errors import PgflowError
from pgflow.observe.failed_groups import failed_group_runs, failed_groups
from pgflow.observe.stuck import stuck_runs

#: Per stuck reason: the run status its runs are in, and the verbs a group may take.
STUCK_ACTIONS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "paused": ("paused", ("resume", "cancel")),
    "queued_too_long": ("queued", ("cancel",)),
    "waiting_too_long": ("started", ("cancel",)),
}
#: The verbs a failed group may take.
FAILED_ACTIONS: Final = ("retry", "rerun")
#: The most runs one group action touches.
GROUP_LIMIT: Final = 1000


def attention_page(request: Request) -> Response:
    """``GET /attention``: failed groups and stuck runs."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    with dashboard(request).connection() as conn:
        groups = failed_groups(conn)
        stuck = stuck_runs(conn)
    by_reason: dict[str, list[object]] = {}
    for row in stuck:
        by_reason.setdefault(row.reason, []).append(row)
    context = {
        "groups": groups,
        "stuck": by_reason,
        "stuck_actions": STUCK_ACTIONS,
        "failed_actions": FAILED_ACTIONS,
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
    """Do ``verb`` on every run of the group; return the flash text and its kind.

    Args:
        dash: the app's state.
        identity: who acts.
        kind: ``failed`` (a failed group: ``flow``, ``step``, ``error_key`` in ``form``) or
            a stuck reason of :data:`STUCK_ACTIONS`.
        verb: a key of :data:`pgflow.dashboard.actions.VERBS`.
        expected: the run status the group implies (``expected_status`` of each call).
        reason: why.
        form: the form.

    Returns:
        ``("<verb> <n> runs: <a> done, <b> already moved on, <c> not done", kind)``.
    """
    outcomes: Counter[str] = Counter()
    with dash.connection() as conn:
        if kind == "failed":
            flow, step = form.get("flow", ""), form.get("step", "")
            run_ids = failed_group_runs(
                conn, flow, step, form.get("error_key", ""), limit=GROUP_LIMIT
            )
        else:
            run_ids = sorted(
                {str(r.run_id) for r in stuck_runs(conn, reasons=[kind], limit=GROUP_LIMIT)}
            )
        client = Client(connection=conn)
        method = getattr(client, VERBS[verb])
        for run_id in run_ids:
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
    counts = ", ".join(
        f"{outcomes[k]} {k}" for k in ("done", "already moved on", "not done") if outcomes[k]
    )
    level = (
        "ok" if outcomes["done"] == len(run_ids) else ("error" if outcomes["not done"] else "info")
    )
    runs = "run" if len(run_ids) == 1 else "runs"
    return f"{verb} {len(run_ids)} {runs}: {counts}", level
