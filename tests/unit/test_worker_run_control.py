"""Run control in the worker, without a database: permanent failures (PermanentError, outputs
that are not JSON) and cancelled tasks (ctx.cancelled, async handlers cancelled, results
discarded with one INFO line), against a fake database that answers as the SQL does.

On a real database: tests/integration/test_worker_run_control.py; end to end with a
cancelled run: tests/e2e/test_cancelled_run.py.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest

import pgflow
from pgflow.context import Context
from pgflow.dsl import Flow
from pgflow.errors import PermanentError, PgflowError
from pgflow.worker import queries
from pgflow.worker.cancellation import CancellationCheck, reason_of_run_status
from pgflow.worker.claimed_task import ClaimedTask
from pgflow.worker.heartbeat import Heartbeat
from pgflow.worker.modes import PGFLOW_PY, UPSTREAM, UPSTREAM_NOTICE
from pgflow.worker.reports import ReportBatcher, TaskReport
from tests.unit.test_worker_executor import (
    COMPLETED,
    RETRIED,
    FakeCursor,
    as_batch_call,
    claimed,
    make_executor,
    only_report,
    run_task,
)
from tests.unit.test_worker_faults import ScriptedPool

Key = tuple[str, str, int]


class RunControlDb:
    """A fake database that knows which tasks are cancelled, as ``pgflow.cancelled_tasks``
    and the reports see them: a report of a cancelled task is ignored with the reason SQL
    gives (run_cancelled, run_failed, task_cancelled); other reports complete or retry."""

    def __init__(self) -> None:
        #: (statement in its batch form, parameters) of every call.
        self.sent: list[tuple[str, dict[str, Any]]] = []
        #: cancelled task key -> its run's status
        self.cancelled: dict[Key, str] = {}
        #: raised (once each, in order) by the next cancelled_tasks calls
        self.check_failures: list[Exception] = []

    def cancel(self, task: ClaimedTask, run_status: str = "cancelled") -> None:
        self.cancelled[(task.run_id, task.step_slug, task.task_index)] = run_status

    def statements(self) -> list[str]:
        return [query for query, _ in self.sent]

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        yield self

    async def execute(self, query: str, params: dict[str, Any] | None = None) -> FakeCursor:
        query, params = as_batch_call(query, dict(params or {}))
        self.sent.append((query, params))
        keys = list(
            zip(params["run_ids"], params["step_slugs"], params["task_indexes"], strict=True)
        )
        if query == queries.CANCELLED_TASKS:
            if self.check_failures:
                raise self.check_failures.pop(0)
            return FakeCursor([(*k, self.cancelled[k]) for k in keys if k in self.cancelled])
        rows = []
        for key in keys:
            if key in self.cancelled:
                reason = reason_of_run_status(self.cancelled[key])
                rows.append(("cancelled", "ignored", reason, None))
            else:
                rows.append(RETRIED if query == queries.FAIL_TASKS else COMPLETED)
        return FakeCursor(rows)


async def until(predicate: Any, what: str, timeout: float = 10.0) -> None:
    """Wait on the loop until ``predicate()`` is true; fail at the deadline."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def discarded_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str]]:
    """(message, level, reason field) of every "result discarded" log line."""
    return [
        (r.getMessage(), r.levelno, r.fields["reason"])  # type: ignore[attr-defined]
        for r in caplog.records
        if r.getMessage().startswith("result discarded")
    ]


def worker_problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Warnings and errors of the worker machinery."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "pgflow.worker" and r.levelno >= logging.WARNING
    ]


# ---------------------------------------------------------------- permanent failures


class CardDeclined(PermanentError):
    pass


def failing_flow() -> Flow:
    flow = Flow("permanence")

    @flow.step()
    def refuses(input):
        raise PermanentError("negative amount")

    @flow.step()
    async def declines(input):
        raise CardDeclined("card declined")

    @flow.step()
    def flaky(input):
        raise RuntimeError("try again")

    @flow.step()
    def not_json(input):
        return {1, 2}

    @flow.step()
    async def not_json_async(input):
        return float("nan")

    @flow.step()
    def raises_type_error(input):
        raise TypeError("a bug in the handler")

    return flow


def test_permanent_error_is_public_and_a_pgflow_error():
    assert pgflow.PermanentError is PermanentError
    assert "PermanentError" in pgflow.__all__
    assert issubclass(PermanentError, PgflowError)
    assert PermanentError.__doc__


@pytest.mark.parametrize(
    ("step_slug", "permanent", "error"),
    [
        ("refuses", True, "PermanentError: negative amount"),
        ("declines", True, "CardDeclined: card declined"),  # a subclass, async handler
        ("not_json", True, "TypeError: handler output is not JSON-serialisable (set)"),
        ("not_json_async", True, "TypeError: handler output is not JSON-serialisable (float)"),
        ("flaky", False, "RuntimeError: try again"),  # everything else is retried
        ("raises_type_error", False, "TypeError: a bug in the handler"),
    ],
)
def test_permanent_failures_are_reported_permanent_others_not(step_slug, permanent, error):
    pool = run_task(claimed(failing_flow(), step_slug, {}, flow_input={}))
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith(error)
    assert report["permanents"] is permanent
    assert report["attempts"] == 2


def test_a_permanent_failure_is_logged_as_such(caplog):
    caplog.set_level(logging.WARNING, logger="pgflow.worker")
    run_task(claimed(failing_flow(), "refuses", {}, flow_input={}))
    (record,) = [r for r in caplog.records if r.getMessage() == "task failed"]
    assert record.fields["permanent"] is True  # type: ignore[attr-defined]
    assert record.fields["error"] == "PermanentError: negative amount"  # type: ignore[attr-defined]


def test_completions_never_carry_permanent():
    flow = Flow("fine")

    @flow.step()
    def ok(input):
        return "ok"

    pool = run_task(claimed(flow, "ok", {}, flow_input={}))
    query, params = pool.sent[0]
    assert query == queries.COMPLETE_TASKS
    assert "permanents" not in params
    assert "permanent" not in queries.COMPLETE_TASKS + queries.COMPLETE_TASKS_ONE_REPORT


class RecordingPool:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.gate = asyncio.Event()

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        yield self

    async def execute(self, query: str, params: dict[str, Any]) -> FakeCursor:
        self.sent.append((query, dict(params)))
        await self.gate.wait()
        count = len(params["run_ids"]) if "run_ids" in params else 1
        return FakeCursor([RETRIED] * count)


@pytest.mark.parametrize("permanent", [True, False])
def test_a_batcher_sends_permanent_only_when_made_for_it(permanent):
    # True: fail_tasks of pgflow-py's SQL; False: completions, and upstream mode, whose
    # fail_task has no such argument (a permanent failure is then an ordinary one).
    async def scenario() -> RecordingPool:
        pool = RecordingPool()
        batcher = ReportBatcher(
            pool,  # type: ignore[arg-type]
            statement=queries.FAIL_TASKS if permanent else UPSTREAM.fail_batch,
            one_report_statement=queries.FAIL_TASKS_ONE_REPORT if permanent else UPSTREAM.fail_one,
            name="fail_tasks",
            max_batch=10,
            reconnect_max_seconds=0.01,
            permanent=permanent,
        )
        first = asyncio.ensure_future(batcher.report(TaskReport("r", "s", 0, 1, "e", True)))
        await asyncio.sleep(0)  # the lone first report is on its way, held at the gate
        rest = [
            asyncio.ensure_future(batcher.report(TaskReport("r", "s", i, 1, "e", i == 1)))
            for i in (1, 2)
        ]
        await asyncio.sleep(0)
        pool.gate.set()
        await asyncio.wait_for(asyncio.gather(first, *rest), 5)
        return pool

    pool = asyncio.run(scenario())
    (_, one), (_, group) = pool.sent
    if permanent:
        assert one["permanent"] is True
        assert group["permanents"] == [True, False]
    else:
        assert "permanent" not in one and "permanents" not in group


def test_run_control_is_off_in_upstream_mode_and_the_notice_says_so():
    assert PGFLOW_PY.run_control and not UPSTREAM.run_control
    assert "permanent" not in UPSTREAM.fail_one
    assert "PermanentError" in UPSTREAM_NOTICE and "ctx.cancelled" in UPSTREAM_NOTICE


# ---------------------------------------------------------------- cancelled tasks


@pytest.mark.parametrize(
    ("run_status", "reason"),
    [
        ("cancelled", "run_cancelled"),
        ("failed", "run_failed"),
        ("expired", "run_expired"),
        ("started", "task_cancelled"),  # its step was skipped or completed by hand
        ("paused", "task_cancelled"),
    ],
)
def test_reason_of_run_status(run_status, reason):
    assert reason_of_run_status(run_status) == reason


def test_the_context_has_a_cancelled_event_of_its_task():
    flow = Flow("ctx")

    @flow.step()
    def only(input, ctx):
        return None

    task = claimed(flow, "only", {}, flow_input={})
    ctx = make_executor(RunControlDb()).context_for(task)  # type: ignore[arg-type]
    assert isinstance(ctx.cancelled, threading.Event)
    assert ctx.cancelled is task.cancellation.event and not ctx.cancelled.is_set()
    assert "cancelled" in (Context.__doc__ or "")


def test_a_cancelled_async_handler_is_cancelled_and_nothing_is_reported(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = Flow("cancellable")
    seen: dict[str, Any] = {}

    @flow.step()
    async def waits(input, ctx):
        seen["ctx"] = ctx
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen["told_before_cancelled"] = ctx.cancelled.is_set()
            raise
        return "never"

    reported: list[bool] = []
    db = RunControlDb()

    async def main() -> asyncio.Task[None]:
        executor = make_executor(db, on_reported=lambda t, ok: reported.append(ok))  # type: ignore[arg-type]
        check = CancellationCheck(pool=db, running=executor.running)  # type: ignore[arg-type]
        task = claimed(flow, "waits", {}, flow_input={})
        runner = asyncio.create_task(executor.run(task))
        await until(lambda: "ctx" in seen, "the handler to start")
        assert await check.check() == 0  # asked about it: not cancelled
        db.cancel(task, "cancelled")
        assert await check.check() == 1
        await asyncio.wait([runner], timeout=10)
        assert await check.check() == 0  # nothing runs any more: nothing asked
        assert executor.running == {}
        return runner

    runner = asyncio.run(main())
    assert runner.cancelled()  # the runner ended with its handler, reporting nothing
    assert seen["told_before_cancelled"] is True
    assert seen["ctx"].cancelled.is_set()
    assert db.statements() == [queries.CANCELLED_TASKS, queries.CANCELLED_TASKS]
    assert reported == []
    assert discarded_lines(caplog) == [
        ("result discarded: run cancelled", logging.INFO, "run_cancelled")
    ]
    assert worker_problems(caplog) == []


def test_a_cancelled_sync_handler_is_told_runs_on_and_its_report_is_ignored_quietly(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = Flow("cancellable_sync")
    running = threading.Event()

    @flow.step()
    def waits(input, ctx):
        running.set()
        return {"told": ctx.cancelled.wait(30)}

    db = RunControlDb()
    reported: list[bool] = []

    async def main() -> asyncio.Task[None]:
        executor = make_executor(db, on_reported=lambda t, ok: reported.append(ok))  # type: ignore[arg-type]
        check = CancellationCheck(pool=db, running=executor.running)  # type: ignore[arg-type]
        task = claimed(flow, "waits", {}, flow_input={})
        runner = asyncio.create_task(executor.run(task))
        await until(running.is_set, "the handler to start")
        db.cancel(task, "failed")
        assert await check.check() == 1
        await asyncio.wait([runner], timeout=10)
        return runner

    runner = asyncio.run(main())
    assert not runner.cancelled() and runner.exception() is None
    assert db.statements() == [queries.CANCELLED_TASKS, queries.COMPLETE_TASKS]
    assert only_report(db, 1)[1]["payloads"] == '{"told": true}'  # type: ignore[arg-type]
    assert reported == [False]
    # once: by the check; the ignored report that followed logged nothing more
    assert discarded_lines(caplog) == [("result discarded: run failed", logging.INFO, "run_failed")]
    assert worker_problems(caplog) == []
    assert not [r for r in caplog.records if r.getMessage().startswith("report ignored")]


def test_a_task_known_cancelled_is_not_asked_about_again(caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = Flow("asked_once")
    release = threading.Event()
    running = threading.Event()

    @flow.step()
    def waits(input):
        running.set()
        release.wait(30)

    db = RunControlDb()

    async def main() -> None:
        executor = make_executor(db)  # type: ignore[arg-type]
        check = CancellationCheck(pool=db, running=executor.running)  # type: ignore[arg-type]
        task = claimed(flow, "waits", {}, flow_input={})
        runner = asyncio.create_task(executor.run(task))
        await until(running.is_set, "the handler to start")
        db.cancel(task, "started")
        assert await check.check() == 1
        assert await check.check() == 0  # still running, already told: nothing sent
        release.set()
        await asyncio.wait([runner], timeout=10)
        assert (check.checks, check.found) == (1, 1)

    asyncio.run(main())
    assert db.statements() == [queries.CANCELLED_TASKS, queries.COMPLETE_TASKS]
    assert discarded_lines(caplog) == [
        ("result discarded: task cancelled", logging.INFO, "task_cancelled")
    ]


@pytest.mark.parametrize(
    ("step_slug", "run_status", "message"),
    [
        ("quick", "cancelled", "result discarded: run cancelled"),
        ("quick", "started", "result discarded: task cancelled"),
        ("broken", "failed", "result discarded: run failed"),
    ],
)
def test_a_report_ignored_as_cancelled_is_logged_once_at_info(
    step_slug, run_status, message, caplog
):
    # The task was cancelled after its claim, and its handler returned before any check.
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = Flow("late")

    @flow.step()
    async def quick(input):
        return 1

    @flow.step()
    def broken(input):
        raise RuntimeError("boom")

    db = RunControlDb()
    task = claimed(flow, step_slug, {}, flow_input={})
    db.cancel(task, run_status)

    async def main() -> None:
        await make_executor(db).run(task)  # type: ignore[arg-type]

    asyncio.run(main())
    assert len(db.sent) == 1 and db.statements()[0] != queries.CANCELLED_TASKS
    assert [line[:2] for line in discarded_lines(caplog)] == [(message, logging.INFO)]
    assert task.cancellation.event.is_set()
    assert worker_problems(caplog) == []


def test_the_check_sends_nothing_while_no_task_runs():
    db = RunControlDb()
    check = CancellationCheck(pool=db, running={})  # type: ignore[arg-type]
    assert asyncio.run(check.check()) == 0
    assert db.sent == [] and check.checks == 0


@pytest.mark.parametrize(
    ("failure", "level"),
    [
        # A statement that failed: a warning. No connection: DEBUG (the pool logs the
        # outage once, pgflow.worker.outage).
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), "WARNING"),
        (psycopg.OperationalError("server closed the connection"), "DEBUG"),
    ],
)
def test_a_failed_check_is_logged_and_tried_again(caplog, failure, level):
    caplog.set_level(logging.DEBUG, logger="pgflow.worker")
    flow = Flow("retry_check")
    task = claimed(flow, "x", {}, flow_input={})
    db = RunControlDb()
    db.cancel(task)
    db.check_failures.append(failure)
    running = {object(): task}
    check = CancellationCheck(pool=db, running=running)  # type: ignore[arg-type]

    async def main() -> tuple[int, int]:
        return await check.check(), await check.check()

    assert asyncio.run(main()) == (0, 1)
    (record,) = [
        r
        for r in caplog.records
        if r.getMessage() == "cancellation check failed; tried again at the next heartbeat"
    ]
    assert record.levelname == level
    assert task.cancellation.event.is_set()


def test_the_check_keys_are_those_of_the_running_tasks():
    flow = Flow("keys")
    tasks = [
        ClaimedTask(
            flow=flow,
            worker_id=str(uuid.uuid4()),
            record={"run_id": uuid.uuid4(), "step_slug": f"s{i}", "task_index": i, "msg_id": i},
            message={},
            attempt=1,
        )
        for i in range(3)
    ]
    db = RunControlDb()
    db.cancel(tasks[1])
    check = CancellationCheck(pool=db, running={object(): t for t in tasks})  # type: ignore[arg-type]
    assert asyncio.run(check.check()) == 1
    ((query, params),) = db.sent
    assert query == queries.CANCELLED_TASKS
    assert params == {
        "run_ids": [t.run_id for t in tasks],
        "step_slugs": ["s0", "s1", "s2"],
        "task_indexes": [0, 1, 2],
    }
    assert [t.cancellation.event.is_set() for t in tasks] == [False, True, False]


def test_the_heartbeat_runs_the_check_after_each_round_and_survives_its_errors(caplog):
    checks: list[int] = []

    async def on_beat() -> None:
        checks.append(len(checks))
        if len(checks) == 1:
            raise RuntimeError("bug in the check")

    heartbeat = Heartbeat(
        pool=ScriptedPool(lambda query, params: (False,)),  # type: ignore[arg-type]
        workers={"f": uuid.uuid4()},
        function_name="fn",
        interval_seconds=0.01,
        on_deprecated=lambda slug: None,
        on_beat=on_beat,
    )

    async def main() -> None:
        task = asyncio.create_task(heartbeat.run())
        await until(lambda: len(checks) >= 3, "three checks")
        task.cancel()

    asyncio.run(main())
    assert heartbeat.beats >= 3
    assert any(
        r.getMessage() == "check after the heartbeat failed unexpectedly" for r in caplog.records
    )
