"""pgflow.requeue_stalled_tasks() called by a worker process on its own (no pg_cron): the
task of a worker that died long ago is requeued and its run completes.
"""

from __future__ import annotations

import uuid

from psycopg.types.json import Jsonb

from tests.integration.flows.control import flow_a
from tests.integration.worker_harness import start_flow, step_tasks, wait_run


def test_worker_requeues_stalled_tasks_without_pg_cron(pgflow_conn, start_worker):
    # A worker that compiled the flow, claimed its task and died long ago.
    pgflow_conn.execute(
        "select pgflow.ensure_flow_compiled('flow_a', %s)",
        (Jsonb(flow_a.shape()),),
    )
    dead = uuid.uuid4()
    pgflow_conn.execute("select pgflow.register_worker(%s, 'flow_a', 'dead')", (dead,))
    run_id = start_flow(pgflow_conn, "flow_a", {})
    msg_ids = [r[0] for r in pgflow_conn.execute("select msg_id from pgmq.read('flow_a', 5, 10)")]
    pgflow_conn.execute("select * from pgflow.start_tasks('flow_a', %s, %s)", (msg_ids, dead))
    pgflow_conn.execute(
        "update pgflow.step_tasks set queued_at = now() - interval '11 minutes', "
        "started_at = now() - interval '10 minutes' "
        "where run_id = %s",
        (run_id,),
    )

    worker = start_worker("control:flow_a", "--tick-interval", "0.5")
    worker.wait_running()
    run = wait_run(pgflow_conn, run_id)
    assert run["output"] == {"a_step": "a"}
    (task,) = step_tasks(pgflow_conn, run_id)
    assert task["requeued_count"] == 1
    assert task["attempts_count"] == 2
    assert worker.has_log("stalled tasks requeued")
