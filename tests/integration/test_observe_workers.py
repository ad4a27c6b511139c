"""pgflow.observe.workers against a real database: worker states, tasks in flight, dead
workers' tasks. Workers are made dead by moving their stored heartbeat into the past."""

from __future__ import annotations

import uuid
from datetime import timedelta

import psycopg
import pytest

from pgflow.observe.workers import (
    DEAD_AFTER_S_DEFAULT,
    dead_worker_tasks,
    list_workers,
    worker_state,
)
from tests.integration.failing_runs import start_run

# ---------------------------------------------------------------- helpers (also used by the
# other test_observe_* and test_cli_observe modules)


def define_flow(
    conn: psycopg.Connection, slug: str, steps: int = 1, timeout: int = 60, max_attempts: int = 3
) -> None:
    """A flow of ``steps`` single steps s1 -> s2 -> ..., flow timeout ``timeout`` s."""
    conn.execute(
        "select pgflow.create_flow(%s, timeout => %s, max_attempts => %s, base_delay => 0)",
        (slug, timeout, max_attempts),
    )
    for i in range(1, steps + 1):
        deps = [f"s{i - 1}"] if i > 1 else []
        conn.execute("select pgflow.add_step(%s, %s, %s::text[])", (slug, f"s{i}", deps))


def register(conn: psycopg.Connection, slug: str, function: str = "test-fn") -> uuid.UUID:
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, %s)", (worker_id, slug, function))
    return worker_id


def claim(conn: psycopg.Connection, slug: str, worker_id: uuid.UUID, n: int = 10) -> list[tuple]:
    """Read up to ``n`` visible messages of the flow and start their tasks as ``worker_id``."""
    msg_ids = [
        row[0] for row in conn.execute("select msg_id from pgmq.read(%s, 30, %s)", (slug, n))
    ]
    return conn.execute(
        "select run_id, step_slug, task_index from pgflow.start_tasks(%s, %s, %s)",
        (slug, msg_ids, worker_id),
    ).fetchall()


def stop_beating(conn: psycopg.Connection, worker_id: uuid.UUID, seconds: float) -> None:
    """Move the worker's last heartbeat ``seconds`` into the past."""
    updated = conn.execute(
        "update pgflow.workers set last_heartbeat_at = now() - make_interval(secs => %s)"
        " where worker_id = %s",
        (float(seconds), worker_id),
    ).rowcount
    assert updated == 1


def start_claimed_runs(
    conn: psycopg.Connection, slug: str, worker_id: uuid.UUID, runs: int
) -> list[str]:
    """Start ``runs`` runs of ``slug`` and claim their first tasks as ``worker_id``."""
    run_ids = [start_run(conn, slug) for _ in range(runs)]
    assert len(claim(conn, slug, worker_id)) == runs
    return run_ids


# ---------------------------------------------------------------- worker_state


@pytest.mark.parametrize(
    ("age", "deprecated", "stopped", "tasks", "expected"),
    [
        (5, False, False, 0, "live"),
        (60, False, False, 0, "live"),  # exactly the threshold: not yet dead
        (61, False, False, 0, "dead"),
        (61, False, False, 2, "dead"),
        (600, False, True, 2, "stopped"),  # stopped wins, even holding tasks
        (5, True, False, 1, "deprecated"),  # draining
        (600, True, False, 0, "deprecated"),  # deprecated rows are no longer refreshed
        (600, True, False, 1, "dead"),  # ... but holding a task that long: dead
    ],
)
def test_worker_state_rules(age, deprecated, stopped, tasks, expected):
    state = worker_state(
        heartbeat_age_s=age,
        deprecated=deprecated,
        stopped=stopped,
        tasks_in_flight=tasks,
        dead_after_s=60,
    )
    assert state == expected


def test_the_default_dead_after_is_a_minute():
    assert DEAD_AFTER_S_DEFAULT == 60.0


# ---------------------------------------------------------------- list_workers


def test_live_and_dead_workers_with_their_tasks_in_flight(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    live = register(pgflow_conn, "obs", "fn-live")
    dead = register(pgflow_conn, "obs", "fn-dead")
    start_claimed_runs(pgflow_conn, "obs", live, 2)
    start_claimed_runs(pgflow_conn, "obs", dead, 3)
    stop_beating(pgflow_conn, dead, 300)

    workers = {w.worker_id: w for w in list_workers(pgflow_conn)}

    assert set(workers) == {live, dead}
    assert (workers[live].state, workers[live].tasks_in_flight) == ("live", 2)
    assert (workers[dead].state, workers[dead].tasks_in_flight) == ("dead", 3)
    assert workers[dead].flow_slug == "obs"
    assert workers[dead].function_name == "fn-dead"
    assert 300 <= workers[dead].heartbeat_age_s < 330
    assert workers[live].heartbeat_age_s < 30


def test_dead_after_decides_when_a_worker_is_dead(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    stop_beating(pgflow_conn, worker, 120)

    assert [w.state for w in list_workers(pgflow_conn)] == ["dead"]
    assert [w.state for w in list_workers(pgflow_conn, dead_after_s=600)] == ["live"]
    with pytest.raises(ValueError, match="dead_after_s"):
        list_workers(pgflow_conn, dead_after_s=0)


def test_a_completed_task_is_no_longer_in_flight(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", worker, 2)
    run_id, step, index = pgflow_conn.execute(
        "select run_id, step_slug, task_index from pgflow.step_tasks where status = 'started'"
        " order by run_id limit 1"
    ).fetchone()
    pgflow_conn.execute("select pgflow.complete_task(%s, %s, %s, '1')", (run_id, step, index))

    assert [w.tasks_in_flight for w in list_workers(pgflow_conn)] == [1]


def test_stopped_and_long_dead_workers_are_listed_only_with_include_ended(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    stopped = register(pgflow_conn, "obs")
    pgflow_conn.execute("select pgflow.mark_worker_stopped(%s)", (stopped,))
    long_dead = register(pgflow_conn, "obs")
    stop_beating(pgflow_conn, long_dead, 7200)
    recent_dead = register(pgflow_conn, "obs")
    stop_beating(pgflow_conn, recent_dead, 600)
    long_dead_holding = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", long_dead_holding, 1)
    stop_beating(pgflow_conn, long_dead_holding, 7200)

    shown = {w.worker_id: w.state for w in list_workers(pgflow_conn)}
    everything = {w.worker_id: w.state for w in list_workers(pgflow_conn, include_ended=True)}

    assert shown == {recent_dead: "dead", long_dead_holding: "dead"}
    assert everything == {
        stopped: "stopped",
        long_dead: "dead",
        recent_dead: "dead",
        long_dead_holding: "dead",
    }


def test_a_stopped_worker_that_abandoned_tasks_stays_listed(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", worker, 1)
    pgflow_conn.execute("select pgflow.mark_worker_stopped(%s)", (worker,))

    [row] = list_workers(pgflow_conn)

    assert (row.state, row.tasks_in_flight) == ("stopped", 1)
    assert row.stopped_at is not None


def test_a_deprecated_worker_is_deprecated_until_it_holds_tasks_past_dead_after(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    idle = register(pgflow_conn, "obs")
    draining = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", draining, 1)
    for worker in (idle, draining):
        pgflow_conn.execute("select pgflow.deprecate_worker(%s)", (worker,))
        stop_beating(pgflow_conn, worker, 30)

    before = {w.worker_id: w.state for w in list_workers(pgflow_conn)}
    for worker in (idle, draining):
        stop_beating(pgflow_conn, worker, 600)
    after = {w.worker_id: w.state for w in list_workers(pgflow_conn)}

    assert before == {idle: "deprecated", draining: "deprecated"}
    assert after == {idle: "deprecated", draining: "dead"}


# ---------------------------------------------------------------- dead_worker_tasks


def test_dead_worker_tasks_lists_only_the_tasks_of_dead_or_stopped_workers(pgflow_conn):
    define_flow(pgflow_conn, "obs", timeout=60)
    live = register(pgflow_conn, "obs")
    dead = register(pgflow_conn, "obs")
    stopped = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", live, 1)
    dead_runs = start_claimed_runs(pgflow_conn, "obs", dead, 2)
    [stopped_run] = start_claimed_runs(pgflow_conn, "obs", stopped, 1)
    stop_beating(pgflow_conn, dead, 120)
    pgflow_conn.execute("select pgflow.mark_worker_stopped(%s)", (stopped,))

    tasks = dead_worker_tasks(pgflow_conn)

    assert sorted((str(t.run_id), t.worker_id, t.worker_state) for t in tasks) == sorted(
        [(run_id, dead, "dead") for run_id in dead_runs] + [(stopped_run, stopped, "stopped")]
    )
    for task in tasks:
        assert (task.flow_slug, task.step_slug, task.task_index) == ("obs", "s1", 0)
        assert (task.attempt, task.requeued_count, task.run_status) == (1, 0, "started")
        # The sweep acts at started_at + the timeout (60 s) + 30 s.
        assert task.sweep_at - task.started_at == timedelta(seconds=90)
        assert 60 < task.sweep_in_s <= 90


def test_the_sweep_time_uses_the_step_timeout_and_goes_negative_when_due(pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('obs', timeout => 60)")
    pgflow_conn.execute("select pgflow.add_step('obs', 's1', timeout => 600)")
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    stop_beating(pgflow_conn, worker, 3600)
    pgflow_conn.execute(
        "update pgflow.step_tasks set queued_at = now() - interval '2 hours',"
        " started_at = now() - interval '1 hour' where run_id = %s",
        (run_id,),
    )

    [task] = dead_worker_tasks(pgflow_conn)

    assert task.sweep_at - task.started_at == timedelta(seconds=630)
    assert -3600 + 630 - 30 < task.sweep_in_s < -3600 + 630 + 1


def test_dead_worker_tasks_of_a_paused_run_say_so(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    pgflow_conn.execute("select pgflow.pause_run(%s, 'alice', 'look')", (run_id,))
    stop_beating(pgflow_conn, worker, 300)

    assert [t.run_status for t in dead_worker_tasks(pgflow_conn)] == ["paused"]


def test_dead_worker_tasks_of_a_cancelled_run_are_not_work(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", worker, 1)
    stop_beating(pgflow_conn, worker, 300)
    pgflow_conn.execute("select pgflow.cancel_run(%s, 'bob', 'stop')", (run_id,))

    assert dead_worker_tasks(pgflow_conn) == []
    assert [w.tasks_in_flight for w in list_workers(pgflow_conn)] == [0]


def test_dead_worker_tasks_honours_dead_after_and_limit(pgflow_conn):
    define_flow(pgflow_conn, "obs")
    worker = register(pgflow_conn, "obs")
    start_claimed_runs(pgflow_conn, "obs", worker, 3)
    stop_beating(pgflow_conn, worker, 120)

    assert len(dead_worker_tasks(pgflow_conn)) == 3
    assert len(dead_worker_tasks(pgflow_conn, limit=2)) == 2
    assert dead_worker_tasks(pgflow_conn, dead_after_s=300) == []
    with pytest.raises(ValueError, match="limit"):
        dead_worker_tasks(pgflow_conn, limit=0)
