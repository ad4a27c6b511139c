"""A real ``pgflow-worker --metrics-port 0`` scraped over HTTP and parsed with the Prometheus
text parser: after runs where a single step fails once, map elements fail once and a flow
fails for good, every counter equals what the database recorded (attempts, completed tasks,
``task:failed`` events and whether each was retried), the duration histograms count the
same attempts, the report histograms count every report, and nothing is left in flight;
the endpoint goes with the worker. A port that cannot be bound stops the worker at start.

The flows below are served by the worker processes of this test and of
tests/integration/test_worker_log_levels.py (as ``tests.integration.test_worker_metrics:*``).
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections import defaultdict
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from pgflow.dsl import Flow
from tests.integration.worker_harness import start_flow, wait_for, wait_run, worker_rows

# ---------------------------------------------------------------- flows
#: Every FAILING_ELEMENT-th map element, and the single step ``flaky``, fail their first
#: attempt (retried 2 s later: base_delay 1 x 2^1).
batch = Flow("metrics_batch", max_attempts=3, base_delay=1, timeout=10)
FAILING_ELEMENT = 5


@batch.array()
def items(input):
    return list(range(input["count"]))


@batch.map(array="items")
def each(item, ctx):
    if item % FAILING_ELEMENT == 0 and ctx.attempt == 1:
        raise RuntimeError(f"element {item} fails its first attempt")
    return item * 2


@batch.step()
def flaky(input, ctx):
    if ctx.attempt == 1:
        raise ConnectionError("the first attempt of flaky fails")
    return "ok"


@batch.step(depends_on=["each", "flaky"])
def total(input):
    return sum(input["each"])


#: One step that fails its only attempt: the run fails.
doomed = Flow("metrics_doomed", max_attempts=1, timeout=10)


@doomed.step()
def explode(input):
    raise ValueError("explode always fails")


BATCH = "tests.integration.test_worker_metrics:batch"
DOOMED = "tests.integration.test_worker_metrics:doomed"


def failures_expected(count: int) -> int:
    """Failed attempts of one ``metrics_batch`` run over ``count`` elements (all retried)."""
    return len(range(0, count, FAILING_ELEMENT)) + 1


# ---------------------------------------------------------------- helpers
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(port: int) -> Samples:
    """Every sample of the worker's endpoint: (sample name, labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def by_labels(samples: Samples, name: str, *keys: str) -> dict[tuple[str, ...], float]:
    """The samples of one name, keyed by the values of ``keys`` (summed over the others)."""
    found: dict[tuple[str, ...], float] = defaultdict(float)
    for (sample, labels), value in samples.items():
        if sample == name:
            label = dict(labels)
            found[tuple(label[k] for k in keys)] += value
    return dict(found)


def database_counts(conn: psycopg.Connection) -> dict[str, dict[tuple[str, ...], float]]:
    """What the database says, by (flow, step): attempts, completed tasks, failed attempts
    (task:failed events) and the retried ones."""
    attempts = conn.execute(
        "select flow_slug, step_slug, sum(attempts_count), count(*) filter "
        "(where status = 'completed') from pgflow.step_tasks group by 1, 2"
    ).fetchall()
    failures = conn.execute(
        "select r.flow_slug, e.step_slug, count(*), "
        "count(*) filter (where (e.details ->> 'retry')::boolean) "
        "from pgflow.run_events as e join pgflow.runs as r on r.run_id = e.run_id "
        "where e.event = 'task:failed' group by 1, 2"
    ).fetchall()
    return {
        "started": {(f, s): float(n) for f, s, n, _ in attempts},
        "completed": {(f, s): float(c) for f, s, _, c in attempts if c},
        "failed": {(f, s): float(n) for f, s, n, _ in failures},
        "retried": {(f, s): float(r) for f, s, _, r in failures if r},
    }


def settled(samples: Samples) -> bool:
    """Every started attempt has its outcome counted and nothing is in flight."""
    total = lambda name: sum(by_labels(samples, name).values())  # noqa: E731
    outcomes = sum(
        total(f"pgflow_worker_tasks_{kind}_total") for kind in ("completed", "failed", "ignored")
    )
    return (
        total("pgflow_worker_tasks_started_total") > 0
        and outcomes == total("pgflow_worker_tasks_started_total")
        and total("pgflow_worker_tasks_in_flight") == 0
    )


# ---------------------------------------------------------------- test
def test_scraped_metrics_equal_what_the_database_recorded(
    pgflow_conn: psycopg.Connection, start_worker: Any
):
    worker = start_worker(BATCH, DOOMED, "--metrics-port", "0", "--poll-interval", "0.2")
    worker.wait_running()
    served = worker.wait_log("serving metrics")
    assert served["metrics_host"] == "127.0.0.1"
    port = served["metrics_port"]
    assert isinstance(port, int) and port > 0

    counts = (12, 7)
    runs = [start_flow(pgflow_conn, "metrics_batch", {"count": n}) for n in counts]
    failed_run = start_flow(pgflow_conn, "metrics_doomed", {})
    for run_id, n in zip(runs, counts, strict=True):
        run = wait_run(pgflow_conn, run_id)
        assert run["status"] == "completed"
        assert run["output"] == {"total": 2 * sum(range(n))}
    assert wait_run(pgflow_conn, failed_run)["status"] == "failed"

    def scrape_settled() -> Samples | None:
        samples = scrape(port)
        return samples if settled(samples) else None

    samples = wait_for(scrape_settled, what="every started attempt counted")
    truth = database_counts(pgflow_conn)
    for kind in ("started", "completed", "failed", "retried"):
        scraped = by_labels(samples, f"pgflow_worker_tasks_{kind}_total", "flow", "step")
        assert {k: v for k, v in scraped.items() if v} == truth[kind], kind
    # The flows did what they are meant to: the counts above are not vacuous.
    retried = sum(failures_expected(n) for n in counts)
    assert sum(truth["failed"].values()) == retried + 1  # + explode, not retried
    assert sum(truth["retried"].values()) == retried
    assert truth["completed"][("metrics_batch", "each")] == sum(counts)
    assert sum(by_labels(samples, "pgflow_worker_tasks_ignored_total").values()) == 0

    durations = by_labels(
        samples, "pgflow_worker_task_duration_seconds_count", "flow", "step", "outcome"
    )
    for outcome, kind in (("completed", "completed"), ("failed", "failed")):
        counted = {(f, s): v for (f, s, o), v in durations.items() if o == outcome and v}
        assert counted == truth[kind], outcome

    # Every report went through a report call: their sizes add up to the reports.
    reports = by_labels(samples, "pgflow_worker_report_batch_size_sum", "function")
    calls = by_labels(samples, "pgflow_worker_report_batch_size_count", "function")
    assert reports == {
        ("complete_tasks",): sum(truth["completed"].values()),
        ("fail_tasks",): sum(truth["failed"].values()),
    }
    assert by_labels(samples, "pgflow_worker_report_duration_seconds_count", "function") == calls
    assert all(0 < calls[f] <= reports[f] for f in reports)

    polls = by_labels(samples, "pgflow_worker_poll_duration_seconds_count", "flow")
    assert set(polls) == {("metrics_batch",), ("metrics_doomed",)} and min(polls.values()) > 0
    in_flight = by_labels(samples, "pgflow_worker_tasks_in_flight", "flow")
    assert in_flight == {("metrics_batch",): 0, ("metrics_doomed",): 0}
    assert by_labels(samples, "pgflow_worker_stalled_tasks_requeued_total") == {(): 0}
    assert by_labels(samples, "pgflow_worker_max_concurrency") == {(): 32}

    info = by_labels(samples, "pgflow_worker_info", "flow", "worker_id", "sql_mode")
    expected_info = {
        (flow, str(worker_rows(pgflow_conn, flow)[0]["worker_id"]), "pgflow-py"): 1.0
        for flow in ("metrics_batch", "metrics_doomed")
    }
    assert info == expected_info

    worker.signal()
    assert worker.wait() == 0
    with pytest.raises(urllib.error.URLError):
        scrape(port)  # the endpoint stopped with the worker


def test_a_metrics_port_in_use_stops_the_worker_at_start(start_worker: Any):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        worker = start_worker(BATCH, "--metrics-port", str(port))
        assert worker.wait() == 2
    (error,) = [e for e in worker.logs() if e.get("level") == "error"]
    assert error["msg"].startswith(f"cannot serve metrics on 127.0.0.1:{port}: ")
    assert not worker.has_log("worker running")
