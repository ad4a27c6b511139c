"""`pgflow workers` and `pgflow flows` against a real database."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pgflow.cli.main import main
from tests.integration.failing_runs import start_run
from tests.integration.test_observe_flow_stats import finish_one
from tests.integration.test_observe_workers import (
    define_flow,
    register,
    start_claimed_runs,
    stop_beating,
)


def invoke(dsn: str, *args: str):
    return CliRunner().invoke(main, [*args, "--dsn", dsn])


def lines_of(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


# ---------------------------------------------------------------- pgflow workers


def test_workers_marks_dead_workers_and_lists_their_tasks(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    live = register(pgflow_conn, "obs", "fn-live")
    dead = register(pgflow_conn, "obs", "fn-dead")
    start_claimed_runs(pgflow_conn, "obs", live, 1)
    dead_runs = start_claimed_runs(pgflow_conn, "obs", dead, 2)
    stop_beating(pgflow_conn, dead, 300)

    result = invoke(pgflow_dsn, "workers")

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.splitlines()[0].split() == [
        "WORKER",
        "FLOW",
        "FUNCTION",
        "STATE",
        "STARTED",
        "LAST",
        "HEARTBEAT",
        "IN",
        "FLIGHT",
    ]
    [dead_line] = lines_of(out, "fn-dead")
    assert dead_line.split()[:4] == [str(dead), "obs", "fn-dead", "DEAD"]
    assert dead_line.split()[-3:] == ["5m", "ago", "2"]
    [live_line] = lines_of(out, "fn-live")
    assert live_line.split()[3] == "live"
    assert live_line.split()[-1] == "1"
    assert "Started tasks of dead workers (nobody will report them):" in out
    task_lines = [line for line in out.splitlines() if any(r in line for r in dead_runs)]
    assert len(task_lines) == 2
    for line in task_lines:
        cells = line.split()
        assert cells[1:7] == ["obs", "s1", "0", "1", str(dead)[:8], "dead"]
        assert cells[-2:] == ["in", "1m"]
    assert "1 dead worker (no heartbeat for over 1m) holding 2 started tasks" in result.stderr


def test_workers_json_carries_the_records(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    dead = register(pgflow_conn, "obs")
    [run_id] = start_claimed_runs(pgflow_conn, "obs", dead, 1)
    stop_beating(pgflow_conn, dead, 300)

    result = invoke(pgflow_dsn, "workers", "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [worker] = data["workers"]
    assert (worker["worker_id"], worker["state"], worker["tasks_in_flight"]) == (
        str(dead),
        "dead",
        1,
    )
    [task] = data["dead_worker_tasks"]
    assert (task["run_id"], task["worker_state"], task["step_slug"]) == (run_id, "dead", "s1")


def test_workers_all_and_dead_after(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    stopped = register(pgflow_conn, "obs", "fn-stopped")
    pgflow_conn.execute("select pgflow.mark_worker_stopped(%s)", (stopped,))
    slow = register(pgflow_conn, "obs", "fn-slow")
    stop_beating(pgflow_conn, slow, 120)

    default = invoke(pgflow_dsn, "workers")
    everything = invoke(pgflow_dsn, "workers", "--all")
    patient = invoke(pgflow_dsn, "workers", "--dead-after", "600")

    assert lines_of(default.stdout, "fn-stopped") == []
    assert lines_of(default.stdout, "fn-slow")[0].split()[3] == "DEAD"
    assert lines_of(everything.stdout, "fn-stopped")[0].split()[3] == "stopped"
    assert lines_of(patient.stdout, "fn-slow")[0].split()[3] == "live"
    assert "dead worker" not in patient.stderr


def test_workers_without_workers(pgflow_dsn):
    result = invoke(pgflow_dsn, "workers")

    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "no workers" in result.stderr


# ---------------------------------------------------------------- pgflow flows


def test_flows_lists_every_flow_with_its_runs_by_status(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs", max_attempts=1)
    define_flow(pgflow_conn, "three", steps=3)
    for outcome in ("complete", "fail"):
        start_run(pgflow_conn, "obs")
        finish_one(pgflow_conn, "obs", outcome)
    start_run(pgflow_conn, "obs")

    result = invoke(pgflow_dsn, "flows")

    assert result.exit_code == 0, result.output
    header, obs, three = result.stdout.splitlines()
    assert header.split() == [
        "FLOW",
        "STEPS",
        "QUEUED",
        "STARTED",
        "PAUSED",
        "COMPLETED",
        "FAILED",
        "CANCELLED",
        "EXPIRED",
        "LAST",
        "STARTED",
    ]
    assert obs.split()[:9] == ["obs", "1", "0", "1", "0", "1", "1", "0", "0"]
    assert three.split() == ["three", "3", "0", "0", "0", "0", "0", "0", "0", "-"]


def test_flows_json(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    start_run(pgflow_conn, "obs")

    result = invoke(pgflow_dsn, "flows", "--json")

    [flow] = json.loads(result.stdout)
    assert (flow["flow_slug"], flow["step_count"], flow["runs_by_status"]["started"]) == (
        "obs",
        1,
        1,
    )


def test_flow_shows_its_steps_statistics_over_the_window(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs", steps=2, max_attempts=1)
    start_run(pgflow_conn, "obs")
    finish_one(pgflow_conn, "obs", "complete")
    finish_one(pgflow_conn, "obs", "complete")
    start_run(pgflow_conn, "obs")
    finish_one(pgflow_conn, "obs", "fail")

    result = invoke(pgflow_dsn, "flows", "obs", "--window", "1h")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("flow obs: steps of the runs that ended since ")
    assert lines[0].endswith(" (last 1h)")
    assert lines[1].split() == [
        "STEP",
        "FINISHED",
        "FAILED",
        "FAIL",
        "%",
        "RETRIED",
        "RETRY",
        "%",
        "P50",
        "P95",
        "SKIPPED",
    ]
    s1, s2 = lines[2].split(), lines[3].split()
    assert s1[:6] == ["s1", "2", "1", "50.0%", "0", "0.0%"]
    assert s1[-1] == "0"
    assert s2[:6] == ["s2", "1", "0", "0.0%", "0", "0.0%"]
    assert lines[-1].endswith(": 2 started; ended: 1 completed, 1 failed, 0 cancelled, 0 expired")


def test_flow_json_and_default_window(pgflow_dsn, pgflow_conn):
    define_flow(pgflow_conn, "obs")
    start_run(pgflow_conn, "obs")
    finish_one(pgflow_conn, "obs", "complete")

    result = invoke(pgflow_dsn, "flows", "obs", "--json")

    data = json.loads(result.stdout)
    assert (data["flow"], data["window"]) == ("obs", "24h")
    assert data["runs"] == {"started": 1, "completed": 1, "failed": 0, "cancelled": 0, "expired": 0}
    [step] = data["steps"]
    assert (step["step_slug"], step["finished"], step["completed"]) == ("s1", 1, 1)


def test_an_unknown_flow_exits_1(pgflow_dsn, pgflow_conn):
    result = invoke(pgflow_dsn, "flows", "nope")

    assert result.exit_code == 1
    assert "no flow named 'nope'" in result.stderr
