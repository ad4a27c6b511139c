"""pgflow.dsl: Job (a single-step flow made by decorating one handler) and cron schedules
of flows and jobs (cron, cron_input). No database.
"""

from __future__ import annotations

import asyncio

import pytest

from pgflow.dsl import Flow, FlowDefinitionError, Job
from tests.unit.dsl_helpers import _no_params, assert_rule

# ---------------------------------------------------------------- Job


def test_job_decorator_makes_a_single_step_flow():
    @Job("send_email", max_attempts=5, base_delay=2, timeout=10)
    def send_email(input, ctx):
        return {"sent_to": input["to"]}

    assert isinstance(send_email, Job)
    assert isinstance(send_email, Flow)
    assert send_email.slug == "send_email"
    (step,) = send_email.steps
    assert (step.slug, step.step_type, step.dependencies, step.accepts_context) == (
        "send_email",
        "single",
        (),
        True,
    )
    assert send_email.shape()["options"] == {"maxAttempts": 5, "baseDelay": 2, "timeout": 10}
    assert "options" not in send_email.shape()["steps"][0]
    assert send_email.effective_timeout("send_email") == 10


def test_job_stays_callable_like_its_handler():
    @Job("greet")
    def greet(input):
        """Say hello."""
        return f"hello {input}"

    assert greet("bob") == "hello bob"
    assert greet.handler("ann") == "hello ann"
    assert greet.__doc__ == "Say hello."
    assert greet.__wrapped__ is greet.handler
    assert greet.steps[0].accepts_context is False


def test_job_step_slug_is_the_job_slug_not_the_function_name():
    def whatever_name(input, ctx):
        return None

    job = Job("nightly_report")(whatever_name)

    assert [step.slug for step in job.steps] == ["nightly_report"]
    assert job.to_sql() == (
        "SELECT pgflow.create_flow('nightly_report');\n"
        "SELECT pgflow.add_step('nightly_report', 'nightly_report');\n"
    )


def test_async_job():
    @Job("ping")
    async def ping(input, ctx):
        return "pong"

    assert ping.steps[0].is_async
    assert asyncio.run(ping({}, None)) == "pong"


@pytest.mark.parametrize("method", ["step", "array", "map"])
def test_job_cannot_get_more_steps(method):
    job = Job("solo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        getattr(job, method)(slug="other")

    assert_rule(excinfo, "job_single_step", "solo", None)


def test_job_rejects_bad_slug_and_options():
    with pytest.raises(FlowDefinitionError) as excinfo:
        Job("bad-slug")
    assert_rule(excinfo, "slug_format", "bad-slug", None)

    with pytest.raises(FlowDefinitionError) as excinfo:
        Job("ok", timeout=1)
    assert_rule(excinfo, "option_range", "ok", None)


def test_job_must_decorate_one_callable():
    with pytest.raises(FlowDefinitionError) as excinfo:
        Job("solo")()
    assert_rule(excinfo, "handler_callable", "solo", "solo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        Job("solo")(42)
    assert_rule(excinfo, "handler_callable", "solo", "solo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        Job("solo")(_no_params)
    assert_rule(excinfo, "handler_signature", "solo", "solo")


def test_job_without_handler_has_no_handler():
    job = Job("solo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        job.handler  # noqa: B018

    assert_rule(excinfo, "job_single_step", "solo", None)


# ---------------------------------------------------------------- cron schedules


@pytest.mark.parametrize("cron", ["0 * * * *", "*/5 1-3 * * MON", "15 seconds", "1 second"])
def test_flow_accepts_cron_schedules(cron):
    flow = Flow("scheduled", cron=cron, cron_input={"from": "cron"})

    assert flow.cron == " ".join(cron.split())
    assert flow.cron_input == {"from": "cron"}


def test_cron_input_defaults_to_an_empty_object_and_is_copied():
    given = {"nested": [1, 2]}
    flow = Flow("scheduled", cron="0 * * * *", cron_input=given)
    given["nested"].append(3)

    assert Flow("other", cron="0 * * * *").cron_input == {}
    assert flow.cron_input == {"nested": [1, 2]}


@pytest.mark.parametrize(
    "cron", ["0 * * *", "0 * * * * *", "", "90 seconds", "0 seconds", "0 * * * *; drop", 5]
)
def test_flow_rejects_malformed_cron(cron):
    with pytest.raises(FlowDefinitionError) as info:
        Flow("scheduled", cron=cron)

    assert info.value.rule == "cron"
    assert "scheduled" in str(info.value)


def test_flow_rejects_cron_input_that_is_not_json():
    with pytest.raises(FlowDefinitionError) as info:
        Flow("scheduled", cron="0 * * * *", cron_input={"when": object()})

    assert info.value.rule == "cron_input"


def test_job_takes_a_cron_schedule():
    @Job("nightly_job", cron="0 3 * * *", cron_input={"full": True})
    def nightly_job(input, ctx):
        return input

    assert nightly_job.cron == "0 3 * * *"
    assert nightly_job.cron_input == {"full": True}
