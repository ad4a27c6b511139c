"""Worker fault handling without a database: loop blockers, the loop watchdog, a heartbeat
and pollers that must never die. (The periodic requeue_stalled_tasks call and its
permanently-stalled alert: tests/unit/test_worker_requeue_stalled_tasks.py; end to end:
tests/e2e/.)
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from contextlib import asynccontextmanager
from typing import Any

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.config import WorkerConfig
from pgflow.worker.heartbeat import Heartbeat
from pgflow.worker.poller import FlowPoller, Slots
from pgflow.worker.watchdog import LoopWatchdog
from tests.unit.executor_fakes import FakePool, claimed, make_executor, only_report


def run_with_timeout(flow: Flow, step_slug: str, timeout: int) -> FakePool:
    flow.effective_timeout = lambda slug: timeout  # type: ignore[method-assign]
    pool = FakePool()

    async def main() -> None:
        executor = make_executor(pool)
        await executor.run(claimed(flow, step_slug, {"x": 1}))
        assert executor.running == {}

    asyncio.run(main())
    return pool


def test_async_handler_blocking_the_loop_past_its_timeout_fails_with_timeout():
    flow = Flow("blockers")

    @flow.step(depends_on=[])
    async def blocker(input):
        time.sleep(1.3)  # the loop cannot run the timeout meanwhile
        return "late"

    pool = run_with_timeout(flow, "blocker", 1)
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == (
        "TimeoutError: handler exceeded the step timeout of 1 s "
        "(it blocked the event loop, so it could not be interrupted)"
    )


def test_async_handler_blocking_within_its_timeout_completes():
    flow = Flow("blockers_ok")

    @flow.step()
    async def short_blocker(input):
        time.sleep(0.2)
        return "fine"

    pool = run_with_timeout(flow, "short_blocker", 5)
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.COMPLETE_TASKS
    assert report["payloads"] == '"fine"'


def test_watchdog_names_the_task_blocking_the_loop_and_sees_it_recover(caplog):
    caplog.set_level(logging.WARNING, logger="pgflow.worker")

    async def main() -> LoopWatchdog:
        loop = asyncio.get_running_loop()
        names: dict[Any, dict[str, Any]] = {}
        watchdog = LoopWatchdog(loop, 0.2, lambda task: names.get(task, {}))

        async def blocking_handler() -> None:
            time.sleep(0.8)

        watchdog.start()
        task = asyncio.create_task(blocking_handler())
        names[task] = {"step_slug": "blocker", "task_index": 3}
        await task
        await asyncio.sleep(0.5)  # the loop ticks again; the watchdog notices
        watchdog.stop()
        return watchdog

    watchdog = asyncio.run(main())
    assert watchdog.episodes == 1
    blocked = [r for r in caplog.records if r.getMessage().startswith("event loop blocked")]
    assert [r.fields["step_slug"] for r in blocked] == ["blocker"]  # type: ignore[attr-defined]
    (recovered,) = [
        r
        for r in caplog.records
        if r.getMessage() == "event loop running again after being blocked"
    ]
    assert recovered.fields["blocked_for_s"] >= 0.5  # type: ignore[attr-defined]
    assert recovered.fields["task_index"] == 3  # type: ignore[attr-defined]


def test_watchdog_is_quiet_on_a_free_loop(caplog):
    caplog.set_level(logging.WARNING, logger="pgflow.worker")

    async def main() -> None:
        watchdog = LoopWatchdog(asyncio.get_running_loop(), 0.2, lambda task: {})
        watchdog.start()
        for _ in range(10):
            await asyncio.sleep(0.05)
        watchdog.stop()

    asyncio.run(main())
    assert caplog.records == []


class ScriptedPool:
    """A pool whose statements answer from a script: (query, params) -> row or exception."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[tuple[str, dict[str, Any]]] = []

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        pool = self

        class Conn:
            async def execute(self, query: str, params: dict[str, Any] | None = None):
                pool.sent.append((query, dict(params or {})))
                result = pool.answer(query, params or {})
                if isinstance(result, BaseException):
                    raise result

                class Cur:
                    async def fetchone(self):
                        return result

                return Cur()

        yield Conn()


def test_heartbeat_survives_an_unexpected_error(caplog):
    calls = {"n": 0}

    def answer(query, params):
        calls["n"] += 1
        return RuntimeError("bug") if calls["n"] == 1 else (False,)

    pool = ScriptedPool(answer)
    heartbeat = Heartbeat(
        pool=pool,  # type: ignore[arg-type]
        workers={"f": uuid.uuid4()},
        function_name="fn",
        interval_seconds=0.01,
        on_deprecated=lambda slug: None,
    )

    async def main() -> None:
        task = asyncio.create_task(heartbeat.run())
        while heartbeat.beats < 2:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 5))
    assert any(r.getMessage() == "heartbeat failed unexpectedly" for r in caplog.records)


def test_poller_survives_an_unexpected_error(caplog):
    flow = Flow("poll_bug")

    @flow.step()
    def only(input):
        return 1

    async def main() -> int:
        stop = asyncio.Event()
        poller = FlowPoller(
            flow=flow,
            worker_id=uuid.uuid4(),
            pool=None,  # type: ignore[arg-type]
            slots=Slots(4),
            config=WorkerConfig(dsn="", reconnect_max_seconds=0.01, poll_interval_seconds=0.01),
            spawn=lambda task: None,
            stop=stop,
        )
        polls = 0

        async def poll_once(qty: int):
            nonlocal polls
            polls += 1
            if polls == 1:
                raise KeyError("unexpected")
            stop.set()
            return [], 0

        poller.poll_once = poll_once  # type: ignore[method-assign]
        await asyncio.wait_for(poller.run(), 5)
        return polls

    assert asyncio.run(main()) == 2
    assert any(r.getMessage() == "polling failed; retrying" for r in caplog.records)


def test_prepared_statements_are_off_by_default():
    assert WorkerConfig(dsn="").prepared_statements is False
