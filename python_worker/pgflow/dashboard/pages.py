"""The runs list (``/``) and the run page (``/runs/<run_id>``), read-only handlers.

Both run in Starlette's threadpool (plain functions) and read through
:mod:`pgflow.observe.runs` and :mod:`pgflow.observe.run_detail`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from pgflow.dashboard.run_query import newest_link, older_link, parse_run_query
from pgflow.dashboard.svg_dag import draw_dag
from pgflow.dashboard.svg_timeline import draw_timeline
from pgflow.dashboard.web import dashboard, gate, render
from pgflow.observe.run_detail import RunDetail, load_run
from pgflow.observe.run_tasks import TASKS_PER_STEP
from pgflow.observe.runs import STATUSES, list_runs

#: The run statuses each action applies to (the SQL decides in the end; these choose which
#: forms the page offers). A queued run has not run: rerun_flow refuses it.
ACTIONS_BY_STATUS: dict[str, tuple[str, ...]] = {
    "queued": ("cancel", "signal"),
    "started": ("pause", "cancel", "rerun", "skip", "signal"),
    "paused": ("resume", "cancel", "rerun", "skip", "signal"),
    "failed": ("retry", "rerun", "skip"),
    "completed": ("rerun",),
    "cancelled": ("rerun",),
    "expired": ("rerun",),
}


def runs_page(request: Request) -> Response:
    """``GET /``: the runs list, filtered, newest first, one page at a time."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    query = parse_run_query(request.query_params)
    if query.run_id is not None:
        return RedirectResponse(f"/runs/{query.run_id}", status_code=303)
    dash = dashboard(request)
    with dash.connection() as conn:
        page = list_runs(conn, query.filters, cursor=query.cursor, limit=dash.settings.page_size)
        flows = [row[0] for row in conn.execute("select flow_slug from pgflow.flows order by 1")]
    context = {
        "runs": page.runs,
        "query": query,
        "values": query.values,
        "problems": query.problems,
        "statuses": STATUSES,
        "flows": flows,
        "older": older_link(query, page.next_cursor) if page.next_cursor else None,
        "newest": newest_link(query) if query.cursor is not None else None,
    }
    return render(request, "runs.html", context, identity)


def run_page(request: Request) -> Response:
    """``GET /runs/<run_id>``: one run in full, with the action forms when allowed."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    run_id = request.path_params["run_id"]
    try:
        run_id = str(uuid.UUID(run_id))
    except ValueError:
        return not_found(request, identity, f"{run_id!r} is not a run id")
    dash = dashboard(request)
    with dash.connection() as conn:
        detail = load_run(conn, run_id, redact=dash.settings.redact)
    if detail is None:
        return not_found(request, identity, f"no run {run_id} (unknown, or pruned)")
    return render(request, "run.html", run_context(detail), identity)


#: The step statuses skip_step accepts in a started or paused run (in a failed run: failed).
SKIPPABLE: tuple[str, ...] = ("created", "waiting")


def run_context(detail: RunDetail) -> dict[str, Any]:
    """The template context of a run page."""
    run = detail.run
    end = run["ended_at"] or detail.now
    skippable = [
        step.step_slug
        for step in detail.steps
        if (run["status"] in ("started", "paused") and step.status in SKIPPABLE)
        or (run["status"] == "failed" and step.status == "failed")
    ]
    actions = [
        verb for verb in ACTIONS_BY_STATUS.get(run["status"], ()) if verb != "skip" or skippable
    ]
    return {
        "detail": detail,
        "run": run,
        "summary": detail.summary,
        "input_json": pretty(run["input"]),
        "output_json": None if run["output"] is None else pretty(run["output"]),
        "dag_svg": draw_dag(detail.steps),
        "timeline_svg": draw_timeline(
            detail.attempts,
            run["started_at"],
            end,
            retried_at=detail.history.retried_at,
            not_read=detail.tasks_not_read,
        ),
        "failed_steps": [s for s in detail.steps if s.status == "failed" and s.error_message],
        "actions": actions,
        "skippable": skippable,
        "tasks_per_step": TASKS_PER_STEP,
        "pretty": pretty,
    }


def pretty(value: Any) -> str:
    """A JSON value as indented text."""
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False, default=str)


def not_found(request: Request, identity: Any, message: str) -> Response:
    """The 404 page saying ``message``."""
    return render(
        request, "error.html", {"title": "Not found", "message": message}, identity, status_code=404
    )
