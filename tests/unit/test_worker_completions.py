"""Group commit of completions (pgflow.worker.completions) against a fake pool."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import psycopg
import pytest

from pgflow.worker.completions import CompletionBatcher, GroupReportRefused
from pgflow.worker.poller import Slots


class FakePool:
    """Records each complete_tasks call; a call blocks until ``gate`` is set."""

    def __init__(self, fail_with: BaseException | None = None) -> None:
        self.calls: list[list[int]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_with = fail_with

    @contextlib.asynccontextmanager
    async def connection(self) -> Any:
        yield self

    async def execute(self, query: str, params: dict[str, Any]) -> Any:
        self.calls.append(list(params["task_indexes"]))
        await self.gate.wait()
        if self.fail_with is not None:
            raise self.fail_with
        rows = [
            (run, step, index, "completed")
            for run, step, index in zip(
                params["run_ids"], params["step_slugs"], params["task_indexes"], strict=True
            )
        ]

        class Cursor:
            async def fetchall(self) -> list[tuple[Any, ...]]:
                return rows

        return Cursor()


def batcher(pool: FakePool, max_batch: int = 100) -> CompletionBatcher:
    return CompletionBatcher(pool, max_batch=max_batch, reconnect_max_seconds=1)  # type: ignore[arg-type]


RUN = "00000000-0000-0000-0000-000000000001"


def test_completions_arriving_during_a_call_go_together_in_the_next():
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool)
        first = asyncio.ensure_future(b.complete(RUN, "s", 0, "1"))
        await asyncio.sleep(0)  # the first call is now on its way, blocked
        rest = [asyncio.ensure_future(b.complete(RUN, "s", i, "1")) for i in range(1, 6)]
        await asyncio.sleep(0)
        pool.gate.set()
        assert await asyncio.wait_for(asyncio.gather(first, *rest), 2) == ["completed"] * 6
        assert pool.calls == [[0], [1, 2, 3, 4, 5]]
        assert (b.calls, b.tasks) == (2, 6)

    asyncio.run(scenario())


def test_max_batch_splits_calls():
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool, max_batch=2)
        waiters = [asyncio.ensure_future(b.complete(RUN, "s", i, "1")) for i in range(5)]
        await asyncio.sleep(0)
        pool.gate.set()
        await asyncio.wait_for(asyncio.gather(*waiters), 2)
        assert pool.calls == [[0, 1], [2, 3], [4]]

    asyncio.run(scenario())


def test_an_item_queued_as_the_sender_finishes_is_still_sent():
    async def scenario() -> None:
        pool = FakePool()
        b = batcher(pool)
        for i in range(50):  # each one right after the previous call returned
            status = await asyncio.wait_for(b.complete(RUN, "s", i, "1"), 2)
            assert status == "completed"
        assert len(pool.calls) == 50

    asyncio.run(scenario())


def test_a_refused_call_hands_each_task_back_for_a_lone_report():
    async def scenario() -> None:
        pool = FakePool(fail_with=psycopg.errors.DataException("bad jsonb"))
        b = batcher(pool)
        waiters = [asyncio.ensure_future(b.complete(RUN, "s", i, "1")) for i in range(3)]
        results = await asyncio.wait_for(asyncio.gather(*waiters, return_exceptions=True), 2)
        assert all(isinstance(r, GroupReportRefused) for r in results)
        assert "bad jsonb" in str(results[0])

    asyncio.run(scenario())


def test_a_task_missing_from_the_result_gets_none():
    async def scenario() -> None:
        pool = FakePool()

        async def execute(query: str, params: dict[str, Any]) -> Any:
            class Cursor:
                async def fetchall(self) -> list[tuple[Any, ...]]:
                    return []  # complete_tasks leaves unknown tasks out

            return Cursor()

        pool.execute = execute  # type: ignore[method-assign]
        assert await batcher(pool).complete(RUN, "s", 0, "1") is None

    asyncio.run(scenario())


def test_batcher_rejects_non_positive_sizes():
    with pytest.raises(ValueError):
        CompletionBatcher(FakePool(), max_batch=0, reconnect_max_seconds=1)  # type: ignore[arg-type]


def test_slots_free_a_slot_when_the_handler_returns_and_bound_pending_reports():
    slots = Slots(2)
    assert slots.reserve(2) == 2
    slots.handler_done()
    slots.handler_done()
    assert (slots.free, slots.reporting) == (2, 2)  # up to capacity reports wait for free
    assert slots.reserve(2) == 2
    slots.handler_done()
    assert (slots.free, slots.reporting) == (0, 3)  # a third pending report holds a slot
    slots.report_done()
    assert slots.free == 1
    slots.release(1)  # a task that ended before its report (cancelled)
    assert slots.free == 2
