"""Cancelled tasks in the worker, without a database: ``ctx.cancelled``, an async handler
cancelled, a sync handler told and run to its end, a task asked about once, and results
discarded with one INFO line, against a fake database that answers as the SQL does
(run_control_fakes.py). The check itself: test_worker_cancellation_check.py.

End to end with a cancelled run: tests/e2e/test_cancelled_run.py.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from pgflow.context import Context
from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.cancellation import CancellationCheck, reason_of_run_status
from tests.unit.executor_fakes import claimed, make_executor, only_report
from tests.unit.run_control_fakes import RunControlDb, until


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
