"""pgflow.observe.gauges against a real database: the collector registered in a fresh
registry, scraped with generate_latest and read back with the Prometheus text parser."""

from __future__ import annotations

import contextlib
import uuid

import psycopg
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from pgflow.observe.gauges import DatabaseGauges
from tests.integration.failing_runs import start_run
from tests.integration.test_observe_workers import (
    define_flow,
    register,
    start_claimed_runs,
    stop_beating,
)


def scrape(collector: DatabaseGauges) -> dict[str, dict[tuple, float]]:
    """Metric name -> {sorted label items: value}, from the exposition text."""
    registry = CollectorRegistry()
    registry.register(collector)
    text = generate_latest(registry).decode()
    metrics: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            metrics.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return metrics


def gauges_for(dsn: str, **kwargs) -> DatabaseGauges:
    return DatabaseGauges(lambda: psycopg.connect(dsn), **kwargs)


def test_the_gauges_of_a_busy_database(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    define_flow(pgflow_conn, "quiet")
    live = register(pgflow_conn, "obs")
    dead = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", live, 1)
    start_claimed_runs(pgflow_conn, "obs", dead, 2)
    stop_beating(pgflow_conn, dead, 300)
    waiting = [start_run(pgflow_conn, "obs") for _ in range(3)]
    pgflow_conn.execute("select pgflow.pause_run(%s, 'alice', 'look')", (waiting[0],))
    # The oldest visible message has been visible for 10 minutes.
    pgflow_conn.execute(
        "update pgmq.q_obs set vt = now() - interval '10 min'"
        " where msg_id = (select min(msg_id) from pgmq.q_obs where vt <= now())"
    )

    metrics = scrape(gauges_for(pgflow_dsn))

    assert metrics["pgflow_up"] == {(): 1.0}
    # 3 claimed (hidden) + 2 queued; pausing a run takes its queued task's message away.
    assert metrics["pgflow_queue_messages"] == {(("flow", "obs"),): 5.0, (("flow", "quiet"),): 0.0}
    assert metrics["pgflow_queue_visible_messages"] == {
        (("flow", "obs"),): 2.0,
        (("flow", "quiet"),): 0.0,
    }
    ages = metrics["pgflow_queue_oldest_message_age_seconds"]
    assert 600 <= ages[(("flow", "obs"),)] < 660
    assert ages[(("flow", "quiet"),)] == 0.0
    runs = metrics["pgflow_runs"]
    assert runs[(("flow", "obs"), ("status", "started"))] == 5.0
    assert runs[(("flow", "obs"), ("status", "paused"))] == 1.0
    assert runs[(("flow", "obs"), ("status", "completed"))] == 0.0
    assert len(runs) == 2 * 7  # every status of every flow
    assert metrics["pgflow_stuck_runs"] == {
        (("reason", "dead_worker"),): 2.0,
        (("reason", "paused"),): 1.0,
        (("reason", "permanently_stalled"),): 0.0,
        (("reason", "queued_too_long"),): 0.0,
        (("reason", "waiting_too_long"),): 0.0,
    }
    assert metrics["pgflow_workers"] == {
        (("state", "live"),): 1.0,
        (("state", "dead"),): 1.0,
        (("state", "deprecated"),): 0.0,
    }


def test_the_thresholds_are_the_collector_s(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", worker, 1)
    stop_beating(pgflow_conn, worker, 300)

    metrics = scrape(gauges_for(pgflow_dsn, dead_after_s=600))

    assert metrics["pgflow_workers"][(("state", "live"),)] == 1.0
    assert metrics["pgflow_stuck_runs"][(("reason", "dead_worker"),)] == 0.0


def test_an_unreachable_database_reports_pgflow_up_0_only():
    def connect():
        return psycopg.connect("host=127.0.0.1 port=1 dbname=none connect_timeout=2")

    metrics = scrape(DatabaseGauges(connect))

    assert metrics == {"pgflow_up": {(): 0.0}}


def test_a_scrape_past_its_statement_timeout_reports_pgflow_up_0(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    with psycopg.connect(pgflow_dsn) as locker:
        # Holds the lock until the block ends: the scrape's count of runs waits for it.
        locker.execute("lock table pgflow.runs in access exclusive mode")

        metrics = scrape(gauges_for(pgflow_dsn, statement_timeout_s=0.2))

    assert metrics == {"pgflow_up": {(): 0.0}}


def test_registering_does_not_connect():
    def connect():
        raise AssertionError("describe() must not connect")

    registry = CollectorRegistry()
    registry.register(DatabaseGauges(connect))  # raises if it collected


def _scrape_as(pgflow_dsn, pgflow_conn, *grants: str):
    """Scrape as a fresh role made with ``grants`` (SQL run after ``create role``)."""
    role = f"observe_reader_{uuid.uuid4().hex[:8]}"
    pgflow_conn.execute(f'create role "{role}" nologin')
    for grant in grants:
        pgflow_conn.execute(grant.format(role=role))

    @contextlib.contextmanager
    def as_role():
        with psycopg.connect(pgflow_dsn) as conn:
            conn.execute(f'set role "{role}"')
            yield conn

    try:
        return scrape(DatabaseGauges(as_role))
    finally:
        pgflow_conn.execute(f'drop owned by "{role}"')
        pgflow_conn.execute(f'drop role "{role}"')


def test_an_operator_reads_the_queue_gauges_without_pgmq_privileges(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    start_run(pgflow_conn, "obs")
    metrics = _scrape_as(pgflow_dsn, pgflow_conn, 'grant pgflow_operator to "{role}"')

    assert metrics["pgflow_up"] == {(): 1.0}
    assert metrics["pgflow_queue_messages"] == {(("flow", "obs"),): 1.0}
    assert metrics["pgflow_queue_visible_messages"] == {(("flow", "obs"),): 1.0}


def test_a_role_that_may_not_read_the_queues_still_gets_the_other_gauges(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    start_run(pgflow_conn, "obs")
    # pgflow_client reads run state but may not call get_queue_stats; workers granted apart.
    metrics = _scrape_as(
        pgflow_dsn,
        pgflow_conn,
        'grant pgflow_client to "{role}"',
        'grant select on pgflow.workers to "{role}"',
    )

    assert metrics["pgflow_up"] == {(): 1.0}
    assert metrics["pgflow_runs"][(("flow", "obs"), ("status", "started"))] == 1.0
    assert "pgflow_queue_messages" not in metrics
    assert metrics["pgflow_workers"][(("state", "live"),)] == 0.0


def test_a_non_positive_statement_timeout_is_refused(pgflow_dsn):
    with pytest.raises(ValueError, match="statement_timeout_s"):
        gauges_for(pgflow_dsn, statement_timeout_s=0)
