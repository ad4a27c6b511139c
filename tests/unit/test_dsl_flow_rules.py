"""pgflow.dsl: the rules of flow slugs and flow options, and of registering steps (step
slugs, their default from the function name, duplicates, handlers that are not callable).
No database.
"""

from __future__ import annotations

import functools

import pytest

from pgflow.dsl import Flow, FlowDefinitionError
from pgflow.errors import PgflowError
from tests.unit.dsl_helpers import assert_rule, demo_flow, handler


@pytest.fixture
def flow():
    """A flow with a root step `a`, an array step `b` after it and a single step `c`."""
    return demo_flow()


# ---------------------------------------------------------------- flow-level rules


@pytest.mark.parametrize(
    ("slug", "rule"),
    [
        ("", "slug_format"),
        ("1abc", "slug_format"),
        ("has-dash", "slug_format"),
        ("has space", "slug_format"),
        ("trailing_newline\n", "slug_format"),
        ("ünicode", "slug_format"),
        ("run", "slug_format"),
        ("x" * 48, "slug_length"),
        ("x" * 129, "slug_length"),
        (42, "slug_type"),
        (None, "slug_type"),
    ],
)
def test_invalid_flow_slug_is_rejected(slug, rule):
    with pytest.raises(FlowDefinitionError) as excinfo:
        Flow(slug)

    assert_rule(excinfo, rule, str(slug), None)


def test_flow_slug_length_limit_is_the_pgmq_queue_name_limit():
    assert Flow("x" * 47).slug == "x" * 47

    with pytest.raises(FlowDefinitionError, match="47") as excinfo:
        Flow("x" * 48)

    assert "pgmq" in str(excinfo.value)


@pytest.mark.parametrize("slug", ["a", "_", "_private", "Run", "runs", "A1_b2", "x" * 47])
def test_valid_flow_slugs_are_accepted(slug):
    assert Flow(slug).slug == slug


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"max_attempts": 0}, "option_range"),
        ({"base_delay": 0}, "option_range"),
        ({"timeout": 2}, "option_range"),
        ({"timeout": 2**31}, "option_range"),
        ({"max_attempts": True}, "option_type"),
        ({"base_delay": "5"}, "option_type"),
        ({"timeout": 30.0}, "option_type"),
    ],
)
def test_flow_option_out_of_range_or_of_wrong_type_is_rejected(options, rule):
    with pytest.raises(FlowDefinitionError) as excinfo:
        Flow("demo", **options)

    assert_rule(excinfo, rule, "demo", None)
    assert next(iter(options)) in str(excinfo.value)


def test_flow_options_at_their_minimum_are_accepted():
    flow = Flow("demo", max_attempts=1, base_delay=1, timeout=3)

    assert (flow.max_attempts, flow.base_delay, flow.timeout) == (1, 1, 3)


def test_flow_options_default_to_none():
    flow = Flow("demo")

    assert (flow.max_attempts, flow.base_delay, flow.timeout) == (None, None, None)


def test_flow_definition_error_is_a_value_error_and_a_pgflow_error():
    with pytest.raises(FlowDefinitionError) as excinfo:
        Flow("run")

    assert isinstance(excinfo.value, ValueError)
    assert isinstance(excinfo.value, PgflowError)


# ---------------------------------------------------------------- step slugs and registration


@pytest.mark.parametrize(
    ("slug", "rule"),
    [
        ("run", "slug_format"),
        ("9lives", "slug_format"),
        ("with.dot", "slug_format"),
        ("x" * 129, "slug_length"),
        (7, "slug_type"),
    ],
)
def test_invalid_step_slug_is_rejected(slug, rule):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug=slug)(handler)

    assert_rule(excinfo, rule, "demo", slug if isinstance(slug, str) else repr(slug))
    assert flow.steps == ()


def test_step_slug_may_be_128_characters_long():
    flow = Flow("demo")

    flow.step(slug="s" * 128)(handler)

    assert flow.steps[0].slug == "s" * 128


def test_step_slug_defaults_to_the_function_name():
    flow = Flow("demo")

    @flow.step()
    def fetch_page(input, ctx):
        return input

    assert flow.get_step("fetch_page").handler is fetch_page


def test_function_named_run_needs_an_explicit_slug():
    flow = Flow("demo")

    def run(input):
        return input

    with pytest.raises(FlowDefinitionError, match="pass slug=") as excinfo:
        flow.step()(run)

    assert_rule(excinfo, "slug_format", "demo", "run")
    flow.step(slug="run_it")(run)
    assert flow.steps[0].slug == "run_it"


def test_lambda_needs_an_explicit_slug():
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError, match="pass slug=") as excinfo:
        flow.step()(lambda input: input)

    assert_rule(excinfo, "slug_format", "demo", "<lambda>")


def test_handler_without_a_name_needs_an_explicit_slug():
    flow = Flow("demo")
    partial = functools.partial(handler, ctx=None)

    with pytest.raises(FlowDefinitionError, match="pass slug=") as excinfo:
        flow.step()(partial)

    assert excinfo.value.rule == "slug_type"
    assert flow.step(slug="partial")(partial) is partial


def test_duplicate_step_slug_is_rejected(flow):
    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.map(slug="a")(handler)

    assert_rule(excinfo, "duplicate_step", "demo", "a")
    assert [step.slug for step in flow.steps] == ["a", "b", "c"]


def test_non_callable_handler_is_rejected():
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="x")(42)

    assert_rule(excinfo, "handler_callable", "demo", "x")
