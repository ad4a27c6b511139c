"""Empty or blank run ids are rejected where they enter, and requeueing stalled tasks never
makes a run.

A failure mode of engines that accept any text as an id: an empty-string id is stored, can
never be recovered, and each recovery pass forks another execution. Here ``run_id`` is a
uuid: ``''`` and ``'   '`` fail the cast at the SQL boundary with
``invalid_text_representation`` before anything is written, from SQL; the Python client
and ``pgflow start --run-id`` refuse them too. Then ``pgflow.requeue_stalled_tasks()`` runs
again and again (called directly and by a running worker): it only requeues existing
tasks, so still no run exists. (Idempotency keys, another kind of caller-chosen id, are
not a feature yet.)
"""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
from psycopg.types.json import Jsonb

from pgflow import Client
from tests.integration.worker_harness import ROOT, wait_for

pytestmark = pytest.mark.e2e

QUICK = "tests.e2e.flows.faults:quick"
BAD_IDS = ["", "   "]


def _runs(conn):
    return conn.execute("select count(*) from pgflow.runs").fetchone()[0]


def _requeue_calls(conn):
    """Calls of pgflow.requeue_stalled_tasks() counted by the statistics (track_functions)."""
    row = conn.execute(
        "select coalesce(sum(calls), 0) from pg_stat_user_functions "
        "where schemaname = 'pgflow' and funcname = 'requeue_stalled_tasks'"
    ).fetchone()
    return row[0]


@pytest.mark.parametrize("bad", BAD_IDS, ids=["empty", "blank"])
def test_blank_run_ids_are_rejected_and_requeueing_creates_nothing(
    pgflow_conn, pgflow_dsn, start_worker, bad
):
    # "all", not "pl": requeue_stalled_tasks may be a SQL-language function
    dbname = pgflow_conn.info.dbname
    pgflow_conn.execute(f"alter database \"{dbname}\" set track_functions = 'all'")
    worker = start_worker(QUICK, "--tick-interval", "0.1")
    worker.wait_running()

    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="type uuid"):
        pgflow_conn.execute("select pgflow.start_flow('quick', '{}', %s)", (bad,))
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="type uuid"):
        pgflow_conn.execute(
            "select pgflow.start_flow_with_states('quick', %s, %s)", (Jsonb({}), bad)
        )
    # the client refuses it before sending (ValueError), or the database does
    rejected = (ValueError, psycopg.errors.InvalidTextRepresentation)
    with Client(pgflow_dsn) as client, pytest.raises(rejected, match="uuid"):
        client.start_flow("quick", {}, run_id=bad)
    command = [sys.executable, "-m", "pgflow.cli", "start", "quick", "--input", "{}"]
    cli = subprocess.run(
        [*command, "--run-id", bad, "--dsn", pgflow_dsn],
        cwd=ROOT,
        env={**os.environ, "PGFLOW_DEV_CLUSTER": "off"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode != 0
    assert "uuid" in cli.stderr.lower()
    assert _runs(pgflow_conn) == 0
    assert pgflow_conn.execute("select count(*) from pgflow.step_tasks").fetchone() == (0,)

    for _ in range(5):
        assert pgflow_conn.execute("select pgflow.requeue_stalled_tasks()").fetchone() == (0,)
    # and the worker keeps calling it (function call statistics of its sessions)
    wait_for(lambda: _requeue_calls(pgflow_conn) >= 15, what="the worker's calls")
    assert _runs(pgflow_conn) == 0
    assert pgflow_conn.execute("select count(*) from pgmq.q_quick").fetchone() == (0,)
