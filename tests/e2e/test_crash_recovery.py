"""SIGKILL a worker mid-task; a second worker recovers everything.

A killed worker reports nothing: its tasks stay ``started`` until
``pgflow.requeue_stalled_tasks()`` requeues them, ``coalesce(step timeout, flow timeout) +
30 s`` after they started on the database clock (the flows here time out after 4 s, so
about 34 s). That wait is why these tests are marked ``chaos`` (``make test-chaos``).

What must hold afterwards: every run reaches a terminal status, nothing is lost (runs,
step states, tasks and archived messages all accounted for), no task is completed twice,
and a handler that did its side effect before the kill runs again (at-least-once) while
exactly one completion is recorded.

The rescuing worker registers under the same deployment name as the dead one, after the
dead one's ``pgflow.workers`` row was deleted (pruned): stall detection works per task,
independent of worker rows (a dead worker's row may already be pruned), and every process
has its own worker id, so a restarted process reusing a deployment name never inherits
the dead one's identity.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.integration.worker_harness import (
    start_flow,
    step_tasks,
    wait_for,
    wait_run,
    worker_rows,
)

pytestmark = [pytest.mark.e2e, pytest.mark.chaos]

CRASH = "tests.e2e.flows.faults:crash"
SIDE_EFFECT = "tests.e2e.flows.faults:side_effect"
HOLD = {"E2E_HOLD_SECONDS": "3600"}  # the doomed worker's handlers never return by themselves
RECOVERY_TIMEOUT = 120  # stall threshold 34 s + requeue interval + slack for a loaded machine
RUNS, ELEMENTS = 10, 4  # per run: 1 `head` task + 4 `each` map tasks -> 50 in flight


def _count(conn, sql, *params):
    return conn.execute(sql, params).fetchone()[0]


def _completions(worker):
    """(run_id, step_slug, task_index) -> "task completed" log lines of a worker."""
    return Counter(
        (e["run_id"], e["step_slug"], e["task_index"])
        for e in worker.logs()
        if e.get("msg") == "task completed"
    )


def _prune_worker_rows(conn, queue_name):
    (row,) = worker_rows(conn, queue_name)
    conn.execute("delete from pgflow.workers where worker_id = %s", (row["worker_id"],))
    return row["worker_id"]


def test_sigkill_with_50_tasks_in_flight_loses_nothing(pgflow_conn, start_worker):
    doomed = start_worker(
        CRASH, "--log-level", "DEBUG", "--max-concurrency", "50", "--batch-size", "50", env=HOLD
    )
    doomed.wait_running()
    runs = [start_flow(pgflow_conn, "crash", list(range(ELEMENTS))) for _ in range(RUNS)]
    in_flight = RUNS * (1 + ELEMENTS)
    wait_for(
        lambda: (
            _count(pgflow_conn, "select count(*) from pgflow.step_tasks where status = 'started'")
            == in_flight
        ),
        what=f"{in_flight} tasks in flight",
    )
    doomed.kill()
    # Killed with every task started once and none reported.
    statuses = pgflow_conn.execute(
        "select status, attempts_count, count(*) from pgflow.step_tasks group by 1, 2"
    ).fetchall()
    assert statuses == [("started", 1, in_flight)]
    dead_id = _prune_worker_rows(pgflow_conn, "crash")

    rescuer = start_worker(CRASH, "--log-level", "DEBUG", "--tick-interval", "1")
    rescuer.wait_running()
    for run_id in runs:
        run = wait_run(pgflow_conn, run_id, timeout=RECOVERY_TIMEOUT)
        assert run["status"] == "completed"
        assert run["output"] == {"tail": {"count": ELEMENTS, "sum": 2 * sum(range(ELEMENTS))}}
        assert run["remaining_steps"] == 0

    # Runs, step states, tasks: all there, all completed, each task exactly once.
    assert _count(pgflow_conn, "select count(*) from pgflow.runs") == RUNS
    states = pgflow_conn.execute(
        "select ss.step_slug, ss.status, ss.initial_tasks, ss.remaining_tasks, "
        "(select count(*) from pgflow.step_tasks t where t.run_id = ss.run_id "
        " and t.step_slug = ss.step_slug and t.status = 'completed') "
        "from pgflow.step_states ss"
    ).fetchall()
    assert len(states) == RUNS * 3
    for slug, status, initial, remaining, completed in states:
        assert (status, remaining) == ("completed", 0), slug
        assert completed == initial == (ELEMENTS if slug == "each" else 1), slug
    map_outputs = pgflow_conn.execute(
        "select distinct output from pgflow.step_states where step_slug = 'each'"
    ).fetchall()
    assert map_outputs == [([2 * i for i in range(ELEMENTS)],)]
    tasks = [t for run_id in runs for t in step_tasks(pgflow_conn, run_id)]
    assert len(tasks) == RUNS * (ELEMENTS + 2)
    assert all(t["status"] == "completed" for t in tasks)
    killed = [t for t in tasks if t["step_slug"] != "tail"]
    assert {(t["attempts_count"], t["requeued_count"]) for t in killed} == {(2, 1)}
    assert {(t["attempts_count"], t["requeued_count"]) for t in tasks if t not in killed} == {
        (1, 0)
    }

    # Messages: every task's message archived exactly once, none left in the queue.
    assert _count(pgflow_conn, "select count(*) from pgmq.q_crash") == 0
    archived = [r[0] for r in pgflow_conn.execute("select msg_id from pgmq.a_crash")]
    assert sorted(archived) == sorted(t["message_id"] for t in tasks)

    # Completions: the dead worker reported none, the rescuer one per task.
    assert _completions(doomed) == Counter()
    assert set(_completions(rescuer).values()) == {1}
    assert len(_completions(rescuer)) == len(tasks)

    # The rescuer is a new identity under the same deployment name; the pruned row of
    # the dead worker did not stop its tasks from being recovered.
    (row,) = worker_rows(pgflow_conn, "crash")
    assert row["worker_id"] != dead_id
    assert row["function_name"] == "pgflow-worker"
    assert {t["last_worker_id"] for t in tasks} == {row["worker_id"]}


def test_sigkill_between_side_effect_and_complete_runs_the_task_again(
    pgflow_conn, start_worker, tmp_path
):
    effects = tmp_path / "effects.txt"
    env = {"E2E_SIDE_EFFECT_FILE": str(effects)}
    doomed = start_worker(SIDE_EFFECT, "--log-level", "DEBUG", env={**env, **HOLD})
    doomed.wait_running()
    run_id = start_flow(pgflow_conn, "side_effect", {})
    wait_for(lambda: effects.exists() and effects.read_text().endswith("\n"), what="side effect")
    doomed.kill()  # after the side effect, before complete_task
    (task,) = step_tasks(pgflow_conn, run_id)
    assert (task["status"], task["attempts_count"]) == ("started", 1)
    _prune_worker_rows(pgflow_conn, "side_effect")

    rescuer = start_worker(SIDE_EFFECT, "--log-level", "DEBUG", "--tick-interval", "1", env=env)
    rescuer.wait_running()
    run = wait_run(pgflow_conn, run_id, timeout=RECOVERY_TIMEOUT)
    assert run["status"] == "completed"
    assert run["output"] == {"effect": {"attempt": 2}}

    # At least once: the side effect happened twice, once per attempt ...
    assert effects.read_text().splitlines() == [
        f"{run_id} effect 0 attempt=1",
        f"{run_id} effect 0 attempt=2",
    ]
    # ... and exactly one completion was recorded.
    (task,) = step_tasks(pgflow_conn, run_id)
    assert (task["status"], task["attempts_count"], task["requeued_count"]) == ("completed", 2, 1)
    assert task["output"] == {"attempt": 2}
    assert _completions(doomed) == Counter()
    assert _completions(rescuer) == Counter({(run_id, "effect", 0): 1})
    archived = pgflow_conn.execute("select msg_id, read_ct from pgmq.a_side_effect").fetchall()
    assert [m for m, _ in archived] == [task["message_id"]]
    assert _count(pgflow_conn, "select count(*) from pgmq.q_side_effect") == 0
