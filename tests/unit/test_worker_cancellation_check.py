"""The worker's cancellation check, without a database: it asks ``pgflow.cancelled_tasks``
about the running tasks only (nothing when none runs), is logged and tried again when it
fails, and runs after each heartbeat round, surviving its own errors; against a fake
database that answers as the SQL does (run_control_fakes.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid

import psycopg
import pytest

from pgflow.dsl import Flow
from pgflow.worker import queries
from pgflow.worker.cancellation import CancellationCheck
from pgflow.worker.claimed_task import ClaimedTask
from pgflow.worker.heartbeat import Heartbeat
from tests.unit.executor_fakes import claimed
from tests.unit.run_control_fakes import RunControlDb, until
from tests.unit.test_worker_faults import ScriptedPool


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
