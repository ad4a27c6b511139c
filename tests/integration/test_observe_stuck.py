"""pgflow.observe.stuck against a real database: each reason a run is held, its words and
counts. Time passes by moving stored timestamps into the past."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from pgflow.observe.stuck import STUCK_REASONS, span, stuck_counts, stuck_runs
from tests.integration.failing_runs import run_status, start_run
from tests.integration.test_observe_workers import (
    claim,
    define_flow,
    register,
    start_claimed_runs,
    stop_beating,
)
from tests.integration.wait_flows import (
    define_approval_flow,
    define_timer_flow,
    start_waiting_run,
)

# ---------------------------------------------------------------- helpers


def by_reason(conn, **kwargs) -> dict[str, list]:
    rows: dict[str, list] = {}
    for row in stuck_runs(conn, **kwargs):
        rows.setdefault(row.reason, []).append(row)
    return rows


def pause(conn: psycopg.Connection, run_id: str, hours_ago: float = 0) -> None:
    conn.execute("select pgflow.pause_run(%s, 'alice', 'checking the input')", (run_id,))
    conn.execute(
        "update pgflow.runs set paused_at = now() - make_interval(secs => %s) where run_id = %s",
        (hours_ago * 3600.0, run_id),
    )


def queued_run(conn: psycopg.Connection, slug: str, key: str, minutes_ago: float) -> str:
    """Start a run of ``slug`` (concurrency_limit 1) that queues behind the key's holder."""
    row = conn.execute(
        "select run_id, status from pgflow.start_flow(%s, '{}'::jsonb, concurrency_key => %s)",
        (slug, key),
    ).fetchone()
    assert row[1] == "queued"
    conn.execute(
        "update pgflow.runs set queued_at = now() - make_interval(secs => %s),"
        " started_at = now() - make_interval(secs => %s) where run_id = %s",
        (minutes_ago * 60.0, minutes_ago * 60.0, row[0]),
    )
    return str(row[0])


def wait_since(conn: psycopg.Connection, run_id: str, step: str, seconds_ago: float) -> None:
    conn.execute(
        "update pgflow.wait_states set waiting_since = now() - make_interval(secs => %s)"
        " where run_id = %s and step_slug = %s",
        (float(seconds_ago), run_id, step),
    )


def stall_until_given_up(conn: psycopg.Connection, slug: str, worker: uuid.UUID) -> str:
    """Claim the flow's one task and let it stall 4 times: the sweep requeues it 3 times,
    then gives up (the task and its step fail). Returns the run id."""
    run_id = None
    for _ in range(4):
        [(run_id, _step, _index)] = claim(conn, slug, worker)
        conn.execute(
            "update pgflow.step_tasks set queued_at = now() - interval '2 min',"
            " started_at = now() - interval '1 min' where run_id = %s and status = 'started'",
            (run_id,),
        )
        conn.execute("select pgflow.requeue_stalled_tasks()")
    return str(run_id)


# ---------------------------------------------------------------- words


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "-"),
        (-5, "0s"),
        (59.9, "59s"),
        (60, "1m"),
        (7199, "1h"),
        (7200, "2h"),
        (86400 * 3, "3d"),
    ],
)
def test_span_says_a_duration_in_its_largest_whole_unit(seconds, text):
    assert span(seconds) == text


# ---------------------------------------------------------------- each reason


def test_a_paused_run_says_who_paused_it_and_why(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    run_id = start_run(pgflow_conn, "obs")
    pause(pgflow_conn, run_id, hours_ago=2)

    [row] = stuck_runs(pgflow_conn)

    assert (str(row.run_id), row.flow_slug, row.reason, row.step_slug) == (
        run_id,
        "obs",
        "paused",
        None,
    )
    assert row.detail == "paused 2h ago by alice: checking the input"
    assert 7200 <= row.age_s < 7230


def test_a_run_queued_past_the_threshold(pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('limited', concurrency_limit => 1)")
    pgflow_conn.execute("select pgflow.add_step('limited', 's1')")
    pgflow_conn.execute("select pgflow.start_flow('limited', '{}'::jsonb, concurrency_key => 'k')")
    old = queued_run(pgflow_conn, "limited", "k", minutes_ago=90)
    recent = queued_run(pgflow_conn, "limited", "k", minutes_ago=10)

    default = stuck_runs(pgflow_conn)
    tighter = stuck_runs(pgflow_conn, queued_threshold_s=300)

    assert [(str(r.run_id), r.reason) for r in default] == [(old, "queued_too_long")]
    assert default[0].detail == "queued for 1h, waiting for a concurrency slot of key k"
    assert [str(r.run_id) for r in tighter] == [old, recent]
    assert tighter[1].detail == "queued for 10m, waiting for a concurrency slot of key k"


def test_a_signal_wait_past_the_threshold(pgflow_conn):
    define_approval_flow(pgflow_conn, "approvals", timeout=30 * 86400)
    define_approval_flow(pgflow_conn, "forever", timeout=None)
    long_wait = start_waiting_run(pgflow_conn, "approvals")
    short_wait = start_waiting_run(pgflow_conn, "approvals")
    no_timeout = start_waiting_run(pgflow_conn, "forever")
    wait_since(pgflow_conn, long_wait, "approve", 2 * 86400)
    wait_since(pgflow_conn, short_wait, "approve", 3600)
    wait_since(pgflow_conn, no_timeout, "approve", 3 * 86400)

    rows = stuck_runs(pgflow_conn)

    assert [(str(r.run_id), r.reason, r.step_slug) for r in rows] == [
        (no_timeout, "waiting_too_long", "approve"),
        (long_wait, "waiting_too_long", "approve"),
    ]
    assert rows[0].detail == "waiting for signal approved for 3d, no timeout"
    # The deadline did not move: 30 days after the start, minus the seconds the test took.
    assert rows[1].detail == "waiting for signal approved for 2d, times out in 29d"
    assert [str(r.run_id) for r in stuck_runs(pgflow_conn, wait_threshold_s=1800)] == [
        no_timeout,
        long_wait,
        short_wait,
    ]


def test_a_timer_is_listed_only_once_overdue(pgflow_conn):
    define_timer_flow(pgflow_conn, "cooling", seconds=7 * 86400)
    sleeping = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    overdue = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    just_due = start_waiting_run(pgflow_conn, "cooling", "cool_off")
    for run_id in (sleeping, overdue, just_due):
        wait_since(pgflow_conn, run_id, "cool_off", 30 * 86400)
    pgflow_conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '10 min' where run_id = %s",
        (overdue,),
    )
    pgflow_conn.execute(
        "update pgflow.wait_states set deadline = now() - interval '10 s' where run_id = %s",
        (just_due,),
    )

    [row] = stuck_runs(pgflow_conn)

    assert (str(row.run_id), row.reason, row.step_slug) == (overdue, "waiting_too_long", "cool_off")
    assert row.detail == (
        "timer due 10m ago but not fired: is pgflow.tick() running (a worker's tick or a "
        "pg_cron job)?"
    )


def test_the_waits_of_a_paused_run_count_as_paused_only(pgflow_conn):
    define_approval_flow(pgflow_conn, "approvals")
    run_id = start_waiting_run(pgflow_conn, "approvals")
    wait_since(pgflow_conn, run_id, "approve", 5 * 86400)
    pause(pgflow_conn, run_id)

    assert [r.reason for r in stuck_runs(pgflow_conn)] == ["paused"]


def test_tasks_held_by_a_dead_worker(pgflow_conn):
    define_flow(pgflow_conn, "obs", timeout=60)
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    stop_beating(pgflow_conn, worker, 300)

    [row] = stuck_runs(pgflow_conn)

    assert (str(row.run_id), row.reason, row.step_slug) == (run_id, "dead_worker", "s1")
    assert row.detail == (
        f"task 0 held by worker {str(worker)[:8]}, no heartbeat for 5m; "
        "the stalled-task sweep requeues it in 1m"
    )
    assert stuck_runs(pgflow_conn, dead_after_s=600) == []


def test_tasks_abandoned_by_a_stopped_worker_and_an_overdue_sweep(pgflow_conn):
    define_flow(pgflow_conn, "obs", timeout=60)
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    pgflow_conn.execute("select pgflow.mark_worker_stopped(%s)", (worker,))
    pgflow_conn.execute(
        "update pgflow.step_tasks set queued_at = now() - interval '10 min',"
        " started_at = now() - interval '5 min' where run_id = %s",
        (run_id,),
    )

    [row] = stuck_runs(pgflow_conn)

    assert row.reason == "dead_worker"
    assert row.detail == (
        f"task 0 held by worker {str(worker)[:8]} that stopped 0s ago without finishing it; "
        "the stalled-task sweep requeues it at the next pgflow.tick()"
    )


def test_a_task_given_up_after_4_stalls_fails_its_run_and_is_listed(pgflow_conn):
    define_flow(pgflow_conn, "fragile", timeout=1)
    worker = register(pgflow_conn, "fragile")
    start_run(pgflow_conn, "fragile")

    run_id = stall_until_given_up(pgflow_conn, "fragile", worker)

    assert run_status(pgflow_conn, run_id) == "failed"
    [row] = stuck_runs(pgflow_conn)
    assert (str(row.run_id), row.reason, row.step_slug) == (run_id, "permanently_stalled", "s1")
    assert row.detail == (
        "task 0 stalled 4 times (its worker stopped without reporting each time): the step "
        "failed 0s ago; retry the run once workers are healthy"
    )


def test_a_still_started_permanently_stalled_task_of_an_older_version(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    pgflow_conn.execute(
        "update pgflow.step_tasks set permanently_stalled_at = now() - interval '1 hour'"
        " where run_id = %s",
        (run_id,),
    )

    rows = by_reason(pgflow_conn)

    assert set(rows) == {"permanently_stalled"}
    assert rows["permanently_stalled"][0].detail == (
        "task 0 stalled 4 times (its worker stopped without reporting each time) and was "
        "given up on 1h ago; still started: fail or complete it"
    )


# ---------------------------------------------------------------- counts, order, filters


def test_counts_by_reason_count_each_run_once_per_reason(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    runs = start_claimed_runs(pgflow_conn, "obs", worker, 3)
    stop_beating(pgflow_conn, worker, 300)
    pause(pgflow_conn, runs[0])  # paused and held by a dead worker
    define_approval_flow(pgflow_conn, "approvals")
    waiting = start_waiting_run(pgflow_conn, "approvals")
    wait_since(pgflow_conn, waiting, "approve", 2 * 86400)

    counts = stuck_counts(pgflow_conn)

    assert counts == {
        "permanently_stalled": 0,
        "dead_worker": 3,
        "waiting_too_long": 1,
        "paused": 1,
        "queued_too_long": 0,
    }
    assert list(counts) == list(STUCK_REASONS)
    assert stuck_counts(pgflow_conn, dead_after_s=600, wait_threshold_s=3 * 86400) == {
        **counts,
        "dead_worker": 0,
        "waiting_too_long": 0,
    }


def test_a_map_step_with_many_dead_tasks_is_one_row(pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('mapper')")
    pgflow_conn.execute("select pgflow.add_step('mapper', 'each', step_type => 'map')")
    worker = register(pgflow_conn, "mapper")
    run_id = start_run(pgflow_conn, "mapper", "[1, 2, 3]")
    assert len(claim(pgflow_conn, "mapper", worker)) == 3
    stop_beating(pgflow_conn, worker, 300)

    [row] = stuck_runs(pgflow_conn)

    assert (str(row.run_id), row.step_slug) == (run_id, "each")
    assert row.detail.startswith(f"3 tasks held by worker {str(worker)[:8]}, no heartbeat for 5m")
    assert stuck_counts(pgflow_conn)["dead_worker"] == 1


def test_rows_come_longest_held_first_and_can_be_filtered(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    define_flow(pgflow_conn, "other")
    runs = [start_run(pgflow_conn, "obs") for _ in range(3)]
    other = start_run(pgflow_conn, "other")
    for run_id, hours in zip(runs, (1, 3, 2), strict=True):
        pause(pgflow_conn, run_id, hours_ago=hours)
    pause(pgflow_conn, other, hours_ago=4)

    assert [str(r.run_id) for r in stuck_runs(pgflow_conn)] == [other, runs[1], runs[2], runs[0]]
    assert [str(r.run_id) for r in stuck_runs(pgflow_conn, limit=2)] == [other, runs[1]]
    assert [str(r.run_id) for r in stuck_runs(pgflow_conn, flow_slug="obs")] == [
        runs[1],
        runs[2],
        runs[0],
    ]
    assert stuck_runs(pgflow_conn, reasons=["dead_worker", "queued_too_long"]) == []
    assert stuck_runs(pgflow_conn, reasons=[]) == []
    with pytest.raises(ValueError, match="unknown stuck reasons"):
        stuck_runs(pgflow_conn, reasons=["sleepy"])
    with pytest.raises(ValueError, match="wait_threshold_s"):
        stuck_counts(pgflow_conn, wait_threshold_s=0)


def test_nothing_is_stuck_in_a_healthy_database(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", worker, 2)
    start_run(pgflow_conn, "obs")

    assert stuck_runs(pgflow_conn) == []
    assert set(stuck_counts(pgflow_conn).values()) == {0}
