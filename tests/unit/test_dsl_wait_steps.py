"""Wait steps in pgflow.dsl: defining them (flow.wait, flow.sleep, wait_for= on a handler
step), the Wait each step records, and the worker's answer to a task of a step without a
handler (no database). Their rules: test_dsl_wait_rules.py; shape and SQL:
test_dsl_wait_shape_and_sql.py.
"""

from __future__ import annotations

import dataclasses

import pytest

import pgflow
from pgflow.dsl import FlowDefinitionError, Job, Step, Wait
from pgflow.worker import queries
from tests.unit.dsl_helpers import approval_flow, handler
from tests.unit.executor_fakes import claimed, only_report, run_task


@pytest.fixture
def flow():
    """Flow "approval" with a root step `submit`."""
    return approval_flow()


# ---------------------------------------------------------------- definitions


def test_wait_adds_a_step_without_handler_waiting_for_a_signal_named_like_it(flow):
    step = flow.wait("approved", depends_on=["submit"])

    assert step is flow.get_step("approved")
    assert (step.slug, step.handler, step.has_handler, step.dependencies) == (
        "approved",
        None,
        False,
        ("submit",),
    )
    assert step.step_type == "single"
    assert step.wait == Wait(
        kind="signal",
        signal_name="approved",
        signal_match=None,
        timeout=None,
        on_timeout="fail",
        runs_handler=False,
    )


def test_wait_takes_its_signal_name_timeout_mode_match_and_condition(flow):
    step = flow.wait(
        "manager_ok",
        "approval.granted",
        depends_on=["submit"],
        timeout=600,
        on_timeout="continue",
        match={"level": 2},
        if_={"submit": {"amount": 1000}},
        when_unmet="skip-cascade",
        when_exhausted="skip",
    )

    assert step.wait == Wait(
        kind="signal",
        signal_name="approval.granted",
        signal_match={"level": 2},
        timeout=600,
        on_timeout="continue",
        runs_handler=False,
    )
    assert (step.if_, step.when_unmet, step.when_exhausted) == (
        {"submit": {"amount": 1000}},
        "skip-cascade",
        "skip",
    )
    # A wait step has no task, so it has no task options.
    assert (step.max_attempts, step.base_delay, step.timeout, step.start_delay) == (None,) * 4


def test_later_steps_depend_on_a_wait_step_by_its_slug(flow):
    approved = flow.wait("approved", depends_on=["submit"])

    flow.step(slug="pay", depends_on=[approved.slug])(handler)

    assert flow.get_step("pay").dependencies == ("approved",)


@pytest.mark.parametrize("on_timeout", ["fail", "skip", "skip-cascade", "continue"])
def test_every_on_timeout_mode_is_accepted(flow, on_timeout):
    assert flow.wait("w", timeout=5, on_timeout=on_timeout).wait.on_timeout == on_timeout


def test_sleep_adds_a_timer_of_seconds_or_until_a_path(flow):
    cool_off = flow.sleep("cool_off", seconds=3600, depends_on=["submit"])
    now = flow.sleep("now", seconds=0)
    remind = flow.sleep("remind", until="input.remind_at")
    ship_by = flow.sleep("ship_by", until="submit.dates.ship_by", depends_on=["submit"])
    whole = flow.sleep("whole", until="submit", depends_on=["submit"])

    assert cool_off.wait == Wait(kind="timer", seconds=3600)
    assert now.wait == Wait(kind="timer", seconds=0)
    assert remind.wait == Wait(kind="timer", until="input.remind_at")
    assert ship_by.wait == Wait(kind="timer", until="submit.dates.ship_by")
    assert whole.wait == Wait(kind="timer", until="submit")
    assert all(step.handler is None and not step.wait.runs_handler for step in flow.steps[1:])
    assert [s.slug for s in flow.steps] == [
        "submit",
        "cool_off",
        "now",
        "remind",
        "ship_by",
        "whole",
    ]


def test_wait_for_makes_a_handler_step_wait(flow):
    def review(input, ctx):
        return input

    returned = flow.step(
        depends_on=["submit"],
        wait_for="reviewed",
        wait_timeout=86400,
        on_timeout="skip",
        signal_match={"region": "eu"},
    )(review)

    step = flow.get_step("review")
    assert returned is review
    assert (step.handler, step.has_handler, step.accepts_context) == (review, True, True)
    assert step.wait == Wait(
        kind="signal",
        signal_name="reviewed",
        signal_match={"region": "eu"},
        timeout=86400,
        on_timeout="skip",
        runs_handler=True,
    )


def test_wait_for_alone_uses_the_defaults_and_array_steps_may_wait(flow):
    flow.array(slug="items", wait_for="go")(handler)

    step = flow.get_step("items")
    assert step.is_array
    assert step.wait == Wait(kind="signal", signal_name="go", runs_handler=True)


def test_steps_without_wait_options_do_not_wait(flow):
    flow.map(slug="each", array="submit")(handler)

    assert [step.wait for step in flow.steps] == [None, None]


def test_match_is_a_private_copy(flow):
    match = {"tags": ("a", "b")}
    step = flow.wait("w", match=match)
    match["tags"] = ("changed",)

    assert step.wait.signal_match == {"tags": ["a", "b"]}


def test_wait_is_frozen_and_exported():
    wait = Wait(kind="timer", seconds=1)

    with pytest.raises(dataclasses.FrozenInstanceError):
        wait.seconds = 2  # type: ignore[misc]
    assert pgflow.Wait is Wait
    assert "Wait" in pgflow.__all__
    assert "Wait" in pgflow.dsl.__all__
    assert Step(slug="s", handler=None).wait is None


def test_a_job_has_no_wait_or_sleep():
    @Job("one")
    def one(input):
        return input

    for call in (lambda: one.wait("w"), lambda: one.sleep("s", seconds=1)):
        with pytest.raises(FlowDefinitionError) as excinfo:
            call()
        assert excinfo.value.rule == "job_single_step"
    assert one.handler(5) == 5


# ---------------------------------------------------------------- the worker


def test_a_task_of_a_step_without_handler_fails_permanently_with_a_clear_error(flow):
    flow.wait("approved", depends_on=["submit"])

    pool = run_task(claimed(flow, "approved", {"submit": 1}))

    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith("PermanentError: step 'approved' has no handler")
    assert report["permanents"] is True
