"""pgflow.testing.run_flow: a run driven to its end in the test, through the worker's SQL calls.

Uses the plugin's ``run_flow``, ``pgflow_clock`` and ``pgflow_client`` fixtures on this suite's
own ``pgflow_dsn`` (tests/conftest.py), as a user's suite would on the plugin's.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import psycopg
import pytest

from pgflow import Flow, PermanentError
from pgflow.testing import FlowRunner, RunStalled, run_flow_async


def _pipeline() -> Flow:
    flow = Flow("pipeline", max_attempts=2, base_delay=1)

    @flow.array()
    def items(input):
        return input["items"]

    @flow.map(array="items")
    def double(item):
        return item * 2

    @flow.step(depends_on=["double"])
    def total(input, ctx):
        return {"sum": sum(input["double"]), "run_input": ctx.flow_input}

    return flow


def test_a_run_with_a_map_step_completes_with_every_output(run_flow: FlowRunner) -> None:
    run = run_flow(_pipeline(), {"items": [1, 2, 3]})

    assert run.status == "completed"
    assert run.output == {"total": {"sum": 12, "run_input": {"items": [1, 2, 3]}}}
    assert [s.status for s in run.steps.values()] == ["completed"] * 3
    double = run.step("double")
    assert double.output == [2, 4, 6]
    assert [(t.index, t.output, t.attempts) for t in double.tasks] == [
        (0, 2, 1),
        (1, 4, 1),
        (2, 6, 1),
    ]
    assert run.handler_calls == 5
    assert run.events_named("run:completed")


def test_an_override_replaces_one_handler_with_its_own_calling_convention(
    run_flow: FlowRunner,
) -> None:
    async def fake_double(item, ctx):
        await asyncio.sleep(0)
        return {"index": ctx.task_index, "item": item}

    run = run_flow(_pipeline(), {"items": [5, 6]}, overrides={"double": lambda item: item + 100})
    assert run.step("double").output == [105, 106]

    run = run_flow(
        _pipeline(), {"items": [5]}, overrides={"double": fake_double, "total": lambda i: i}
    )
    assert run.output == {"total": {"double": [{"index": 0, "item": 5}]}}


def test_a_bad_override_raises_before_anything_is_written(
    run_flow: FlowRunner, pgflow_conn
) -> None:
    with pytest.raises(ValueError, match=r"has no step 'nope' \(steps: items, double, total\)"):
        run_flow(_pipeline(), {"items": []}, overrides={"nope": lambda x: x})
    waiting = Flow("waiting")
    waiting.wait("approved")
    with pytest.raises(ValueError, match="has no handler"):
        run_flow(waiting, {}, overrides={"approved": lambda x: x})
    with pytest.raises(ValueError, match="not callable"):
        run_flow(_pipeline(), {}, overrides={"items": 3})  # type: ignore[dict-item]
    assert pgflow_conn.execute("select count(*) from pgflow.runs").fetchone() == (0,)
    assert pgflow_conn.execute("select count(*) from pgflow.flows").fetchone() == (0,)


def test_a_step_that_keeps_failing_fails_the_run_after_its_attempts(run_flow: FlowRunner) -> None:
    def broken(item):
        raise RuntimeError(f"cannot double {item}")

    run = run_flow(_pipeline(), {"items": [7]}, overrides={"double": broken})

    assert run.status == "failed"
    double = run.step("double")
    assert (double.status, double.attempts) == ("failed", 2)
    assert double.error == "RuntimeError: cannot double 7"
    assert double.tasks[0].error == "RuntimeError: cannot double 7"
    assert run.step("total").status in {"created", "cancelled"}
    failed = run.events_named("task:failed")
    assert len(failed) == 2
    assert "RuntimeError: cannot double 7" in failed[-1].details["traceback"]
    # The retry waited its backoff (base_delay 1 s * 2^1) on the engine's clock.
    assert failed[1].created_at - failed[0].created_at >= timedelta(seconds=2)


def test_permanent_errors_and_outputs_that_are_not_json_are_not_retried(
    run_flow: FlowRunner,
) -> None:
    def refuse(item):
        raise PermanentError("no")

    run = run_flow(_pipeline(), {"items": [1]}, overrides={"double": refuse})
    assert (run.status, run.step("double").attempts) == ("failed", 1)
    assert run.step("double").error == "PermanentError: no"

    run = run_flow(_pipeline(), {"items": [1]}, overrides={"double": lambda item: {1, 2}})
    assert (run.status, run.step("double").attempts) == ("failed", 1)
    assert "not JSON-serialisable" in (run.step("double").error or "")


def test_a_handler_past_its_timeout_fails_its_attempt(run_flow: FlowRunner) -> None:
    flow = Flow("slow", max_attempts=1)

    @flow.step(timeout=3)  # the shortest timeout a step may have
    async def nap(input):
        await asyncio.sleep(30)

    run = run_flow(flow, {})
    assert run.status == "failed"
    assert run.step("nap").error == "TimeoutError: handler exceeded the step timeout of 3 s"


def test_delays_backoff_and_a_day_long_wait_pass_on_the_moved_clock(
    run_flow: FlowRunner, pgflow_clock
) -> None:
    flow = Flow("day", max_attempts=3, base_delay=60)
    calls = []

    @flow.step(start_delay=3600)
    def first(input, ctx):
        calls.append(ctx.attempt)
        if ctx.attempt < 3:
            raise ConnectionError("down")
        return "ok"

    flow.wait("approved", depends_on=["first"], timeout=86400, on_timeout="continue")

    @flow.step(depends_on=["approved"])
    def last(input):
        return input

    before = pgflow_clock.now()
    run = run_flow(flow, {})

    assert run.status == "completed"
    assert calls == [1, 2, 3]
    task = run.step("first").tasks[0]
    failed = [e.created_at for e in run.events_named("task:failed")]
    # First attempt an hour after the start; retries 120 s and 240 s after each failure.
    assert timedelta(hours=1) <= failed[0] - run.started_at < timedelta(hours=1, seconds=5)
    assert timedelta(seconds=120) <= failed[1] - failed[0] < timedelta(seconds=125)
    assert timedelta(seconds=240) <= task.completed_at - failed[1] < timedelta(seconds=245)
    wait = run.waits[0]
    assert (wait.step_slug, wait.outcome) == ("approved", "timed_out")
    assert (
        timedelta(hours=24) <= wait.resolved_at - task.completed_at < timedelta(hours=24, seconds=5)
    )
    assert run.step("last").output == {"approved": None}
    assert pgflow_clock.now() - before >= timedelta(hours=25, seconds=360)


def test_a_timer_and_a_run_deadline_fire_on_the_moved_clock(
    run_flow: FlowRunner, pgflow_client
) -> None:
    timer = Flow("timer")
    timer.sleep("cool_off", seconds=7200)

    @timer.step(depends_on=["cool_off"])
    def after(input):
        return input["cool_off"]

    run = run_flow(timer, {})
    assert run.status == "completed"
    fired = run.step("after").output
    assert fired["fired_at"] >= fired["due_at"]
    assert run.step("cool_off").completed_at - run.started_at >= timedelta(hours=2)

    bounded = Flow("bounded", run_timeout=600)
    bounded.wait("never")
    run = run_flow(bounded, {})
    assert run.status == "expired"
    assert run.expired_at - run.started_at >= timedelta(seconds=600)


def test_without_moving_the_clock_it_stops_at_the_first_wait(
    run_flow: FlowRunner, pgflow_client, pgflow_clock
) -> None:
    flow = Flow("approval")

    @flow.step(start_delay=60)
    def ask(input):
        return "asked"

    @flow.step(depends_on=["ask"], wait_for="approved")
    def book(input, ctx):
        return {"by": ctx.signal.payload["by"], "name": ctx.signal.name}

    run = run_flow(flow, {}, move_clock=False)
    assert (run.status, run.step("ask").tasks[0].status, run.handler_calls) == (
        "started",
        "queued",
        0,
    )

    tick = pgflow_clock.advance(minutes=1)
    assert tick.fired_waits == 0
    run = run_flow.continue_run(flow, run.run_id)
    assert (run.status, run.waiting_for) == ("started", ("approved",))
    assert run.step("book").status == "waiting"

    pgflow_client.send_signal(run.run_id, "approved", {"by": "carol"})
    run = run_flow.continue_run(flow, run.run_id)
    assert run.status == "completed"
    assert run.output == {"book": {"by": "carol", "name": "approved"}}


def test_the_clock_fixture_fires_waits_and_requeues_stalled_tasks(
    pgflow_conn, pgflow_clock, run_flow: FlowRunner
) -> None:
    flow = Flow("stall", max_attempts=2)

    @flow.step(timeout=10)
    def work(input):
        return 1

    flow.wait("later", timeout=3600)
    run_flow(flow, {}, move_clock=False)  # work completes; later waits
    # A task claimed by a worker that then died: started, never reported.
    pgflow_conn.execute("select pgflow.start_flow('stall', '{}')")
    worker = "11111111-1111-1111-1111-111111111111"
    pgflow_conn.execute("select pgflow.register_worker(%s::uuid, 'stall', 'test')", (worker,))
    claimed = pgflow_conn.execute(
        "select count(*) from pgflow.read_and_start_tasks('stall', %s::uuid, 10, 60, array['work'])"
        " where run_id is not null",
        (worker,),
    ).fetchone()
    assert claimed == (1,)

    assert pgflow_clock.advance(seconds=39).requeued_tasks == 0  # 39 s: not stalled yet
    tick = pgflow_clock.advance(seconds=2)  # 41 s > timeout 10 s + 30 s buffer
    assert (tick.requeued_tasks, tick.fired_waits) == (1, 0)
    tick = pgflow_clock.advance(hours=1)
    assert tick.fired_waits == 2  # "later" of both runs timed out
    with pytest.raises(ValueError, match="only moves forward"):
        pgflow_clock.advance(seconds=-1)
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        pgflow_conn.execute("select pgflow.advance_clock('NaN')")


def test_a_runaway_run_stops_with_run_stalled_and_can_be_driven_on(
    run_flow: FlowRunner, pgflow_conn
) -> None:
    with pytest.raises(RunStalled, match="more than 3 handler calls"):
        run_flow(_pipeline(), {"items": list(range(50))}, max_handler_calls=3)
    started = pgflow_conn.execute(
        "select count(*) from pgflow.step_tasks where status = 'started'"
    ).fetchone()
    assert started == (0,)  # no task was claimed and left unrun
    (run_id,) = pgflow_conn.execute("select run_id from pgflow.runs").fetchone()
    run = run_flow.continue_run(_pipeline(), run_id)
    assert (run.status, run.output["total"]["sum"]) == ("completed", 2 * sum(range(50)))


def test_run_flow_async_and_the_blocking_form_inside_a_running_loop(pgflow_dsn: str) -> None:
    async def main() -> tuple[int, int]:
        run = await run_flow_async(_pipeline(), {"items": [2]}, dsn=pgflow_dsn)
        again = FlowRunner(pgflow_dsn)(_pipeline(), {"items": [3]})  # from within this loop
        return run.output["total"]["sum"], again.output["total"]["sum"]

    assert asyncio.run(main()) == (4, 6)


def test_base_exceptions_and_outputs_jsonb_refuses_fail_the_task(run_flow: FlowRunner) -> None:
    def exits(item):
        raise SystemExit(3)

    run = run_flow(_pipeline(), {"items": [1]}, overrides={"double": exits})
    assert (run.status, run.step("double").error) == ("failed", "SystemExit: 3")

    def closes(item):  # raised in a handler thread, it must not close run_flow's coroutine
        raise GeneratorExit("closed")

    run = run_flow(_pipeline(), {"items": [1]}, overrides={"double": closes})
    assert (run.status, run.step("double").error) == ("failed", "GeneratorExit: closed")

    run = run_flow(_pipeline(), {"items": [1]}, overrides={"double": lambda item: "a\x00b"})
    assert run.status == "failed"
    assert "UntranslatableCharacter" in (run.step("double").error or "")

    def interrupted(item):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # Ctrl-C still stops the test...
        run_flow(_pipeline(), {"items": [1]}, overrides={"double": interrupted})


def test_an_interrupted_task_is_reported_failed_first(run_flow: FlowRunner, pgflow_conn) -> None:
    def interrupted(item):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_flow(_pipeline(), {"items": [1]}, overrides={"double": interrupted})
    row = pgflow_conn.execute(
        "select status, error_message from pgflow.step_tasks where step_slug = 'double'"
    ).fetchone()
    assert row == ("queued", "KeyboardInterrupt: ")  # ...after its failure was reported


def test_other_runs_delays_never_move_the_clock(run_flow: FlowRunner, pgflow_clock) -> None:
    flow = Flow("mixed")

    @flow.step(start_delay=30 * 86400, if_={"late": True})
    def late(input):
        return "late"

    flow.wait("go", depends_on=[])
    run_flow.prepare(flow)
    with psycopg.connect(run_flow.dsn, autocommit=True) as conn:
        conn.execute("""select pgflow.start_flow('mixed', '{"late": true}')""")
    before = pgflow_clock.now()
    run = run_flow(flow, {"late": False})
    assert (run.status, run.waiting_for) == ("started", ("go",))
    assert pgflow_clock.now() - before < timedelta(days=1)  # the other run's 30 days wait


def test_a_run_started_by_the_client_with_keys_is_driven_on(
    run_flow: FlowRunner, pgflow_client
) -> None:
    run_flow.prepare(_pipeline())
    started = pgflow_client.start_flow("pipeline", {"items": [4]}, idempotency_key="order-1")
    run = run_flow.continue_run(_pipeline(), started.run_id)
    assert run.output["total"]["sum"] == 8
    other = Flow("other")
    other.wait("never")
    with pytest.raises(ValueError, match="is a run of flow 'pipeline', not of 'other'"):
        run_flow.continue_run(other, started.run_id)
    with pytest.raises(ValueError, match="a mapping"):
        run_flow(_pipeline(), {"items": []}, overrides=[("double", abs)])  # type: ignore[arg-type]


def test_a_timer_beyond_a_century_stops_the_run_waiting(run_flow: FlowRunner) -> None:
    flow = Flow("far")
    flow.sleep("until", until="input.at")
    run = run_flow(flow, {"at": "2300-01-01T00:00:00Z"})
    assert (run.status, run.step("until").status) == ("started", "waiting")


def test_the_async_form_runs_handlers_on_the_tests_own_loop(run_flow: FlowRunner) -> None:
    async def main() -> int:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[int] = loop.create_future()
        loop.call_soon(answer.set_result, 21)

        async def from_the_test_loop(item):
            return item * await answer

        run = await run_flow.run_async(
            _pipeline(), {"items": [2]}, overrides={"double": from_the_test_loop}
        )
        return run.output["total"]["sum"]

    assert asyncio.run(main()) == 42


def test_the_client_and_pgflow_status_measure_on_the_engines_clock(
    run_flow: FlowRunner, pgflow_clock, pgflow_client, pgflow_dsn: str
) -> None:
    from click.testing import CliRunner

    from pgflow.cli.main import main

    flow = Flow("held")
    flow.wait("go")
    run = run_flow(flow, {})
    before = pgflow_client.engine_time()
    pgflow_clock.advance(hours=2)
    assert pgflow_client.engine_time() - before >= timedelta(hours=2)
    result = CliRunner().invoke(main, ["status", run.run_id, "--dsn", pgflow_dsn])
    assert result.exit_code == 0, result.output
    assert "running for 2 h 0 min" in result.output  # Python's clock would say 0.0 s
