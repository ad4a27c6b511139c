"""The worker's metrics HTTP endpoint: the registry served in the text format (parsed with
the Prometheus text parser), a port in use refused at startup, and the port freed again
when the endpoint closes.
"""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pgflow.errors import WorkerStartupError
from pgflow.worker.metrics import WorkerMetrics, serve_metrics


def scrape(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def test_the_endpoint_serves_the_registry_in_the_text_format():
    metrics = WorkerMetrics()
    step = metrics.task_started("served", "s")
    metrics.task_completed(step, 0.2)
    metrics.task_ended(step)
    server = serve_metrics(metrics.registry, "127.0.0.1", 0)
    try:
        assert server.port > 0 and server.host == "127.0.0.1"
        families = scrape(server.port)
    finally:
        server.close()
    # The parser names counters without their _total suffix; their samples keep it.
    completed = families["pgflow_worker_tasks_completed"]
    assert completed.type == "counter"
    assert [
        (s.name, s.labels, s.value) for s in completed.samples if s.name.endswith("_total")
    ] == [("pgflow_worker_tasks_completed_total", {"flow": "served", "step": "s"}, 1.0)]
    duration = families["pgflow_worker_task_duration_seconds"]
    assert duration.type == "histogram"
    buckets = {
        s.labels["le"]: s.value
        for s in duration.samples
        if s.name.endswith("_bucket") and s.labels["outcome"] == "completed"
    }
    assert (buckets["0.1"], buckets["0.25"], buckets["+Inf"]) == (0, 1, 1)
    assert families["pgflow_worker_tasks_in_flight"].type == "gauge"
    for name in ("pgflow_worker_poll_duration_seconds", "pgflow_worker_report_batch_size"):
        assert families[name].type == "histogram"
    # No process or platform collectors of the global registry.
    assert not [name for name in families if not name.startswith("pgflow_worker_")]


def test_a_port_in_use_is_a_startup_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(WorkerStartupError, match=f"cannot serve metrics on 127.0.0.1:{port}"):
            serve_metrics(WorkerMetrics().registry, "127.0.0.1", port)


def test_closing_the_endpoint_frees_its_port():
    server = serve_metrics(WorkerMetrics().registry, "127.0.0.1", 0)
    port = server.port
    server.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
