"""Wait steps in pgflow.dsl: the rules of flow.wait, flow.sleep and wait_for= (signal
names, timeouts, on_timeout, match patterns, sleep times and until paths, slugs,
dependencies and conditions). No database.
"""

from __future__ import annotations

import pytest

from pgflow.dsl import FlowDefinitionError
from tests.unit.dsl_helpers import approval_flow, handler


def assert_rule(excinfo, rule, flow_slug, step_slug):
    """The error carries the rule and the names, and its message shows them."""
    error = excinfo.value
    assert (error.rule, error.flow_slug, error.step_slug) == (rule, flow_slug, step_slug)
    assert f"(rule {rule})" in str(error)
    assert f"step {step_slug!r}" in str(error)


@pytest.fixture
def flow():
    """Flow "approval" with a root step `submit`."""
    return approval_flow()


BAD_SIGNAL_NAMES = [
    (123, "signal_name"),
    ("", "signal_name"),
    ("   ", "signal_name"),
    ("x" * 129, "signal_name"),
    ("ap\nproved", "signal_name"),
    ("ap\x00proved", "signal_name"),
    (" approved", "signal_name"),
    ("approved\t", "signal_name"),
    # beyond ASCII, as pgflow._check_signal_name refuses them in any collation
    ("go\u00a0", "signal_name"),
    ("\u2003", "signal_name"),
    ("a\u0085b", "signal_name"),
    ("\u3000go", "signal_name"),
]


@pytest.mark.parametrize(("name", "rule"), BAD_SIGNAL_NAMES)
def test_bad_signal_name_of_wait_is_rejected(flow, name, rule):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.wait("w", name)

    assert_rule(excinfo, rule, "approval", "w")
    assert [step.slug for step in flow.steps] == ["submit"]


@pytest.mark.parametrize(("name", "rule"), BAD_SIGNAL_NAMES)
def test_bad_wait_for_is_rejected(flow, name, rule):
    with pytest.raises(FlowDefinitionError, match="wait_for") as excinfo:
        flow.step(slug="s", wait_for=name)(handler)

    assert_rule(excinfo, rule, "approval", "s")
    assert [step.slug for step in flow.steps] == ["submit"]


def test_longest_signal_name_and_dots_are_accepted(flow):
    assert flow.wait("w", "x" * 128).wait.signal_name == "x" * 128
    assert flow.wait("v", "payment.received").wait.signal_name == "payment.received"


def test_a_wait_step_slug_follows_the_slug_rules(flow):
    for slug, rule in [("has-dash", "slug_format"), (None, "slug_type"), ("run", "slug_format")]:
        with pytest.raises(FlowDefinitionError) as excinfo:
            flow.wait(slug, "ok")  # type: ignore[arg-type]
        assert excinfo.value.rule == rule
        with pytest.raises(FlowDefinitionError) as excinfo:
            flow.sleep(slug, seconds=1)  # type: ignore[arg-type]
        assert excinfo.value.rule == rule


@pytest.mark.parametrize(
    ("timeout", "rule"),
    [
        (0, "option_range"),
        (-1, "option_range"),
        (2**31, "option_range"),
        (1.5, "option_type"),
        ("60", "option_type"),
        (True, "option_type"),
    ],
)
def test_bad_timeout_is_rejected(flow, timeout, rule):
    with pytest.raises(FlowDefinitionError, match="timeout") as excinfo:
        flow.wait("w", timeout=timeout)
    assert_rule(excinfo, rule, "approval", "w")

    with pytest.raises(FlowDefinitionError, match="wait_timeout") as excinfo:
        flow.step(slug="s", wait_for="ok", wait_timeout=timeout)(handler)
    assert_rule(excinfo, rule, "approval", "s")


@pytest.mark.parametrize("on_timeout", ["retry", "FAIL", "skip_cascade", 1, ""])
def test_unknown_on_timeout_is_rejected(flow, on_timeout):
    with pytest.raises(FlowDefinitionError, match="continue") as excinfo:
        flow.wait("w", on_timeout=on_timeout)
    assert_rule(excinfo, "on_timeout", "approval", "w")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="s", wait_for="ok", on_timeout=on_timeout)(handler)
    assert_rule(excinfo, "on_timeout", "approval", "s")


@pytest.mark.parametrize("match", [[1], "eu", 5, {"x": float("nan")}, {1: "a"}])
def test_match_that_is_not_a_json_object_is_rejected(flow, match):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.wait("w", match=match)
    assert_rule(excinfo, "pattern", "approval", "w")

    with pytest.raises(FlowDefinitionError, match="signal_match") as excinfo:
        flow.step(slug="s", wait_for="ok", signal_match=match)(handler)
    assert_rule(excinfo, "pattern", "approval", "s")


@pytest.mark.parametrize(
    "options",
    [{"wait_timeout": 60}, {"on_timeout": "skip"}, {"signal_match": {"a": 1}}],
)
def test_wait_options_without_wait_for_are_rejected(flow, options):
    with pytest.raises(FlowDefinitionError, match="wait_for") as excinfo:
        flow.step(slug="s", **options)(handler)

    assert_rule(excinfo, "wait_option_without_wait_for", "approval", "s")
    assert [step.slug for step in flow.steps] == ["submit"]


@pytest.mark.parametrize(
    "options",
    [{"wait_for": "go"}, {"wait_timeout": 60}, {"signal_match": {"a": 1}}, {"on_timeout": "skip"}],
)
def test_a_map_step_cannot_wait(flow, options):
    with pytest.raises(FlowDefinitionError, match="map step cannot wait") as excinfo:
        flow.map(slug="each", array="submit", **options)(handler)

    assert_rule(excinfo, "wait_on_map", "approval", "each")
    assert [step.slug for step in flow.steps] == ["submit"]


@pytest.mark.parametrize(
    ("seconds", "until"),
    [(None, None), (5, "input.at"), (0, "input.at")],
)
def test_sleep_takes_exactly_one_of_seconds_and_until(flow, seconds, until):
    with pytest.raises(FlowDefinitionError, match="exactly one") as excinfo:
        flow.sleep("s", seconds=seconds, until=until)

    assert_rule(excinfo, "sleep_time", "approval", "s")


@pytest.mark.parametrize(
    ("seconds", "rule"),
    [(-1, "option_range"), (2**31, "option_range"), (1.5, "option_type"), ("5", "option_type")],
)
def test_bad_sleep_seconds_are_rejected(flow, seconds, rule):
    with pytest.raises(FlowDefinitionError, match="seconds") as excinfo:
        flow.sleep("s", seconds=seconds)

    assert_rule(excinfo, rule, "approval", "s")


@pytest.mark.parametrize(
    "until",
    ["", "input.", ".input.at", "input..at", "input.remind at", " input.at", "input.a\x01", 5],
)
def test_malformed_until_path_is_rejected(flow, until):
    with pytest.raises(FlowDefinitionError, match="until") as excinfo:
        flow.sleep("s", until=until, depends_on=["submit"])

    assert_rule(excinfo, "sleep_until", "approval", "s")


def test_until_path_must_start_with_input_or_a_dependency(flow):
    flow.step(slug="other")(handler)

    for until in ["other.at", "nowhere.at", "submit.at"]:  # submit: not in depends_on here
        with pytest.raises(FlowDefinitionError, match="must start with 'input'") as excinfo:
            flow.sleep("s", until=until, depends_on=["other"] if until != "other.at" else None)
        assert_rule(excinfo, "sleep_until", "approval", "s")
    assert [step.slug for step in flow.steps] == ["submit", "other"]


def test_duplicate_slugs_are_rejected(flow):
    flow.wait("approved")

    for define in (
        lambda: flow.wait("approved"),
        lambda: flow.sleep("approved", seconds=1),
        lambda: flow.step(slug="approved")(handler),
        lambda: flow.wait("submit"),
        lambda: flow.sleep("submit", seconds=1),
    ):
        with pytest.raises(FlowDefinitionError) as excinfo:
            define()
        assert excinfo.value.rule == "duplicate_step"
    assert [step.slug for step in flow.steps] == ["submit", "approved"]


def test_wait_steps_follow_the_dependency_and_condition_rules(flow):
    cases = [
        (lambda: flow.wait("w", depends_on=["later"]), "unknown_dependency"),
        (lambda: flow.sleep("t", seconds=1, depends_on="submit"), "dependency_type"),
        (lambda: flow.wait("w", depends_on=["w"]), "self_dependency"),
        (lambda: flow.wait("w", when_unmet="skip"), "when_unmet_without_condition"),
        (lambda: flow.sleep("t", seconds=1, when_exhausted="never"), "when_mode"),
        (lambda: flow.wait("w", if_=[1]), "pattern"),
    ]
    for define, rule in cases:
        with pytest.raises(FlowDefinitionError) as excinfo:
            define()
        assert excinfo.value.rule == rule
    assert [step.slug for step in flow.steps] == ["submit"]
