"""A fake database for the worker's run-control tests (test_worker_cancelled_tasks.py,
test_worker_cancellation_check.py): it knows which tasks are cancelled and answers
``pgflow.cancelled_tasks`` and the reports as the SQL does; and ``until``, to wait on the
event loop for a condition.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any

import pytest

from pgflow.worker import queries
from pgflow.worker.cancellation import reason_of_run_status
from pgflow.worker.claimed_task import ClaimedTask
from tests.unit.executor_fakes import COMPLETED, RETRIED, FakeCursor, as_batch_call

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
