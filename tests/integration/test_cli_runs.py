"""`pgflow start`, `pgflow status` and `pgflow runs` against a real database."""

from __future__ import annotations

import json
import threading
import uuid

import psycopg
from click.testing import CliRunner

from pgflow.cli.main import main
from tests.integration.test_client import define_two_steps, process_queued_tasks


def work_in_background(dsn: str, flow_slug: str, handler, runs: int = 1) -> threading.Thread:
    """Process tasks until `runs` runs of the flow have finished."""

    def work():
        with psycopg.connect(dsn, autocommit=True) as conn:
            while True:
                process_queued_tasks(conn, flow_slug, handler)
                finished = conn.execute(
                    "select count(*) from pgflow.runs where status <> 'started'"
                ).fetchone()[0]
                if finished >= runs:
                    return

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_start_prints_the_run_id(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    result = CliRunner().invoke(main, ["start", "two_steps", "--input", "{}", "--dsn", pgflow_dsn])

    assert result.exit_code == 0, result.output
    run_id = result.stdout.strip()
    status = pgflow_conn.execute("select status from pgflow.runs where run_id = %s", (run_id,))
    assert status.fetchone() == ("started",)


def test_start_wait_prints_the_output_as_json(pgflow_dsn, pgflow_conn, tmp_path):
    define_two_steps(pgflow_conn)
    input_file = tmp_path / "input.json"
    input_file.write_text('{"n": 5}')
    thread = work_in_background(
        pgflow_dsn,
        "two_steps",
        lambda step, task_input, flow_input: flow_input["n"] if step == "first" else "done",
    )

    result = CliRunner().invoke(
        main,
        ["start", "two_steps", "--input", f"@{input_file}", "--wait", "--dsn", pgflow_dsn],
    )
    thread.join(10)

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"second": "done"}
    assert "completed in" in result.stderr


def test_start_wait_exits_1_when_the_run_fails(pgflow_dsn, pgflow_conn):
    pgflow_conn.execute("select pgflow.create_flow('fragile', max_attempts => 1)")
    pgflow_conn.execute("select pgflow.add_step('fragile', 'only')")

    def fail_it():
        with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
            worker_id = uuid.uuid4()
            conn.execute("select pgflow.register_worker(%s, 'fragile', 't')", (worker_id,))
            while True:
                msg = conn.execute("select msg_id from pgmq.read('fragile', 30, 1)").fetchone()
                if msg:
                    break
            task = conn.execute(
                "select run_id from pgflow.start_tasks('fragile', %s, %s)", ([msg[0]], worker_id)
            ).fetchone()
            conn.execute("select pgflow.fail_task(%s, 'only', 0, 'no luck')", (task[0],))

    thread = threading.Thread(target=fail_it, daemon=True)
    thread.start()
    result = CliRunner().invoke(main, ["start", "fragile", "--wait", "--dsn", pgflow_dsn])
    thread.join(10)

    assert result.exit_code == 1
    assert "failed at step only" in result.output
    assert "no luck" in result.output


def test_start_wait_times_out_with_exit_1(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    result = CliRunner().invoke(
        main, ["start", "two_steps", "--wait", "--timeout", "0.3", "--dsn", pgflow_dsn]
    )

    assert result.exit_code == 1
    assert "still started after 0.3 s" in result.output


def test_start_of_unknown_flow_is_a_clean_error(pgflow_dsn):
    result = CliRunner().invoke(main, ["start", "nope", "--dsn", pgflow_dsn])

    assert result.exit_code == 1
    assert "flow 'nope' is not defined" in result.output


def test_status_shows_a_table_of_step_states(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = CliRunner().invoke(main, ["start", "two_steps", "--dsn", pgflow_dsn]).stdout.strip()

    def table(result):
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[0].split() == ["run", run_id]
        header = next(i for i, line in enumerate(lines) if line.startswith("STEP"))
        return [line.split()[:3] for line in lines[header + 1 :]]

    before = table(CliRunner().invoke(main, ["status", run_id, "--dsn", pgflow_dsn]))
    process_queued_tasks(pgflow_conn, "two_steps", lambda *args: None)
    after = table(CliRunner().invoke(main, ["status", run_id, "--dsn", pgflow_dsn]))

    assert before == [["first", "started", "0/1"], ["second", "created", "0/1"]]
    assert after == [["first", "completed", "1/1"], ["second", "completed", "1/1"]]


def test_status_json_and_unknown_run(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = CliRunner().invoke(main, ["start", "two_steps", "--dsn", pgflow_dsn]).stdout.strip()

    as_json = CliRunner().invoke(main, ["status", run_id, "--json", "--dsn", pgflow_dsn])
    unknown = CliRunner().invoke(main, ["status", str(uuid.uuid4()), "--dsn", pgflow_dsn])

    state = json.loads(as_json.stdout)
    assert state["run_id"] == run_id
    assert [s["step_slug"] for s in state["steps"]] == ["first", "second"]
    assert unknown.exit_code == 1
    assert "no run with run_id" in unknown.output


def test_runs_lists_latest_runs_with_filters(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    define_two_steps(pgflow_conn, "other")
    runner = CliRunner()
    ids = [
        runner.invoke(main, ["start", slug, "--dsn", pgflow_dsn]).stdout.strip()
        for slug in ("two_steps", "two_steps", "other")
    ]

    everything = runner.invoke(main, ["runs", "--dsn", pgflow_dsn])
    only_other = runner.invoke(main, ["runs", "--flow", "other", "--dsn", pgflow_dsn])
    limited = runner.invoke(main, ["runs", "--limit", "1", "--dsn", pgflow_dsn])
    completed = runner.invoke(main, ["runs", "--status", "completed", "--dsn", pgflow_dsn])

    assert everything.exit_code == 0, everything.output
    assert everything.stdout.splitlines()[0].split()[:3] == ["RUN", "ID", "FLOW"]
    assert {line.split()[0] for line in everything.stdout.splitlines()[1:]} == set(ids)
    assert [line.split()[:2] for line in only_other.stdout.splitlines()[1:]] == [[ids[2], "other"]]
    assert len(limited.stdout.splitlines()) == 2
    assert completed.stdout == ""
    assert "no runs" in completed.stderr
