"""Permanent failures in the worker, without a database: PermanentError (and its
subclasses) and outputs that are not JSON are reported permanent, every other error is
retried; completions never carry ``permanent``, a batcher sends it only when made for
pgflow-py's SQL, and upstream mode has no run control.

On a real database: tests/integration/test_worker_run_control.py.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

import pgflow
from pgflow.dsl import Flow
from pgflow.errors import PermanentError, PgflowError
from pgflow.worker import queries
from pgflow.worker.modes import PGFLOW_PY, UPSTREAM, UPSTREAM_NOTICE
from pgflow.worker.reports import ReportBatcher, TaskReport
from tests.unit.executor_fakes import RecordingPool, claimed, only_report, run_task


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
