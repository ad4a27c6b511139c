"""A real pgflow-worker process runs chains, diamonds, maps, jobs, conditions and falsy
outputs, with sync and async handlers, and logs one JSON object per line.
"""

from __future__ import annotations

from typing import Any

from tests.integration.worker_harness import (
    run_row,
    start_flow,
    step_states,
    step_tasks,
    wait_for,
    wait_run,
)


def test_chain_passes_outputs_and_lazy_flow_input(pgflow_conn, start_worker):
    worker = start_worker("basic:chain")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "chain", {"n": 1})
    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    # first: sync, gets the run input; second: async, ctx.get_flow_input(); third: sync,
    # ctx.flow_input loaded lazily from its thread.
    assert run["output"] == {"third": {"total": 21, "task_index": 0}}
    states = step_states(pgflow_conn, run_id)
    assert states["first"]["output"] == {"n": 2}
    assert states["second"]["output"] == {"n": 20, "seen": 1, "attempt": 1}


def test_every_task_log_line_is_json_with_task_fields(pgflow_conn, start_worker):
    # Per-task lines are DEBUG (INFO carries the lifecycle, failures and a summary).
    worker = start_worker("basic:chain", "--log-level", "DEBUG")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "chain", {"n": 1})
    wait_run(pgflow_conn, run_id)

    # (a task's "task completed" is written once its report committed: the last one may
    # come after the run completed)
    def task_lines_written() -> list[dict[str, Any]]:
        lines = [e for e in worker.logs() if e.get("msg") in ("task started", "task completed")]
        return lines if len(lines) >= 6 else []

    task_lines = wait_for(task_lines_written, what="three tasks started and completed")
    entries = worker.logs()
    assert all("raw" not in e for e in entries), worker.text()
    assert len(task_lines) == 6
    for entry in task_lines:
        assert entry["run_id"] == run_id
        assert entry["step_slug"] in ("first", "second", "third")
        assert entry["task_index"] == 0
        assert entry["attempt"] == 1
        assert {"ts", "level", "logger", "flow_slug", "worker_id"} <= entry.keys()


def test_diamond_joins_both_branches(pgflow_conn, start_worker):
    worker = start_worker("basic:diamond")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "diamond", {"x": 5})
    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    assert run["output"] == {"bottom": {"sum": 16, "keys": ["left", "right"]}}


def test_root_map_gets_elements_and_output_keeps_index_order(pgflow_conn, start_worker):
    worker = start_worker("basic:root_map", "--max-concurrency", "3", "--batch-size", "2")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "root_map", [3, 1, 4, 1, 5])
    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    assert run["output"] == {"collect": [6, 2, 8, 2, 10]}
    states = step_states(pgflow_conn, run_id)
    assert [e["index"] for e in states["double"]["output"]] == [0, 1, 2, 3, 4]


def test_dependent_map_and_empty_array(pgflow_conn, start_worker):
    worker = start_worker("basic:dependent_map", "basic:root_map")
    worker.wait_running()
    full = start_flow(pgflow_conn, "dependent_map", {"count": 4})
    empty = start_flow(pgflow_conn, "dependent_map", {"count": 0})
    empty_root = start_flow(pgflow_conn, "root_map", [])
    run = wait_run(pgflow_conn, full)
    assert run["output"] == {"summary": {"squares": [0, 1, 4, 9], "flow_input": {"count": 4}}}
    run = wait_run(pgflow_conn, empty)
    assert run["status"] == "completed"
    assert run["output"] == {"summary": {"squares": [], "flow_input": {"count": 0}}}
    assert not [t for t in step_tasks(pgflow_conn, empty) if t["step_slug"] == "square"]
    # a root map over [] completes inside start_flow; its dependent still runs
    run = wait_run(pgflow_conn, empty_root)
    assert run["output"] == {"collect": []}


def test_falsy_outputs_are_stored_as_themselves(pgflow_conn, start_worker):
    worker = start_worker("basic:falsy")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "falsy", {})
    run = wait_run(pgflow_conn, run_id)
    assert run["status"] == "completed"
    assert run["output"] == {
        "gather": {
            "empty_object": {},
            "zero": 0,
            "false": False,
            "empty_string": "",
            "json_null": None,
            "empty_list": [],
        }
    }
    # JSON null, not SQL NULL, in the task and step rows
    row = pgflow_conn.execute(
        "select output is null, jsonb_typeof(output) from pgflow.step_tasks "
        "where run_id = %s and step_slug = 'json_null'",
        (run_id,),
    ).fetchone()
    assert row == (False, "null")
    types = dict(
        pgflow_conn.execute(
            "select step_slug, jsonb_typeof(output) from pgflow.step_states where run_id = %s",
            (run_id,),
        ).fetchall()
    )
    assert types == {
        "empty_object": "object",
        "zero": "number",
        "false": "boolean",
        "empty_string": "string",
        "json_null": "null",
        "empty_list": "array",
        "gather": "object",
    }


def test_job_is_a_one_step_flow(pgflow_conn, start_worker):
    worker = start_worker("basic:echo_job")
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "echo_job", {"hello": "world"})
    run = wait_run(pgflow_conn, run_id)
    worker_id = pgflow_conn.execute(
        "select worker_id::text from pgflow.workers where queue_name = 'echo_job'"
    ).fetchone()[0]
    assert run["output"] == {
        "echo_job": {"echo": {"hello": "world"}, "step": "echo_job", "worker": worker_id}
    }


def test_conditions_skip_the_unmet_branch(pgflow_conn, start_worker):
    worker = start_worker("conditions:conditions")
    worker.wait_running()
    german = start_flow(pgflow_conn, "conditions", {"lang": "de"})
    english = start_flow(pgflow_conn, "conditions", {"lang": "en"})
    assert wait_run(pgflow_conn, german)["output"] == {"final": ["german"]}
    assert wait_run(pgflow_conn, english)["output"] == {"final": ["other"]}
    states = step_states(pgflow_conn, german)
    assert states["other"]["status"] == "skipped"
    assert states["other"]["skip_reason"] == "condition_unmet"
    assert states["german"]["output"] == "hallo"
    assert run_row(pgflow_conn, english)["status"] == "completed"


def test_group_commit_and_one_call_per_task_give_the_same_runs(pgflow_conn, start_worker):
    # Default: completions go out in pgflow.complete_tasks calls; --complete-batch-size 1:
    # one pgflow.complete_task per task, as upstream workers report.
    outputs = {}
    for args in ((), ("--complete-batch-size", "1")):
        worker = start_worker("basic:root_map", *args)
        worker.wait_running()
        run_ids = [start_flow(pgflow_conn, "root_map", [n, n + 1, n + 2]) for n in range(6)]
        runs = [wait_run(pgflow_conn, run_id) for run_id in run_ids]
        assert {r["status"] for r in runs} == {"completed"}
        outputs[args] = [r["output"] for r in runs]
        worker.stop()
    assert outputs[()] == outputs[("--complete-batch-size", "1")]
    assert outputs[()][0] == {"collect": [0, 2, 4]}
