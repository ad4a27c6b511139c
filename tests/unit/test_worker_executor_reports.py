"""Executor without a database: its reports: retried while the database is unreachable, an
output the server rejects or refuses for its size failing the task, a report SQL does not
apply logged and not retried, and failure messages escaped and bounded; against a fake
connection pool (executor_fakes.py).
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest

from pgflow.dsl import Flow
from pgflow.worker import queries
from tests.unit.executor_fakes import (
    FakePool,
    claimed,
    make_executor,
    make_flow,
    only_report,
    run_task,
)


def test_report_is_retried_while_the_database_is_unreachable():
    flow = make_flow()
    pool = FakePool(failures=[psycopg.OperationalError("down"), psycopg.OperationalError("down")])
    run_task(claimed(flow, "child", {"root": 1}), pool)
    assert len(pool.sent) == 1
    assert only_report(pool)[0] == queries.COMPLETE_TASKS


def test_output_the_server_rejects_fails_the_task():
    flow = make_flow()
    pool = FakePool(failures=[psycopg.errors.UntranslatableCharacter("\\u0000")])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    assert len(pool.sent) == 1
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith("UntranslatableCharacter: ")


def test_output_refused_for_its_size_fails_the_task_with_the_sql_detail():
    flow = make_flow()
    detail = "Output of task child[0] of run x is 2012 bytes, over the limit of 1024 bytes"
    pool = FakePool(answers=[("started", "refused", "payload_too_large", detail)])
    run_task(claimed(flow, "child", {"root": "a"}), pool)
    assert [query for query, _ in pool.sent] == [queries.COMPLETE_TASKS, queries.FAIL_TASKS]
    assert only_report(pool, 1)[1]["payloads"] == f"ProgramLimitExceeded: {detail}"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (("started", "ignored", "stale_attempt", None), "report ignored: a newer attempt"),
        (("completed", "ignored", "task_not_started", None), "report ignored: the task no longer"),
        (("failed", "failed", "type_violation", "[TYPE_VIOLATION] ..."), "task failed: its output"),
    ],
)
def test_a_report_sql_does_not_apply_is_logged_not_retried(answer, message, caplog):
    caplog.set_level(logging.INFO, logger="pgflow.worker")
    flow = make_flow()
    pool = FakePool(answers=[answer])
    reported: list[bool] = []

    async def main() -> None:
        executor = make_executor(pool, on_reported=lambda t, ok: reported.append(ok))
        await executor.run(claimed(flow, "child", {"root": "a"}))

    asyncio.run(main())
    assert [query for query, _ in pool.sent] == [queries.COMPLETE_TASKS]  # nothing more sent
    assert reported == [False]
    (record,) = [r for r in caplog.records if r.getMessage().startswith(message)]
    assert record.fields["reason"] == answer[2]  # type: ignore[attr-defined]


def test_a_failure_message_with_a_nul_byte_is_reported_with_it_escaped():
    # PostgreSQL text cannot hold NUL: unescaped, the report would be refused every time.
    flow = Flow("nul_errors")

    @flow.step()
    def boom(input):
        raise ValueError("bad byte \x00 here")

    pool = run_task(claimed(flow, "boom", {}))
    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"] == "ValueError: bad byte \\x00 here"
    assert "\x00" not in report["payloads"]


def test_a_huge_failure_message_is_logged_bounded(caplog):
    caplog.set_level(logging.WARNING, logger="pgflow.worker")
    flow = Flow("huge_errors")

    @flow.step()
    def boom(input):
        raise ValueError("head " + "x" * 100_000 + " tail")

    run_task(claimed(flow, "boom", {}))
    (record,) = [r for r in caplog.records if r.getMessage() == "task failed"]
    logged = record.fields  # type: ignore[attr-defined]
    assert len(logged["error"]) < 17_000
    assert logged["error"].startswith("ValueError: head") and logged["error"].endswith(" tail")
    assert record.exc_info is None and len(logged["traceback"]) < 17_000
    assert "boom" in logged["traceback"]  # the handler's frame is kept
