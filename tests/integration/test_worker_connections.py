"""Wake-ups and connections: NOTIFY vs fallback poll, listener loss, bounded pool, lost
pool connections, and a worker never claiming another flow's tasks.
"""

from __future__ import annotations

import json
import threading
import time

import psycopg

from tests.integration.flows.control import flow_b
from tests.integration.worker_harness import (
    backend_counts,
    start_flow,
    step_tasks,
    wait_for,
    wait_run,
    worker_rows,
)

# A poll interval far longer than the waits below: a task that starts quickly was woken
# by NOTIFY (or by the poll after a completed parent), not by the fallback poll.
LONG_POLL = "30"


def _wait_started(conn, run_id, timeout):
    return wait_for(
        lambda: any(t["status"] != "queued" for t in step_tasks(conn, run_id)),
        timeout,
        what=f"a task of run {run_id} to start",
    )


def test_notify_wakes_the_worker_without_waiting_for_the_poll(pgflow_conn, start_worker):
    worker = start_worker("basic:chain", "--poll-interval", LONG_POLL)
    worker.wait_running()
    for n in range(3):
        # past the initial polls and the re-read that follows each wake-up (throttle window)
        time.sleep(1)
        run_id = start_flow(pgflow_conn, "chain", {"n": n})
        # three dependent steps, each started at once after its parent completed
        assert wait_run(pgflow_conn, run_id, timeout=5)["status"] == "completed"


def test_listener_loss_is_detected_and_reconnected(pgflow_conn, start_worker):
    worker = start_worker("basic:chain", "--poll-interval", "1")
    worker.wait_running()
    listen_prefix = "pgflow-worker-listen:"
    terminated = pgflow_conn.execute(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name like %s",
        (listen_prefix + "%",),
    ).fetchall()
    assert terminated == [(True,)]
    # Meanwhile the fallback poll (1 s) keeps starting tasks.
    runs = []
    for n in range(5):
        runs.append(start_flow(pgflow_conn, "chain", {"n": n}))
        time.sleep(0.2)
    for run_id in runs:
        assert wait_run(pgflow_conn, run_id, timeout=10)["status"] == "completed"
    lost = worker.wait_log("LISTEN connection lost; falling back to polling until it is back")
    assert lost["poll_interval_s"] == 1.0
    wait_for(
        lambda: (
            sum(e.get("msg") == "listening for queue notifications" for e in worker.logs()) == 2
        ),
        what="the listener to reconnect",
    )
    assert backend_counts(pgflow_conn, listen_prefix) == {
        f"{listen_prefix}{worker_rows(pgflow_conn, 'chain')[0]['worker_id']}": 1
    }


def test_notify_works_again_after_the_listener_reconnects(pgflow_conn, start_worker):
    worker = start_worker("basic:echo_job", "--poll-interval", LONG_POLL)
    worker.wait_running()
    pgflow_conn.execute(
        "select pg_terminate_backend(pid) from pg_stat_activity "
        "where application_name like 'pgflow-worker-listen:%'"
    )
    wait_for(
        lambda: (
            sum(e.get("msg") == "listening for queue notifications" for e in worker.logs()) == 2
        ),
        what="the listener to reconnect",
    )
    time.sleep(0.5)
    run_id = start_flow(pgflow_conn, "echo_job", {})
    assert wait_run(pgflow_conn, run_id, timeout=5)["status"] == "completed"


def test_polling_alone_meets_the_poll_bound(pgflow_conn, start_worker):
    worker = start_worker("basic:echo_job", "--no-listen", "--poll-interval", "0.5")
    worker.wait_running()
    assert backend_counts(pgflow_conn, "pgflow-worker-listen:") == {}
    for _ in range(3):
        run_id = start_flow(pgflow_conn, "echo_job", {})
        _wait_started(pgflow_conn, run_id, timeout=5)
        assert wait_run(pgflow_conn, run_id, timeout=5)["status"] == "completed"


def test_connections_stay_within_max_connections_plus_listener(
    pgflow_conn, pgflow_dsn, start_worker
):
    worker = start_worker("control:sleepers", "--max-connections", "4", "--max-concurrency", "8")
    worker.wait_running()
    worker_id = worker_rows(pgflow_conn, "sleepers")[0]["worker_id"]
    pool_name, listen_name = f"pgflow-worker:{worker_id}", f"pgflow-worker-listen:{worker_id}"

    samples: list[dict[str, int]] = []
    done = threading.Event()

    def sample() -> None:
        with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
            while not done.is_set():
                samples.append(backend_counts(conn, "pgflow-worker"))
                time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        run_id = start_flow(pgflow_conn, "sleepers", [0.5] * 16)
        run = wait_run(pgflow_conn, run_id, timeout=60)
    finally:
        done.set()
        sampler.join()
    assert run["status"] == "completed"
    assert run["output"] == {"sleep_async": [True] * 16}
    assert samples
    assert max(s.get(pool_name, 0) for s in samples) <= 4
    assert max(s.get(listen_name, 0) for s in samples) <= 1
    assert set().union(*samples) <= {pool_name, listen_name}
    # the tasks did run concurrently (up to 8 at once, with 4 connections)
    peak = pgflow_conn.execute(
        "select max(c) from (select count(*) over (order by started_at range between "
        "current row and interval '0.4 s' following) c from pgflow.step_tasks "
        "where run_id = %s and step_slug = 'sleep_sync') s",
        (run_id,),
    ).fetchone()[0]
    assert peak >= 4


def test_worker_survives_losing_its_pool_connections(pgflow_conn, start_worker):
    worker = start_worker("control:sleepers", "--max-concurrency", "8")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "sleepers", [0.5] * 8)
    wait_for(
        lambda: sum(t["status"] == "started" for t in step_tasks(pgflow_conn, run_id)) >= 4,
        what="tasks to start",
    )
    killed = pgflow_conn.execute(
        "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity "
        "where application_name like 'pgflow-worker%') k"
    ).fetchone()[0]
    assert killed >= 2
    run = wait_run(pgflow_conn, run_id, timeout=60)
    assert run["status"] == "completed"
    assert run["output"] == {"sleep_async": [True] * 8}
    # and it still serves new runs
    again = start_flow(pgflow_conn, "sleepers", [0])
    assert wait_run(pgflow_conn, again, timeout=30)["status"] == "completed"


def test_worker_never_claims_another_flows_tasks(pgflow_conn, start_worker):
    worker_a = start_worker("control:flow_a")
    worker_a.wait_running()
    # flow_b exists in the database (compiled by some other deployment) but nobody serves it
    pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled('flow_b', %s::jsonb)",
        (json.dumps(flow_b.shape()),),
    )
    run_a = start_flow(pgflow_conn, "flow_a", {})
    run_b = start_flow(pgflow_conn, "flow_b", {})
    # and a message in flow_a's queue for a step flow_a's worker does not define
    ghost = {"flow_slug": "flow_a", "run_id": run_a, "step_slug": "ghost", "task_index": 0}
    pgflow_conn.execute(
        "select pgmq.send('flow_a', %s::jsonb)",
        (json.dumps(ghost),),
    )
    assert wait_run(pgflow_conn, run_a)["status"] == "completed"
    time.sleep(1.5)  # a few polls later
    (task_b,) = step_tasks(pgflow_conn, run_b)
    assert task_b["status"] == "queued"
    assert task_b["attempts_count"] == 0
    assert pgflow_conn.execute("select read_ct from pgmq.q_flow_b").fetchall() == [(0,)]
    worker_a.wait_log("message for a step this worker does not define; left for another worker")

    worker_b = start_worker("control:flow_b")
    worker_b.wait_running()
    run = wait_run(pgflow_conn, run_b)
    assert run["output"] == {"b_step": "b"}
    assert step_tasks(pgflow_conn, run_b)[0]["attempts_count"] == 1
