"""pgmq upgraded while a worker runs: no mid-run error, every run completes.

Only pgmq 1.13.0 is available on this machine (the SQL bundled by the PyPI ``pgmq``
package), so the upgrade goes to a local 1.13.1 whose script re-creates ``pgmq.read`` and
``pgmq.archive`` (the functions the engine calls on every task) with their 1.13.0 bodies:
the worker's sessions see the functions replaced and their cached plans invalidated under
load, as a real pgmq upgrade does. Older pgmq versions are covered by the start-up check
(tests/integration/test_worker_schema_check.py).
"""

from __future__ import annotations

import importlib.resources
import re
import subprocess
from pathlib import Path

import psycopg
import pytest

from tests.integration.worker_harness import start_flow, wait_run

pytestmark = pytest.mark.e2e

NEXT = "1.13.1"


def _function_source(sql: str, signature_start: str) -> str:
    """Return one CREATE FUNCTION statement of the bundled pgmq script, as CREATE OR REPLACE."""
    start = sql.index(signature_start)
    end = sql.index("LANGUAGE plpgsql;", start) + len("LANGUAGE plpgsql;")
    return "CREATE OR REPLACE " + sql[start + len("CREATE ") : end]


@pytest.fixture(scope="module")
def pgmq_next_version() -> str:
    """Write the pgmq 1.13.0 -> 1.13.1 upgrade script into the server's extension dir."""
    bundled = (importlib.resources.files("pgmq") / "sql" / "pgmq.sql").read_text()
    current = (importlib.resources.files("pgmq") / "sql" / "VERSION").read_text().strip()
    read = _function_source(bundled, "CREATE FUNCTION pgmq.read(\n")
    archive = _function_source(
        bundled, "CREATE FUNCTION pgmq.archive(\n    queue_name TEXT,\n    msg_id BIGINT"
    )
    assert re.search(r"RETURNS SETOF pgmq\.message_record", read)
    sharedir = subprocess.run(
        ["pg_config", "--sharedir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    script = Path(sharedir) / "extension" / f"pgmq--{current}--{NEXT}.sql"
    script.write_text(
        '\\echo Use "ALTER EXTENSION pgmq UPDATE" to load this file. \\quit\n'
        f"-- test-only pgmq {current} -> {NEXT}: replaces read and archive in place\n"
        f"{read}\n\n{archive}\n"
    )
    return NEXT


def test_pgmq_upgraded_while_the_worker_runs(pgflow_conn, start_worker, pgmq_next_version):
    worker = start_worker("basic:chain", "--poll-interval", "0.2")
    worker.wait_running()
    before = [start_flow(pgflow_conn, "chain", {"n": i}) for i in range(20)]

    pgflow_conn.execute(f"alter extension pgmq update to '{pgmq_next_version}'")
    assert (
        pgflow_conn.execute(
            "select extversion from pg_extension where extname = 'pgmq'"
        ).fetchone()[0]
        == pgmq_next_version
    )
    after = [start_flow(pgflow_conn, "chain", {"n": i}) for i in range(20)]

    for run_id in before + after:
        assert wait_run(pgflow_conn, run_id, timeout=60)["status"] == "completed"
    errors = [e for e in worker.logs() if e.get("level") in ("error", "critical")]
    assert errors == [], errors
    assert worker.proc.poll() is None, "the worker is still running"
    with psycopg.connect(pgflow_conn.info.dsn) as conn:
        queued = conn.execute("select count(*) from pgmq.q_chain").fetchone()[0]
    assert queued == 0
