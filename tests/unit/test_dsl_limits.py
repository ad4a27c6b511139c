"""pgflow.dsl: concurrency_limit, on_limit, run_timeout and max_in_flight (no database)."""

from __future__ import annotations

import pytest

from pgflow.dsl import Flow, FlowDefinitionError, Job


def handler(input, ctx):
    return input


def assert_rule(excinfo, rule, flow_slug, step_slug):
    """The error carries the rule and the names, and its message shows them."""
    error = excinfo.value
    assert (error.rule, error.flow_slug, error.step_slug) == (rule, flow_slug, step_slug)
    assert f"(rule {rule})" in str(error)
    assert f"flow {flow_slug!r}" in str(error)


def limited() -> Flow:
    flow = Flow("billing", concurrency_limit=1, on_limit="reject", run_timeout=3600)
    flow.step(slug="charge", max_in_flight=5)(handler)
    flow.array(slug="lines", depends_on=["charge"], max_in_flight=2)(handler)
    flow.map(slug="each", array="lines", max_in_flight=1)(handler)
    flow.step(slug="done", depends_on=["each"])(handler)
    return flow


# ---------------------------------------------------------------- flow options


def test_flow_limit_options_are_read_only_properties():
    flow = Flow("billing", concurrency_limit=3, on_limit="queue", run_timeout=60)

    assert (flow.concurrency_limit, flow.on_limit, flow.run_timeout) == (3, "queue", 60)
    with pytest.raises(AttributeError):
        flow.concurrency_limit = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        flow.on_limit = "reject"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        flow.run_timeout = 1  # type: ignore[misc]


def test_flow_limit_options_default_to_none():
    flow = Flow("plain")

    assert (flow.concurrency_limit, flow.on_limit, flow.run_timeout) == (None, None, None)


def test_flow_limit_options_at_their_minimum_are_accepted():
    flow = Flow("tight", concurrency_limit=1, on_limit="reject", run_timeout=1)

    assert (flow.concurrency_limit, flow.run_timeout) == (1, 1)


def test_every_property_has_a_docstring():
    for name in ("concurrency_limit", "on_limit", "run_timeout", "max_attempts", "cron"):
        assert getattr(Flow, name).__doc__


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"concurrency_limit": 0}, "option_range"),
        ({"concurrency_limit": -1}, "option_range"),
        ({"concurrency_limit": 2**31}, "option_range"),
        ({"concurrency_limit": True}, "option_type"),
        ({"concurrency_limit": 1.0}, "option_type"),
        ({"run_timeout": 0}, "option_range"),
        ({"run_timeout": 2**31}, "option_range"),
        ({"run_timeout": "3600"}, "option_type"),
    ],
)
def test_flow_limit_option_out_of_range_or_of_wrong_type_is_rejected(options, rule):
    with pytest.raises(FlowDefinitionError) as excinfo:
        Flow("demo", **options)

    assert_rule(excinfo, rule, "demo", None)
    assert next(iter(options)) in str(excinfo.value)


@pytest.mark.parametrize("on_limit", ["drop", "Queue", "", 1, True, ["queue"]])
def test_on_limit_other_than_queue_or_reject_is_rejected(on_limit):
    with pytest.raises(FlowDefinitionError) as excinfo:
        Flow("demo", concurrency_limit=2, on_limit=on_limit)

    assert_rule(excinfo, "on_limit", "demo", None)
    assert "'queue', 'reject'" in str(excinfo.value)


@pytest.mark.parametrize("on_limit", ["queue", "reject"])
def test_on_limit_needs_concurrency_limit(on_limit):
    with pytest.raises(FlowDefinitionError, match="on_limit needs concurrency_limit") as excinfo:
        Flow("demo", on_limit=on_limit)

    assert_rule(excinfo, "on_limit_without_concurrency_limit", "demo", None)


def test_job_takes_the_flow_limit_options():
    @Job("send_email", concurrency_limit=2, on_limit="reject", run_timeout=30)
    def send_email(input):
        return input

    assert (send_email.concurrency_limit, send_email.on_limit, send_email.run_timeout) == (
        2,
        "reject",
        30,
    )
    assert send_email.shape()["options"] == {
        "concurrencyLimit": 2,
        "onLimit": "reject",
        "runTimeout": 30,
    }


# ---------------------------------------------------------------- max_in_flight


def test_max_in_flight_is_stored_on_each_kind_of_step():
    flow = limited()

    assert [step.max_in_flight for step in flow.steps] == [5, 2, 1, None]


@pytest.mark.parametrize(
    ("value", "rule"),
    [(0, "option_range"), (-2, "option_range"), (2**31, "option_range"), (1.5, "option_type")],
)
@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_every_decorator_validates_max_in_flight(decorator, value, rule):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        getattr(flow, decorator)(slug="s", max_in_flight=value)(handler)

    assert_rule(excinfo, rule, "demo", "s")
    assert "max_in_flight" in str(excinfo.value)
    assert flow.steps == ()


def test_max_in_flight_on_a_step_that_waits_for_a_signal():
    flow = Flow("demo")
    flow.step(slug="approve", wait_for="approved", max_in_flight=3)(handler)

    assert flow.get_step("approve").max_in_flight == 3
    assert flow.shape()["steps"][0]["options"] == {"maxInFlight": 3}


def test_steps_without_handler_have_no_max_in_flight():
    flow = Flow("demo")
    flow.wait("approved")
    flow.sleep("later", seconds=5, depends_on=["approved"])

    assert [step.max_in_flight for step in flow.steps] == [None, None]
    assert all("options" not in step for step in flow.shape()["steps"])


# ---------------------------------------------------------------- shape()


def test_shape_holds_the_limit_options_that_were_set():
    shape = limited().shape()

    assert shape["options"] == {"concurrencyLimit": 1, "onLimit": "reject", "runTimeout": 3600}
    assert [step.get("options") for step in shape["steps"]] == [
        {"maxInFlight": 5},
        {"maxInFlight": 2},
        {"maxInFlight": 1},
        None,
    ]


def test_shape_mixes_limit_options_with_the_others():
    flow = Flow("mixed", timeout=30, concurrency_limit=4)
    flow.step(slug="s", start_delay=2, max_in_flight=7, timeout=9)(handler)

    shape = flow.shape()

    assert shape["options"] == {"timeout": 30, "concurrencyLimit": 4}
    assert shape["steps"][0]["options"] == {"timeout": 9, "startDelay": 2, "maxInFlight": 7}


def test_shape_of_a_flow_without_limit_options_is_unchanged():
    flow = Flow("plain", max_attempts=2)
    flow.step(slug="s")(handler)

    shape = flow.shape()

    assert shape["options"] == {"maxAttempts": 2}
    assert "options" not in shape["steps"][0]


def test_on_limit_queue_given_explicitly_is_in_the_shape():
    assert Flow("q", concurrency_limit=2, on_limit="queue").shape()["options"] == {
        "concurrencyLimit": 2,
        "onLimit": "queue",
    }


# ---------------------------------------------------------------- to_sql()


def test_to_sql_passes_the_limit_options_that_were_set():
    assert limited().to_sql() == (
        "SELECT pgflow.create_flow('billing', concurrency_limit => 1, run_timeout => 3600, "
        "on_limit => 'reject');\n"
        "SELECT pgflow.add_step('billing', 'charge', max_in_flight => 5);\n"
        "SELECT pgflow.add_step('billing', 'lines', ARRAY['charge'], max_in_flight => 2);\n"
        "SELECT pgflow.add_step('billing', 'each', ARRAY['lines'], max_in_flight => 1, "
        "step_type => 'map');\n"
        "SELECT pgflow.add_step('billing', 'done', ARRAY['each']);\n"
    )


def test_to_sql_leaves_out_unset_limit_options():
    flow = Flow("partial", base_delay=2, run_timeout=10)
    flow.step(slug="s", start_delay=1)(handler)

    assert flow.to_sql() == (
        "SELECT pgflow.create_flow('partial', base_delay => 2, run_timeout => 10);\n"
        "SELECT pgflow.add_step('partial', 's', start_delay => 1);\n"
    )
