"""S1 dashboard pages: how long the dashboard takes to answer over 1,000,000 finished runs.

Measured in the database S1 fills (bench/history.py: 1,000,000 finished runs of
``bench_w1`` over 30 days), through the real app (``pgflow.dashboard.create_app``, its
queries, templates and connection pool) driven by Starlette's TestClient in this process:
the time of one whole GET, from request to rendered HTML, per page. Each page is fetched
once untimed (a first visit of a flow page writes the stats of the last 7 days' 5-minute
buckets once: ``pgflow.get_step_stats``; that first visit is reported apart), then
``calls`` times; the median and p95 are kept.
"""

from __future__ import annotations

import time
from typing import Any

from bench.stats import percentile

FLOW = "bench_w1"
#: (key, label, path) of each page measured.
PAGES = (
    ("runs", "runs list, newest first", "/"),
    ("runs_flow", "runs list of one flow", f"/?flow={FLOW}"),
    ("runs_failed", "runs list, failed only", "/?status=failed"),
    ("runs_older", "runs list, a page 20 days back", None),
    ("flow_24h", "flow page, 24 h", f"/flows/{FLOW}?window=24h"),
    ("flow_7d", "flow page, 7 d", f"/flows/{FLOW}?window=7d"),
)


def measure_pages(dsn: str, calls: int) -> dict[str, Any]:
    """Fetch each dashboard page ``calls`` times; return per-page median and p95 in ms.

    Args:
        dsn: the S1 database (the history filled).
        calls: timed fetches per page.

    Returns:
        ``{key: {"median_ms", "p95_ms", "first_ms"}}`` per page of :data:`PAGES`.

    Raises:
        RuntimeError: a page did not answer 200.
    """
    from starlette.testclient import TestClient

    from pgflow.dashboard import create_app
    from pgflow.dashboard.settings import Settings

    results: dict[str, Any] = {}
    with TestClient(create_app(Settings(dsn=dsn))) as client:
        for key, _label, path in PAGES:
            url = path if path is not None else _older_page(dsn)
            began = time.perf_counter()
            _get(client, url)
            first_ms = (time.perf_counter() - began) * 1000
            samples = []
            for _ in range(calls):
                began = time.perf_counter()
                _get(client, url)
                samples.append((time.perf_counter() - began) * 1000)
            results[key] = {
                "median_ms": percentile(samples, 50),
                "p95_ms": percentile(samples, 95),
                "first_ms": round(first_ms, 1),
            }
    return results


def _get(client: Any, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"dashboard {url}: HTTP {response.status_code}")


def _older_page(dsn: str) -> str:
    """The runs list's "older" page that starts 20 days back (keyset pagination)."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "select started_at, run_id from pgflow.runs where flow_slug = %s"
            " and started_at < now() - interval '20 days'"
            " order by started_at desc, run_id desc limit 1",
            (FLOW,),
        ).fetchone()
    if row is None:
        raise RuntimeError("S1 dashboard: no run 20 days back")
    from urllib.parse import urlencode

    return "/?" + urlencode({"before": row[0].isoformat(), "before_id": str(row[1])})
