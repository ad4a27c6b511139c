"""Bad input from Python: each is a clear error and writes nothing.

Clients: inputs that are not JSON, NUL characters, oversized inputs, non-array inputs of
root-map flows and run ids that are not uuids. Workers: a step whose output is
over pgflow.max_payload_bytes fails (the worker reports the rejected complete_task with
fail_task) instead of hanging. The SQL side of each is in sql_tests/bad_input/.
"""

from __future__ import annotations

import math

import psycopg
import pytest
from click.testing import CliRunner

from pgflow import Client, InvalidRunId, InvalidRunInput
from pgflow.cli.main import main
from tests.integration.flows.payloads import HUGE_CHARS
from tests.integration.worker_harness import start_flow, step_states, step_tasks, wait_run


def define(conn: psycopg.Connection) -> None:
    conn.execute("select pgflow.create_flow('plain')")
    conn.execute("select pgflow.add_step('plain', 'only')")
    conn.execute("select pgflow.create_flow('mapper')")
    conn.execute("select pgflow.add_step('mapper', 'each', step_type => 'map')")


def counts(conn: psycopg.Connection) -> tuple[int, int, int]:
    row = conn.execute(
        "select (select count(*) from pgflow.runs), (select count(*) from pgflow.step_states),"
        " (select count(*) from pgflow.step_tasks)"
    ).fetchone()
    assert row is not None
    return row


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({1, 2}, "(set): Object of type set is not JSON serializable"),
        ({"when": object()}, "(dict): Object of type object is not JSON serializable"),
        ([math.nan], "(list): Out of range float values are not JSON compliant"),
        ({"n": math.inf}, "(dict): Out of range float values are not JSON compliant"),
        (b"bytes", "(bytes): Object of type bytes is not JSON serializable"),
    ],
)
def test_client_rejects_an_input_that_is_not_json(pgflow_dsn, pgflow_conn, value, problem):
    define(pgflow_conn)
    with Client(pgflow_dsn) as client, pytest.raises(InvalidRunInput) as caught:
        client.start_flow("plain", value)
    assert str(caught.value) == f"run input is not JSON-serialisable {problem}"
    assert counts(pgflow_conn) == (0, 0, 0)


def test_client_rejects_what_jsonb_cannot_store(pgflow_dsn, pgflow_conn):
    define(pgflow_conn)
    with Client(pgflow_dsn) as client:
        with pytest.raises(InvalidRunInput, match="unsupported Unicode escape sequence"):
            client.start_flow("plain", {"text": "a\x00b"})
        with pytest.raises(InvalidRunInput, match="invalid input syntax for type json"):
            client.start_flow("plain", {"text": "\ud800"})  # a lone surrogate
    assert counts(pgflow_conn) == (0, 0, 0)


def test_client_rejects_a_non_array_input_of_a_root_map_flow(pgflow_dsn, pgflow_conn):
    define(pgflow_conn)
    with Client(pgflow_dsn) as client:
        with pytest.raises(InvalidRunInput, match=r"input is not an array \(got object\)"):
            client.start_flow("mapper", {"items": [1, 2]})
        with pytest.raises(InvalidRunInput, match=r"not an array \(got null\)"):
            client.start_flow("mapper", None)
    assert counts(pgflow_conn) == (0, 0, 0)


def test_client_rejects_an_input_over_the_configured_limit(pgflow_dsn, pgflow_conn):
    define(pgflow_conn)
    dbname = pgflow_conn.info.dbname
    pgflow_conn.execute(f"alter database \"{dbname}\" set pgflow.max_payload_bytes = '1kB'")
    with Client(pgflow_dsn) as client:  # a new session: it reads the database setting
        with pytest.raises(InvalidRunInput) as caught:
            client.start_flow("plain", {"blob": "x" * 2000})
        assert str(caught.value) == (
            "run input rejected for flow 'plain': Input of flow 'plain' is 2020 bytes, over the"
            " limit of 1024 bytes (setting pgflow.max_payload_bytes)"
        )
        assert counts(pgflow_conn) == (0, 0, 0)
        assert client.start_flow("plain", {"blob": "x" * 900}).status == "started"
    assert counts(pgflow_conn) == (1, 1, 1)


@pytest.mark.parametrize(
    "run_id", ["", "   ", "not-a-uuid", "00000000-0000-0000-0000-00000000000g"]
)
def test_client_rejects_a_run_id_that_is_not_a_uuid(pgflow_dsn, pgflow_conn, run_id):
    define(pgflow_conn)
    with Client(pgflow_dsn) as client, pytest.raises(InvalidRunId) as caught:
        client.start_flow("plain", {}, run_id=run_id)
    assert str(caught.value) == f"run_id {run_id!r} is not a uuid"
    assert counts(pgflow_conn) == (0, 0, 0)


def test_cli_start_reports_an_oversized_input(pgflow_dsn, pgflow_conn, tmp_path):
    define(pgflow_conn)
    big = tmp_path / "big.json"
    big.write_text('{"blob": "' + "x" * 17_000_000 + '"}')  # over the 16 MiB default

    result = CliRunner().invoke(main, ["start", "plain", "--input", f"@{big}", "--dsn", pgflow_dsn])

    assert result.exit_code == 1
    assert "over the limit of 16777216 bytes (setting pgflow.max_payload_bytes)" in result.output
    assert counts(pgflow_conn) == (0, 0, 0)


def test_worker_fails_a_task_whose_output_is_over_the_limit(pgflow_conn, start_worker):
    worker = start_worker("payloads:oversized")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "oversized", {})

    run = wait_run(pgflow_conn, run_id, timeout=60)

    assert run["status"] == "failed"
    states = step_states(pgflow_conn, run_id)
    assert states["huge"]["status"] == "failed"
    assert states["huge"]["error_message"].startswith(
        f"ProgramLimitExceeded: Output of task huge[0] of run {run_id} is {HUGE_CHARS + 12}"
        " bytes, over the limit of 16777216 bytes (setting pgflow.max_payload_bytes)"
    )
    assert states["after"]["status"] == "cancelled"  # the failed run leaves nothing unfinished
    tasks = {t["step_slug"]: t for t in step_tasks(pgflow_conn, run_id)}
    assert tasks["huge"]["status"] == "failed"
    assert tasks["huge"]["attempts_count"] == 2  # retried like any failure, then exhausted
    assert tasks["huge"]["output"] is None  # nothing of the oversized output was stored
    # the worker is still serving
    assert worker.proc.poll() is None


def test_one_oversized_output_fails_only_its_task(pgflow_conn, start_worker):
    dbname = pgflow_conn.info.dbname
    pgflow_conn.execute(f"alter database {dbname} set pgflow.max_payload_bytes = '1kB'")
    worker = start_worker("payloads:mixed_sizes")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "mixed_sizes", [1, 2, 3, 4, 5])

    run = wait_run(pgflow_conn, run_id, timeout=60)

    assert run["status"] == "completed"
    assert run["output"] == {"items": [10, 20, 30, 40, 50]}
    states = step_states(pgflow_conn, run_id)
    assert states["big"]["status"] == "skipped"
    tasks = {(t["step_slug"], t["task_index"]): t for t in step_tasks(pgflow_conn, run_id)}
    assert tasks[("big", 0)]["status"] == "failed"
    error = tasks[("big", 0)]["error_message"]
    assert error.startswith("ProgramLimitExceeded: Output of task big[0]")
    assert all(tasks[("items", i)]["status"] == "completed" for i in range(5))
