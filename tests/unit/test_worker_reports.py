"""Group commit of reports (pgflow.worker.reports) against a fake pool."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

import psycopg
import pytest

from pgflow.worker import queries
from pgflow.worker.poller import Slots
from pgflow.worker.reports import ReportBatcher, ReportResult, TaskReport
from tests.unit.executor_fakes import as_batch_call


class FakePool:
    """Records each complete_tasks call; a call blocks until ``gate`` is set."""

    def __init__(
        self, fail_with: BaseException | None = None, refuse_index: int | None = None
    ) -> None:
        self.calls: list[list[int]] = []
        #: The statement of each call, as sent (``calls``: its task indexes, either form).
        self.statements: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_with = fail_with
        #: A call holding this task index is refused as a whole (as the server refuses a
        #: jsonb it cannot store).
        self.refuse_index = refuse_index

    @contextlib.asynccontextmanager
    async def connection(self) -> Any:
        yield self

    async def execute(self, query: str, params: dict[str, Any]) -> Any:
        self.statements.append(query)
        query, params = as_batch_call(query, params)
        self.calls.append(list(params["task_indexes"]))
        await self.gate.wait()
        if self.fail_with is not None:
            raise self.fail_with
        if self.refuse_index in params["task_indexes"]:
            raise psycopg.errors.UntranslatableCharacter("unsupported Unicode escape sequence")
        rows = [("completed", "completed", None, None) for _ in params["task_indexes"]]

        class Cursor:
            async def fetchall(self) -> list[tuple[Any, ...]]:
                return rows

        return Cursor()


def batcher(pool: FakePool, max_batch: int = 100) -> ReportBatcher:
    return ReportBatcher(
        pool,  # type: ignore[arg-type]
        statement=queries.COMPLETE_TASKS,
        one_report_statement=queries.COMPLETE_TASKS_ONE_REPORT,
        name="complete_tasks",
        max_batch=max_batch,
        reconnect_max_seconds=1,
    )


RUN = "00000000-0000-0000-0000-000000000001"
COMPLETED = ReportResult("completed", "completed", None, None)


def report(index: int) -> TaskReport:
    return TaskReport(RUN, "s", index, 1, "1")


def test_completions_arriving_during_a_call_go_together_in_the_next():
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool)
        first = asyncio.ensure_future(b.report(report(0)))
        await asyncio.sleep(0)  # the first call is now on its way, blocked
        rest = [asyncio.ensure_future(b.report(report(i))) for i in range(1, 6)]
        await asyncio.sleep(0)
        pool.gate.set()
        assert await asyncio.wait_for(asyncio.gather(first, *rest), 2) == [COMPLETED] * 6
        assert pool.calls == [[0], [1, 2, 3, 4, 5]]
        assert (b.calls, b.reports) == (2, 6)

    asyncio.run(scenario())


def test_a_lone_report_goes_with_scalar_parameters_a_group_with_arrays():
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool)
        first = asyncio.ensure_future(b.report(report(0)))
        await asyncio.sleep(0)
        rest = [asyncio.ensure_future(b.report(report(i))) for i in range(1, 3)]
        pool.gate.set()
        await asyncio.wait_for(asyncio.gather(first, *rest), 2)
        assert pool.statements == [queries.COMPLETE_TASKS_ONE_REPORT, queries.COMPLETE_TASKS]
        assert pool.calls == [[0], [1, 2]]

    asyncio.run(scenario())


def test_the_one_report_statement_is_the_batch_statement_for_arrays_of_one():
    # Same function, same named arguments, same columns: only the parameters are scalars.
    pairs = [
        (queries.COMPLETE_TASKS, queries.COMPLETE_TASKS_ONE_REPORT),
        (queries.FAIL_TASKS, queries.FAIL_TASKS_ONE_REPORT),
    ]
    for batch, one in pairs:
        as_arrays = one
        names = ("run_id", "step_slug", "task_index", "payload", "attempt", "permanent")
        for name in (*names, "traceback"):
            as_arrays = as_arrays.replace(f"array[%({name})s::", f"%({name}s)s::")
        as_arrays = as_arrays.replace("%(task_indexs)s", "%(task_indexes)s")
        as_arrays = re.sub(r"(%\([a-z_]+\)s::[a-z]+)\]", r"\1[]", as_arrays)
        assert as_arrays == batch


def test_max_batch_splits_calls():
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool, max_batch=2)
        waiters = [asyncio.ensure_future(b.report(report(i))) for i in range(5)]
        await asyncio.sleep(0)
        pool.gate.set()
        await asyncio.wait_for(asyncio.gather(*waiters), 2)
        assert pool.calls == [[0, 1], [2, 3], [4]]

    asyncio.run(scenario())


def test_max_batch_one_sends_each_report_in_its_own_call_at_once():
    # --complete-batch-size 1: no report waits for another's call; each one asks the pool
    # for a connection itself, so a read asking after them waits its turn behind them.
    async def scenario() -> None:
        pool = FakePool()
        pool.gate.clear()
        b = batcher(pool, max_batch=1)
        waiters = [asyncio.ensure_future(b.report(report(i))) for i in range(4)]
        await asyncio.sleep(0)
        assert pool.calls == [[0], [1], [2], [3]]  # all four on their way, none finished
        pool.gate.set()
        assert await asyncio.wait_for(asyncio.gather(*waiters), 2) == [COMPLETED] * 4
        assert (b.calls, b.reports) == (4, 4)

    asyncio.run(scenario())


def test_an_item_queued_as_the_sender_finishes_is_still_sent():
    async def scenario() -> None:
        pool = FakePool()
        b = batcher(pool)
        for i in range(50):  # each one right after the previous call returned
            result = await asyncio.wait_for(b.report(report(i)), 2)
            assert result == COMPLETED
        assert len(pool.calls) == 50

    asyncio.run(scenario())


def test_a_refused_call_is_sent_again_one_report_per_call():
    async def scenario() -> None:
        pool = FakePool(refuse_index=1)
        pool.gate.clear()
        b = batcher(pool)
        first = asyncio.ensure_future(b.report(report(9)))
        await asyncio.sleep(0)
        waiters = [asyncio.ensure_future(b.report(report(i))) for i in range(3)]
        await asyncio.sleep(0)
        pool.gate.set()
        results = await asyncio.wait_for(asyncio.gather(first, *waiters, return_exceptions=True), 2)
        assert results[0] == COMPLETED
        assert results[1] == COMPLETED and results[3] == COMPLETED
        assert isinstance(results[2], psycopg.errors.UntranslatableCharacter)  # only its own
        assert pool.calls == [[9], [0, 1, 2], [0], [1], [2]]

    asyncio.run(scenario())


def test_a_lost_database_is_not_a_refusal_the_report_waits_for_it():
    async def scenario() -> None:
        pool = FakePool()
        real = pool.execute
        failures = [psycopg.OperationalError("down")]

        async def execute(query: str, params: dict[str, Any]) -> Any:
            if failures:
                raise failures.pop()
            return await real(query, params)

        pool.execute = execute  # type: ignore[method-assign]
        assert await asyncio.wait_for(batcher(pool).report(report(0)), 5) == COMPLETED

    asyncio.run(scenario())


def test_a_result_without_one_row_per_report_is_an_error_not_a_guess():
    async def scenario() -> None:
        pool = FakePool()

        async def execute(query: str, params: dict[str, Any]) -> Any:
            class Cursor:
                async def fetchall(self) -> list[tuple[Any, ...]]:
                    return []

            return Cursor()

        pool.execute = execute  # type: ignore[method-assign]
        with pytest.raises(RuntimeError, match="returned 0 rows for 1 reports"):
            await batcher(pool).report(report(0))

    asyncio.run(scenario())


def test_batcher_rejects_non_positive_sizes():
    with pytest.raises(ValueError):
        ReportBatcher(
            FakePool(),  # type: ignore[arg-type]
            statement=queries.COMPLETE_TASKS,
            one_report_statement=queries.COMPLETE_TASKS_ONE_REPORT,
            name="complete_tasks",
            max_batch=0,
            reconnect_max_seconds=1,
        )


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
