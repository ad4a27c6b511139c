"""Flows defined and tasks processed through the SQL API alone (no worker), for client tests."""

from __future__ import annotations

import uuid

import psycopg
from psycopg.types.json import Jsonb


def define_two_steps(conn: psycopg.Connection, slug: str = "two_steps") -> None:
    conn.execute("select pgflow.create_flow(%s)", (slug,))
    conn.execute("select pgflow.add_step(%s, 'first')", (slug,))
    conn.execute("select pgflow.add_step(%s, 'second', array['first'])", (slug,))


def process_queued_tasks(conn: psycopg.Connection, flow_slug: str, handler) -> int:
    """Do what a worker does, once: read, start_tasks, complete_task. Returns tasks done."""
    worker_id = uuid.uuid4()
    conn.execute("select pgflow.register_worker(%s, %s, 'test-client')", (worker_id, flow_slug))
    done = 0
    while True:
        msg_ids = [
            row[0] for row in conn.execute("select msg_id from pgmq.read(%s, 30, 10)", (flow_slug,))
        ]
        if not msg_ids:
            return done
        tasks = conn.execute(
            "select run_id, step_slug, task_index, input, flow_input"
            " from pgflow.start_tasks(%s, %s, %s)",
            (flow_slug, msg_ids, worker_id),
        ).fetchall()
        for run_id, step_slug, task_index, task_input, flow_input in tasks:
            output = handler(step_slug, task_input, flow_input)
            conn.execute(
                "select pgflow.complete_task(%s, %s, %s, %s)",
                (run_id, step_slug, task_index, Jsonb(output)),
            )
            done += 1
