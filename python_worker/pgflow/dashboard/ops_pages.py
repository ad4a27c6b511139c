"""The Workers page, the Flows pages and ``/metrics`` (read-only handlers).

- ``/workers``: live and dead workers, last heartbeat age, tasks in flight; a dead worker
  is highlighted with the started tasks it holds and when the sweep requeues them
  (:mod:`pgflow.observe.workers`). ``?all=1`` adds stopped and long-dead workers.
- ``/flows``: every flow with its runs by status (:func:`pgflow.observe.flow_stats.list_flows`).
- ``/flows/<flow>?window=1h|24h|7d``: per step p50/p95 duration and failure and retry
  rates over the window, and the runs started and finished per interval as a bar chart.
- ``/metrics``: the database-wide gauges (:class:`pgflow.observe.gauges.DatabaseGauges`)
  in Prometheus' text format; no authentication (it holds counts, no payload).
"""

from __future__ import annotations

from typing import Final

from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response

from pgflow.dashboard.pages import not_found
from pgflow.dashboard.scrape import scrape
from pgflow.dashboard.svg_bars import draw_run_counts
from pgflow.dashboard.web import dashboard, gate, render
from pgflow.errors import FlowNotFound
from pgflow.observe.flow_stats import RUN_STATUSES, WINDOWS, list_flows, run_counts, step_stats
from pgflow.observe.workers import dead_worker_tasks, list_workers

#: The chart's interval for each window (seconds, multiples of 5 minutes).
BUCKETS: Final = {"1h": 300, "24h": 3600, "7d": 6 * 3600}


def workers_page(request: Request) -> Response:
    """``GET /workers``: workers by state, dead ones with the tasks they hold."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    include_ended = request.query_params.get("all") == "1"
    with dashboard(request).connection() as conn:
        workers = list_workers(conn, include_ended=include_ended)
        held = dead_worker_tasks(conn)
    by_worker: dict[str, list[object]] = {}
    for task in held:
        by_worker.setdefault(str(task.worker_id), []).append(task)
    context = {
        "workers": workers,
        "held": by_worker,
        "include_ended": include_ended,
        "counts": {s: sum(1 for w in workers if w.state == s) for s in ("live", "dead")},
    }
    return render(request, "workers.html", context, identity)


def flows_page(request: Request) -> Response:
    """``GET /flows``: every flow with its runs by status."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    with dashboard(request).connection() as conn:
        flows = list_flows(conn)
    return render(request, "flows.html", {"flows": flows, "statuses": RUN_STATUSES}, identity)


def flow_page(request: Request) -> Response:
    """``GET /flows/<flow>``: per step stats and runs per interval over one window."""
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    flow = request.path_params["flow"]
    window = request.query_params.get("window", "24h")
    if window not in WINDOWS:
        window = "24h"
    try:
        with dashboard(request).connection() as conn:
            steps = step_stats(conn, flow, WINDOWS[window])
            buckets = run_counts(conn, flow, WINDOWS[window], BUCKETS[window])
    except FlowNotFound:
        return not_found(request, identity, f"no flow {flow!r}")
    context = {
        "flow": flow,
        "window": window,
        "windows": list(WINDOWS),
        "steps": steps,
        "buckets": buckets,
        "chart_svg": draw_run_counts(buckets),
        "totals": {
            "started": sum(b.started for b in buckets),
            "finished": sum(b.finished for b in buckets),
            "failed": sum(b.failed for b in buckets),
        },
    }
    return render(request, "flow.html", context, identity)


def metrics(request: Request) -> Response:
    """``GET /metrics``: the database gauges in Prometheus' text format (read at each scrape)."""
    return Response(scrape(dashboard(request)), media_type=CONTENT_TYPE_LATEST)


def percent(value: float | None) -> str:
    """A rate as a percentage (``12.5 %``), ``-`` for None."""
    return "-" if value is None else f"{value * 100:.1f} %"
