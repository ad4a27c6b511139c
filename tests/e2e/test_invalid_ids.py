"""Case B09: empty or blank ids are rejected where they enter, and no sweep ever makes a run.

``run_id`` is a uuid: ``''`` and ``'   '`` fail the cast at the SQL boundary with
``invalid_text_representation`` before anything is written, from SQL; the Python client
and ``pgflow start --run-id`` refuse them too. Then the stalled-task sweep runs again and again
(called directly and by a running worker): it only requeues existing tasks, so still no
run exists. (Idempotency keys, the case's other id, are not a feature yet.)
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


def _sweep_calls(conn):
    row = conn.execute(
        "select coalesce(sum(calls), 0) from pg_stat_user_functions "
        "where schemaname = 'pgflow' and funcname = 'requeue_stalled_tasks'"
    ).fetchone()
    return row[0]


@pytest.mark.parametrize("bad", BAD_IDS, ids=["empty", "blank"])
def test_blank_run_ids_are_rejected_and_sweeps_create_nothing(
    pgflow_conn, pgflow_dsn, start_worker, bad
):
    pgflow_conn.execute(f'alter database "{pgflow_conn.info.dbname}" set track_functions = pl')
    worker = start_worker(QUICK, "--sweep-interval", "0.1")
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
        assert pgflow_conn.execute("select pgflow.recover_stalled_tasks()").fetchone() == (0,)
    # and the worker keeps sweeping (function call statistics of its sessions)
    wait_for(lambda: _sweep_calls(pgflow_conn) >= 15, what="the worker's sweeps")
    assert _runs(pgflow_conn) == 0
    assert pgflow_conn.execute("select count(*) from pgmq.q_quick").fetchone() == (0,)
