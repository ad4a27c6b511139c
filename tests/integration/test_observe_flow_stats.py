"""pgflow.observe.flow_stats against a real database: runs by status per flow, and the
step statistics and run counts read through pgflow.get_step_stats / get_run_counts."""

from __future__ import annotations

import psycopg
import pytest

from pgflow.errors import FlowNotFound
from pgflow.observe.flow_stats import RUN_STATUSES, list_flows, run_counts, step_stats
from tests.integration.failing_runs import start_run
from tests.integration.test_observe_workers import claim, define_flow, register

# ---------------------------------------------------------------- helpers


def finish_one(conn: psycopg.Connection, slug: str, outcome: str) -> None:
    """Claim the flow's visible tasks (one expected) and complete or fail it."""
    worker = register(conn, slug)
    [(run_id, step, index)] = claim(conn, slug, worker, 1)
    if outcome == "complete":
        conn.execute("select pgflow.complete_task(%s, %s, %s, '1')", (run_id, step, index))
    else:
        conn.execute("select pgflow.fail_task(%s, %s, %s, 'boom')", (run_id, step, index))


def runs_in_every_status(conn: psycopg.Connection, slug: str) -> None:
    """Runs of one-step flow ``slug`` (concurrency_limit 1, max_attempts 1): 2 completed,
    1 failed, 1 started (holding key k), 1 queued (behind it), 1 paused, 1 cancelled, 1
    expired: 8 runs."""
    conn.execute(
        "select pgflow.create_flow(%s, max_attempts => 1, concurrency_limit => 1)", (slug,)
    )
    conn.execute("select pgflow.add_step(%s, 'only')", (slug,))
    for outcome in ("complete", "complete", "fail"):
        start_run(conn, slug)
        finish_one(conn, slug, outcome)
    conn.execute("select pgflow.start_flow(%s, '{}'::jsonb, concurrency_key => 'k')", (slug,))
    (queued,) = conn.execute(
        "select status from pgflow.start_flow(%s, '{}'::jsonb, concurrency_key => 'k')", (slug,)
    ).fetchone()
    assert queued == "queued"
    paused = start_run(conn, slug)
    conn.execute("select pgflow.pause_run(%s, 'alice', 'look')", (paused,))
    cancelled = start_run(conn, slug)
    conn.execute("select pgflow.cancel_run(%s, 'bob', 'no')", (cancelled,))
    expired = start_run(conn, slug)
    conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s",
        (expired,),
    )
    conn.execute("select pgflow.tick()")


# ---------------------------------------------------------------- list_flows


def test_list_flows_counts_runs_in_every_status(pgflow_conn):
    runs_in_every_status(pgflow_conn, "busy")
    define_flow(pgflow_conn, "idle", steps=3)

    flows = list_flows(pgflow_conn)

    assert [(f.flow_slug, f.step_count) for f in flows] == [("busy", 1), ("idle", 3)]
    busy, idle = flows
    assert busy.runs_by_status == {
        "queued": 1,
        "started": 1,  # the key's holder
        "paused": 1,
        "completed": 2,
        "failed": 1,
        "cancelled": 1,
        "expired": 1,
    }
    assert list(busy.runs_by_status) == list(RUN_STATUSES)
    (newest,) = pgflow_conn.execute(
        "select max(started_at) from pgflow.runs where flow_slug = 'busy'"
    ).fetchone()
    assert busy.last_started_at == newest
    assert idle.runs_by_status == dict.fromkeys(RUN_STATUSES, 0)
    assert idle.last_started_at is None


def test_list_flows_of_an_empty_database(pgflow_conn):
    assert list_flows(pgflow_conn) == []


# ---------------------------------------------------------------- step_stats


def test_step_stats_counts_outcomes_retries_and_durations(pgflow_conn):
    define_flow(pgflow_conn, "obs", steps=2, max_attempts=2)
    for _ in range(3):
        start_run(pgflow_conn, "obs")
        finish_one(pgflow_conn, "obs", "complete")  # s1
        finish_one(pgflow_conn, "obs", "complete")  # s2
    # One run retries s1 once, then completes it, then fails s2 twice (its run fails).
    start_run(pgflow_conn, "obs")
    finish_one(pgflow_conn, "obs", "fail")
    finish_one(pgflow_conn, "obs", "complete")
    finish_one(pgflow_conn, "obs", "fail")
    finish_one(pgflow_conn, "obs", "fail")
    # Every completed step took 2 s (moved back in time: the database clock decides).
    pgflow_conn.execute(
        "update pgflow.step_states set created_at = completed_at - interval '2 s',"
        " started_at = completed_at - interval '2 s' where status = 'completed'"
    )

    s1, s2 = step_stats(pgflow_conn, "obs", 3600)

    assert (s1.step_slug, s1.finished, s1.completed, s1.failed, s1.retried) == ("s1", 4, 4, 0, 1)
    assert (s1.failure_rate, s1.retry_rate) == (0.0, 0.25)
    assert (s2.step_slug, s2.finished, s2.completed, s2.failed, s2.retried) == ("s2", 4, 3, 1, 1)
    assert (s2.failure_rate, s2.retry_rate) == (0.25, 0.25)
    for stats in (s1, s2):
        # Histogram estimates: the 2 s element spans 2^(43/4) .. 2^11 ms.
        assert 1.72 <= stats.p50_s <= 2.05
        assert 1.72 <= stats.p95_s <= 2.05
        assert (stats.skipped, stats.cancelled) == (0, 0)


def test_step_stats_of_a_flow_without_finished_runs(pgflow_conn):
    define_flow(pgflow_conn, "obs", steps=2)
    start_run(pgflow_conn, "obs")

    rows = step_stats(pgflow_conn, "obs", 86400)

    assert [(s.step_slug, s.finished, s.failure_rate, s.retry_rate, s.p50_s) for s in rows] == [
        ("s1", 0, None, None, None),
        ("s2", 0, None, None, None),
    ]


def test_step_stats_errors(pgflow_conn):
    define_flow(pgflow_conn, "obs")

    with pytest.raises(FlowNotFound, match="nope"):
        step_stats(pgflow_conn, "nope", 3600)
    for window in (0, 32 * 86400):
        with pytest.raises(ValueError, match="window_s"):
            step_stats(pgflow_conn, "obs", window)


# ---------------------------------------------------------------- run_counts


def test_run_counts_sum_to_the_runs_started_and_ended_in_the_window(pgflow_conn):
    runs_in_every_status(pgflow_conn, "busy")

    buckets = run_counts(pgflow_conn, "busy", 3600, 300)

    assert len(buckets) in (12, 13)  # from the 5-minute bucket holding now - 1 h to now
    starts = [b.bucket_start for b in buckets]
    assert starts == sorted(starts)
    assert all((b.bucket_start.timestamp() % 300) == 0 for b in buckets)
    # Eight runs, one of them still queued: a queued run starts when it leaves the queue.
    assert sum(b.started for b in buckets) == 7
    assert sum(b.completed for b in buckets) == 2
    assert sum(b.failed for b in buckets) == 1
    assert sum(b.cancelled for b in buckets) == 1
    assert sum(b.expired for b in buckets) == 1
    assert sum(b.finished for b in buckets) == 5
    [last] = [b for b in buckets if b.finished]
    assert last.p50_s is not None


def test_run_counts_errors(pgflow_conn):
    define_flow(pgflow_conn, "obs")

    with pytest.raises(FlowNotFound):
        run_counts(pgflow_conn, "nope", 3600, 300)
    for bucket in (0, 100, 301):
        with pytest.raises(ValueError, match="bucket_s"):
            run_counts(pgflow_conn, "obs", 3600, bucket)
    with pytest.raises(ValueError, match="window_s"):
        run_counts(pgflow_conn, "obs", -1, 300)
