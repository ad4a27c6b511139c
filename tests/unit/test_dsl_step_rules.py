"""pgflow.dsl: the rules of step dependencies (depends_on, a map's array=) and of step
options (retries, timeouts, start_delay, if_/if_not patterns, when_unmet/when_exhausted).
No database.
"""

from __future__ import annotations

import pytest

from pgflow.dsl import Flow, FlowDefinitionError
from tests.unit.dsl_helpers import assert_rule, demo_flow, handler


@pytest.fixture
def flow():
    """A flow with a root step `a`, an array step `b` after it and a single step `c`."""
    return demo_flow()


# ---------------------------------------------------------------- dependencies


def test_unknown_dependency_is_rejected(flow):
    with pytest.raises(FlowDefinitionError, match="'nope'") as excinfo:
        flow.step(slug="d", depends_on=["a", "nope"])(handler)

    assert_rule(excinfo, "unknown_dependency", "demo", "d")
    assert "a, b, c" in str(excinfo.value)


def test_dependency_defined_later_is_unknown():
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="first", depends_on=["second"])(handler)

    assert_rule(excinfo, "unknown_dependency", "demo", "first")


def test_self_dependency_is_rejected():
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="loop", depends_on=["loop"])(handler)

    assert_rule(excinfo, "self_dependency", "demo", "loop")


def test_dependency_listed_twice_is_rejected(flow):
    with pytest.raises(FlowDefinitionError, match="'a'") as excinfo:
        flow.step(slug="d", depends_on=["a", "b", "a"])(handler)

    assert_rule(excinfo, "duplicate_dependency", "demo", "d")


@pytest.mark.parametrize("depends_on", ["a", {"a"}, ["a", 1], 5])
def test_depends_on_must_be_a_list_of_slugs(flow, depends_on):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="d", depends_on=depends_on)(handler)

    assert_rule(excinfo, "dependency_type", "demo", "d")


def test_depends_on_accepts_a_tuple_and_keeps_the_given_order(flow):
    flow.step(slug="d", depends_on=("c", "a"))(handler)

    assert flow.get_step("d").dependencies == ("c", "a")


def test_map_with_two_dependencies_is_rejected(flow):
    with pytest.raises(FlowDefinitionError, match="array=") as excinfo:
        flow.map(slug="m", array=["a", "b"])(handler)

    assert_rule(excinfo, "map_one_dependency", "demo", "m")


@pytest.mark.parametrize("array", [["b"], 3, ("b",)])
def test_map_array_must_be_one_slug(flow, array):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.map(slug="m", array=array)(handler)

    assert_rule(excinfo, "dependency_type", "demo", "m")


def test_map_over_unknown_step_is_rejected(flow):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.map(slug="m", array="missing")(handler)

    assert_rule(excinfo, "unknown_dependency", "demo", "m")


def test_root_map_and_dependent_map(flow):
    flow.map(slug="root_map")(handler)
    flow.map(slug="child_map", array="b")(handler)

    root, child = flow.get_step("root_map"), flow.get_step("child_map")
    assert (root.step_type, root.dependencies, root.is_root, root.is_map) == ("map", (), True, True)
    assert (child.step_type, child.dependencies, child.is_root) == ("map", ("b",), False)


# ---------------------------------------------------------------- step options


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"max_attempts": 0}, "option_range"),
        ({"base_delay": 0}, "option_range"),
        ({"timeout": 2}, "option_range"),
        ({"start_delay": -1}, "option_range"),
        ({"start_delay": 2**31}, "option_range"),
        ({"max_attempts": False}, "option_type"),
        ({"timeout": "30"}, "option_type"),
        ({"start_delay": 0.5}, "option_type"),
        ({"when_unmet": "ignore", "if_": {"x": 1}}, "when_mode"),
        ({"when_unmet": "SKIP", "if_": {"x": 1}}, "when_mode"),
        ({"when_exhausted": "retry"}, "when_mode"),
        ({"when_exhausted": 1}, "when_mode"),
        ({"when_unmet": "skip"}, "when_unmet_without_condition"),
        ({"when_unmet": "fail"}, "when_unmet_without_condition"),
        ({"if_": ["x"]}, "pattern"),
        ({"if_not": "x"}, "pattern"),
        ({"if_": {"x": float("nan")}}, "pattern"),
        ({"if_": {"x": float("inf")}}, "pattern"),
        ({"if_": {1: "x"}}, "pattern"),
        ({"if_": {"x": {1, 2}}}, "pattern"),
        ({"if_": {"x": "nul\x00"}}, "pattern"),
        ({"if_not": {"nul\x00key": 1}}, "pattern"),
        ({"if_": {"x": "\ud800"}}, "pattern"),
        ({"if_": {"x": object()}}, "pattern"),
    ],
)
def test_invalid_step_option_is_rejected(options, rule):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="s", **options)(handler)

    assert_rule(excinfo, rule, "demo", "s")
    assert flow.steps == ()


@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_every_decorator_validates_options(decorator):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        getattr(flow, decorator)(slug="s", timeout=1)(handler)

    assert_rule(excinfo, "option_range", "demo", "s")


def test_step_options_at_their_minimum_are_accepted():
    flow = Flow("demo")

    flow.step(slug="s", max_attempts=1, base_delay=1, timeout=3, start_delay=0)(handler)

    step = flow.get_step("s")
    assert (step.max_attempts, step.base_delay, step.timeout, step.start_delay) == (1, 1, 3, 0)


@pytest.mark.parametrize("mode", ["fail", "skip", "skip-cascade"])
def test_when_modes_are_accepted(mode):
    flow = Flow("demo")

    flow.step(slug="s", if_not={"x": 1}, when_unmet=mode, when_exhausted=mode)(handler)

    assert (flow.steps[0].when_unmet, flow.steps[0].when_exhausted) == (mode, mode)


def test_when_exhausted_needs_no_condition():
    flow = Flow("demo")

    flow.step(slug="s", when_exhausted="skip")(handler)

    assert flow.steps[0].when_exhausted == "skip"


def test_pattern_is_copied_and_tuples_become_lists():
    pattern = {"tags": ("a", "b"), "nested": {"n": 1.5, "ok": True, "none": None}}
    flow = Flow("demo")

    flow.step(slug="s", if_=pattern)(handler)
    pattern["nested"]["n"] = 99

    assert flow.steps[0].if_ == {"tags": ["a", "b"], "nested": {"n": 1.5, "ok": True, "none": None}}


def test_empty_pattern_is_a_defined_condition():
    flow = Flow("demo")

    flow.step(slug="s", if_={}, when_unmet="fail")(handler)

    assert flow.steps[0].if_ == {}
    assert flow.shape()["steps"][0]["requiredInputPattern"] == {"defined": True, "value": {}}
