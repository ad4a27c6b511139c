"""pgflow.dsl: what a defined flow tells about itself: its steps and their kinds,
get_step, effective_timeout and repr, shape() (the spec's format) and to_sql(), with
sql_literal's quoting. No database.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from pgflow.dsl import DEFAULT_TIMEOUT_SECONDS, Flow, Step
from pgflow.dsl.compiler import sql_literal
from tests.unit.dsl_helpers import demo_flow, handler


@pytest.fixture
def flow():
    """A flow with a root step `a`, an array step `b` after it and a single step `c`."""
    return demo_flow()


# ---------------------------------------------------------------- Flow and Step access


def test_steps_are_in_definition_order_and_frozen(flow):
    assert [step.slug for step in flow.steps] == ["a", "b", "c"]
    assert isinstance(flow.steps, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        flow.steps[0].slug = "z"  # type: ignore[misc]


def test_step_records_its_kind(flow):
    a, b, c = flow.steps

    assert (a.step_type, a.is_array, a.is_root, a.is_map) == ("single", False, True, False)
    assert (b.step_type, b.is_array, b.is_root, b.dependencies) == ("single", True, False, ("a",))
    assert c.is_root


def test_get_step_of_unknown_slug_raises_key_error(flow):
    with pytest.raises(KeyError, match="'nope'"):
        flow.get_step("nope")


def test_effective_timeout_is_step_then_flow_then_default():
    flow = Flow("demo", timeout=30)
    flow.step(slug="own", timeout=5)(handler)
    flow.step(slug="inherits")(handler)
    bare = Flow("bare")
    bare.step(slug="s")(handler)

    assert flow.effective_timeout("own") == 5
    assert flow.effective_timeout("inherits") == 30
    assert bare.effective_timeout("s") == DEFAULT_TIMEOUT_SECONDS == 60
    with pytest.raises(KeyError):
        flow.effective_timeout("nope")


def test_repr_names_the_flow_and_its_steps(flow):
    assert repr(flow) == "Flow('demo', steps=['a', 'b', 'c'])"


def test_step_can_be_built_directly():
    step = Step(slug="s", handler=handler)

    assert (step.step_type, step.dependencies, step.is_root, step.accepts_context) == (
        "single",
        (),
        True,
        True,
    )


# ---------------------------------------------------------------- shape()


def _analyze_flow():
    flow = Flow("analyze", max_attempts=3, base_delay=1, timeout=30)

    @flow.step()
    def fetch(input, ctx):
        return input

    @flow.array(depends_on=["fetch"], start_delay=0)
    def list_files(input):
        return []

    @flow.map(array="list_files", max_attempts=5, base_delay=2, timeout=10)
    def parse(item):
        return item

    @flow.step(
        depends_on=["parse", "fetch"],
        if_={"fetch": {"lang": "de"}},
        if_not={"fetch": {"draft": True}},
        when_unmet="skip-cascade",
        when_exhausted="skip",
    )
    def summarize(input, ctx):
        return input

    return flow


def _unset_pattern():
    return {"defined": False}


def test_shape_matches_the_spec_format():
    assert _analyze_flow().shape() == {
        "steps": [
            {
                "slug": "fetch",
                "stepType": "single",
                "dependencies": [],
                "whenUnmet": "skip",
                "whenExhausted": "fail",
                "requiredInputPattern": _unset_pattern(),
                "forbiddenInputPattern": _unset_pattern(),
            },
            {
                "slug": "list_files",
                "stepType": "single",
                "dependencies": ["fetch"],
                "whenUnmet": "skip",
                "whenExhausted": "fail",
                "requiredInputPattern": _unset_pattern(),
                "forbiddenInputPattern": _unset_pattern(),
                "options": {"startDelay": 0},
            },
            {
                "slug": "parse",
                "stepType": "map",
                "dependencies": ["list_files"],
                "whenUnmet": "skip",
                "whenExhausted": "fail",
                "requiredInputPattern": _unset_pattern(),
                "forbiddenInputPattern": _unset_pattern(),
                "options": {"maxAttempts": 5, "baseDelay": 2, "timeout": 10},
            },
            {
                "slug": "summarize",
                "stepType": "single",
                "dependencies": ["fetch", "parse"],
                "whenUnmet": "skip-cascade",
                "whenExhausted": "skip",
                "requiredInputPattern": {"defined": True, "value": {"fetch": {"lang": "de"}}},
                "forbiddenInputPattern": {"defined": True, "value": {"fetch": {"draft": True}}},
            },
        ],
        "options": {"maxAttempts": 3, "baseDelay": 1, "timeout": 30},
    }


def test_shape_keeps_step_dependencies_in_given_order():
    assert _analyze_flow().get_step("summarize").dependencies == ("parse", "fetch")


def test_shape_leaves_out_unset_options():
    flow = Flow("demo", timeout=10)
    flow.step(slug="s", base_delay=3)(handler)

    shape = flow.shape()

    assert shape["options"] == {"timeout": 10}
    assert shape["steps"][0]["options"] == {"baseDelay": 3}


def test_shape_of_a_flow_without_options_or_steps():
    assert Flow("empty").shape() == {"steps": []}


def test_shape_is_json_serialisable_and_a_fresh_copy():
    flow = _analyze_flow()
    shape = flow.shape()

    shape["steps"][3]["requiredInputPattern"]["value"]["fetch"]["lang"] = "fr"

    assert json.loads(json.dumps(flow.shape())) == flow.shape()
    assert flow.get_step("summarize").if_ == {"fetch": {"lang": "de"}}


# ---------------------------------------------------------------- to_sql()


def test_to_sql_matches_the_definition():
    assert _analyze_flow().to_sql() == (
        "SELECT pgflow.create_flow('analyze', max_attempts => 3, base_delay => 1, timeout => 30);\n"
        "SELECT pgflow.add_step('analyze', 'fetch');\n"
        "SELECT pgflow.add_step('analyze', 'list_files', ARRAY['fetch'], start_delay => 0);\n"
        "SELECT pgflow.add_step('analyze', 'parse', ARRAY['list_files'], max_attempts => 5, "
        "base_delay => 2, timeout => 10, step_type => 'map');\n"
        "SELECT pgflow.add_step('analyze', 'summarize', ARRAY['parse', 'fetch'], "
        """required_input_pattern => '{"fetch": {"lang": "de"}}'::jsonb, """
        """forbidden_input_pattern => '{"fetch": {"draft": true}}'::jsonb, """
        "when_unmet => 'skip-cascade', when_exhausted => 'skip');\n"
    )


def test_to_sql_of_a_root_map_without_options():
    flow = Flow("m")
    flow.map(slug="each")(handler)

    assert flow.to_sql() == (
        "SELECT pgflow.create_flow('m');\n"
        "SELECT pgflow.add_step('m', 'each', step_type => 'map');\n"
    )


def test_to_sql_quotes_patterns_safely():
    flow = Flow("q")
    flow.step(slug="s", if_={"k": "it's'); drop table x; --", "b": 'back\\slash "q"'})(handler)

    sql = flow.to_sql().splitlines()[1]

    assert sql == (
        "SELECT pgflow.add_step('q', 's', required_input_pattern => "
        """E'{"b": "back\\\\\\\\slash \\\\"q\\\\"", "k": "it''s''); drop table x; --"}'::jsonb);"""
    )


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", "'plain'"),
        ("", "''"),
        ("it's", "'it''s'"),
        ("a\\b", "E'a\\\\b'"),
        ("\\'", "E'\\\\'''"),
        ("ünï ✓", "'ünï ✓'"),
    ],
)
def test_sql_literal(text, literal):
    assert sql_literal(text) == literal


def test_sql_literal_rejects_nul():
    with pytest.raises(ValueError, match="NUL"):
        sql_literal("a\x00b")
