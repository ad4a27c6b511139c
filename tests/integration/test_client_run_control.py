"""The run-control verbs of pgflow.Client (and AsyncClient) against a real database."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from pgflow import (
    AsyncClient,
    Client,
    InvalidControlArgument,
    RunNotFound,
    RunStateError,
    StepNotFound,
)
from tests.integration.failing_runs import (
    define_one_step,
    fail_attempt,
    failed_run,
    run_status,
    start_run,
    step_status,
)
from tests.integration.sql_worker import define_two_steps, process_queued_tasks


def event_names(conn, run_id):
    rows = conn.execute(
        "select event, actor, reason from pgflow.run_events where run_id = %s order by id",
        (run_id,),
    )
    return rows.fetchall()


def test_cancel_run_cancels_and_a_second_cancel_is_refused_or_a_no_op(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    with Client(pgflow_dsn) as client:
        result = client.cancel_run(run_id, actor="alice", reason="wrong input")
        guarded = client.cancel_run(run_id, actor="bob", expected_status="started")
        with pytest.raises(RunStateError) as refused:
            client.cancel_run(run_id, actor="bob")

    assert (result.run_id, result.status, result.changed, result.detail) == (
        run_id,
        "cancelled",
        True,
        None,
    )
    assert (guarded.status, guarded.changed) == ("cancelled", False)
    assert "not started" in guarded.detail
    assert (refused.value.verb, refused.value.run_id, refused.value.status) == (
        "cancel_run",
        run_id,
        "cancelled",
    )
    assert run_status(pgflow_conn, run_id) == "cancelled"
    assert ("run:cancelled", "alice", "wrong input") in event_names(pgflow_conn, run_id)
    assert not any(actor == "bob" for _, actor, _ in event_names(pgflow_conn, run_id))


def test_pause_then_resume(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    with Client(pgflow_dsn) as client:
        paused = client.pause_run(run_id, actor="ops", reason="db maintenance")
        state_while_paused = client.get_run(run_id)
        resumed = client.resume_run(run_id, actor="ops", expected_status="paused")
        with pytest.raises(RunStateError) as refused:
            client.resume_run(run_id, actor="ops")

    assert (paused.status, paused.changed) == ("paused", True)
    assert state_while_paused.status == "paused"
    assert state_while_paused.paused_at is not None
    assert not state_while_paused.finished
    assert (resumed.status, resumed.changed) == ("started", True)
    assert refused.value.status == "started"
    events = [e for e, _, _ in event_names(pgflow_conn, run_id)]
    assert events.index("run:paused") < events.index("run:resumed")


def test_retry_run_restarts_the_failed_step_once(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "disk full")

    with Client(pgflow_dsn) as client:
        retried = client.retry_run(run_id, actor="alice", expected_status="failed")
        again = client.retry_run(run_id, actor="alice", expected_status="failed")
        state = client.get_run(run_id)

    assert (retried.status, retried.changed) == ("started", True)
    assert (again.status, again.changed) == ("started", False)
    assert state.step("only").status == "started"
    assert state.failed_at is None
    queued = pgflow_conn.execute(
        "select status, attempts_count, attempt_offset from pgflow.step_tasks where run_id = %s",
        (run_id,),
    ).fetchall()
    # the new task goes on from the failed attempt 1, with a fresh budget (offset 1)
    assert queued == [("queued", 1, 1)]


def test_rerun_starts_a_new_run_with_the_same_input(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    old = start_run(pgflow_conn, "two_steps", '{"n": 7}')

    with Client(pgflow_dsn) as client:
        result = client.rerun(old, actor="alice", reason="compare")
        new_state = client.get_run(result.run_id)
        old_state = client.get_run(old)

    assert result.changed
    assert result.run_id != old
    assert (new_state.status, new_state.input, new_state.rerun_of) == ("started", {"n": 7}, old)
    assert old_state.status == "started"


def test_skip_step_lets_dependents_run_and_refuses_a_started_step(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    with Client(pgflow_dsn) as client:
        skipped = client.skip_step(run_id, "second", actor="alice", reason="not needed")
        with pytest.raises(RunStateError) as refused:
            client.skip_step(run_id, "first", actor="alice")
        with pytest.raises(StepNotFound, match="no_such_step"):
            client.skip_step(run_id, "no_such_step", actor="alice")
        process_queued_tasks(pgflow_conn, "two_steps", lambda *args: 1)
        final = client.get_run(run_id)

    assert (skipped.status, skipped.changed) == ("started", True)
    assert (refused.value.step_slug, refused.value.step_status, refused.value.status) == (
        "first",
        "started",
        "started",
    )
    assert final.step("second").status == "skipped"
    assert final.step("second").skip_reason == "skipped_by_operator"
    assert final.status == "completed"


def test_complete_step_feeds_its_output_to_dependents(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")
    seen = []

    with Client(pgflow_dsn) as client:
        result = client.complete_step(run_id, "first", {"by": "hand"}, actor="alice")
        process_queued_tasks(
            pgflow_conn, "two_steps", lambda step, task_input, _: seen.append(task_input)
        )
        with pytest.raises(RunStateError):
            client.complete_step(run_id, "first", 1, actor="alice")

    assert (result.status, result.changed) == ("started", True)
    assert seen == [{"first": {"by": "hand"}}]
    assert step_status(pgflow_conn, run_id, "first") == "completed"


def test_complete_step_of_a_failed_run_reopens_it(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "boom")

    with Client(pgflow_dsn) as client:
        result = client.complete_step(run_id, "only", [1, 2], actor="alice", reason="fixed by hand")
        state = client.get_run(run_id)

    assert (result.status, result.changed) == ("completed", True)
    assert state.output == {"only": [1, 2]}


def test_unknown_run_and_bad_arguments(pgflow_dsn, pgflow_conn):
    with Client(pgflow_dsn) as client:
        with pytest.raises(RunNotFound, match="does not exist"):
            client.pause_run(uuid.uuid4(), actor="alice")
        with pytest.raises(InvalidControlArgument, match="actor"):
            client.cancel_run(uuid.uuid4(), actor="  ")
        with pytest.raises(InvalidControlArgument, match="expected_status"):
            client.cancel_run(uuid.uuid4(), actor="alice", expected_status="done")


def test_complete_step_output_of_the_wrong_shape_is_refused_by_the_database(
    pgflow_dsn, pgflow_conn
):
    pgflow_conn.execute("select pgflow.create_flow('mapper')")
    pgflow_conn.execute("select pgflow.add_step('mapper', 'items')")
    pgflow_conn.execute(
        "select pgflow.add_step('mapper', 'each', array['items'], step_type => 'map')"
    )
    run_id = start_run(pgflow_conn, "mapper")

    with Client(pgflow_dsn) as client, pytest.raises(InvalidControlArgument, match="array"):
        client.complete_step(run_id, "items", {"not": "an array"}, actor="alice")

    assert step_status(pgflow_conn, run_id, "items") == "started"


def test_events_are_oldest_first_with_actor_and_reason(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    run_id = failed_run(pgflow_conn, "fragile", "boom")

    with Client(pgflow_dsn) as client:
        client.retry_run(run_id, actor="alice", reason="flaky network")
        events = client.events(run_id)
        none = client.events(uuid.uuid4())

    assert [e.id for e in events] == sorted(e.id for e in events)
    names = [e.event for e in events]
    assert names[0] == "run:started"
    assert names.index("task:failed") < names.index("run:failed") < names.index("run:retried")
    retried = next(e for e in events if e.event == "run:retried")
    assert (retried.run_id, retried.actor, retried.reason) == (run_id, "alice", "flaky network")
    failed = next(e for e in events if e.event == "task:failed")
    assert (failed.step_slug, failed.task_index) == ("only", 0)
    assert failed.details["error_message"] == "boom"
    assert none == []


def test_retrying_tasks_name_the_error_and_the_backoff_and_wait_while_paused(
    pgflow_dsn, pgflow_conn
):
    define_one_step(pgflow_conn, "flaky", max_attempts=3, base_delay=5)
    run_id = start_run(pgflow_conn, "flaky")
    fail_attempt(pgflow_conn, "flaky", "timeout talking to S3")

    with Client(pgflow_dsn) as client:
        (task,) = client.retrying_tasks(run_id)
        client.pause_run(run_id, actor="ops")
        (parked,) = client.retrying_tasks(run_id)

    vt = pgflow_conn.execute(
        "select q.vt from pgmq.q_flaky as q join pgflow.step_tasks as t"
        " on t.message_id = q.msg_id where t.run_id = %s",
        (run_id,),
    )
    assert (task.step_slug, task.task_index, task.attempts_count) == ("only", 0, 1)
    assert task.error_message == "timeout talking to S3"
    # fail_task's backoff: floor(5 * 2^1) = 10 s after the failure, as on the message
    assert (task.next_attempt_at - task.failed_at).total_seconds() == 10
    assert parked.next_attempt_at is None
    assert vt.fetchall() == []  # parked: the message is archived while paused


def test_retrying_task_due_time_matches_the_queue_message(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "flaky", max_attempts=3, base_delay=5)
    run_id = start_run(pgflow_conn, "flaky")
    fail_attempt(pgflow_conn, "flaky", "boom")

    with Client(pgflow_dsn) as client:
        (task,) = client.retrying_tasks(run_id)

    (vt,) = pgflow_conn.execute(
        "select q.vt from pgmq.q_flaky as q join pgflow.step_tasks as t"
        " on t.message_id = q.msg_id where t.run_id = %s",
        (run_id,),
    ).fetchone()
    # set_vt uses clock_timestamp() a moment after the event's now(): never earlier.
    assert task.next_attempt_at <= vt
    assert (vt - task.next_attempt_at).total_seconds() < 10


def test_list_runs_selects_by_step_and_error(pgflow_dsn, pgflow_conn):
    define_one_step(pgflow_conn, "fragile")
    disk = failed_run(pgflow_conn, "fragile", "Disk full on /var")
    network = failed_run(pgflow_conn, "fragile", "network unreachable")

    with Client(pgflow_dsn) as client:
        by_text = client.list_runs(flow_slug="fragile", status="failed", error_contains="DISK")
        by_step = client.list_runs(flow_slug="fragile", step_slug="only")
        other_step = client.list_runs(flow_slug="fragile", step_slug="nope")

    assert [r.run_id for r in by_text] == [disk]
    assert {r.run_id for r in by_step} == {disk, network}
    assert other_step == []


def test_async_client_verbs(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    async def main():
        async with AsyncClient(pgflow_dsn) as client:
            paused = await client.pause_run(run_id, actor="async-ops")
            cancelled = await client.cancel_run(run_id, actor="async-ops", reason="done")
            try:
                await client.retry_run(run_id, actor="async-ops")
            except RunStateError as exc:
                refused = exc
            events = await client.events(run_id)
            return paused, cancelled, refused, events

    paused, cancelled, refused, events = asyncio.run(main())

    assert (paused.status, cancelled.status) == ("paused", "cancelled")
    assert refused.status == "cancelled"
    by_async_ops = [e.event for e in events if e.actor == "async-ops"]
    assert by_async_ops.index("run:paused") < by_async_ops.index("run:cancelled")


def test_wait_for_run_returns_once_the_run_is_cancelled(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = start_run(pgflow_conn, "two_steps")

    with Client(pgflow_dsn) as client:
        client.cancel_run(run_id, actor="alice")
        final = client.wait_for_run(run_id, timeout_seconds=0.5, poll_interval_seconds=0.05)

    assert final.status == "cancelled"
    assert final.finished
    assert final.cancelled_at is not None
    assert [step.status for step in final.steps] == ["cancelled", "cancelled"]
