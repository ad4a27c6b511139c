"""pgflow.dsl: validation rules, handler detection, shape() and to_sql() (no database)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json

import pytest

from pgflow.dsl import DEFAULT_TIMEOUT_SECONDS, Flow, FlowDefinitionError, Job, Step
from pgflow.dsl.compiler import sql_literal
from pgflow.errors import PgflowError


def handler(input, ctx):
    return input


def one_arg(input):
    return input


def assert_rule(excinfo, rule, flow_slug, step_slug):
    """The error carries the rule and names, and its message shows all three."""
    error = excinfo.value
    assert (error.rule, error.flow_slug, error.step_slug) == (rule, flow_slug, step_slug)
    message = str(error)
    assert f"flow {flow_slug!r}" in message
    assert f"(rule {rule})" in message
    if step_slug is not None:
        assert f"step {step_slug!r}" in message
    else:
        assert "step" not in message.split("(rule")[0]


@pytest.fixture
def flow():
    """A flow with a root step `a`, an array step `b` after it and a single step `c`."""
    flow = Flow("demo")
    flow.step(slug="a")(handler)
    flow.array(slug="b", depends_on=["a"])(handler)
    flow.step(slug="c")(handler)
    return flow


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


# ---------------------------------------------------------------- handlers


@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_decorator_returns_the_function_unchanged(decorator):
    flow = Flow("demo")

    def my_handler(input, ctx):
        return {"seen": input}

    decorated = getattr(flow, decorator)()(my_handler)

    assert decorated is my_handler
    assert decorated(1, None) == {"seen": 1}
    assert flow.steps[0].handler is my_handler


def test_decorators_work_without_parentheses():
    flow = Flow("demo")

    @flow.step
    def first(input):
        return [input]

    @flow.map(array="first")
    def each(item):
        return item

    @flow.array
    def listing(input):
        return []

    @flow.map
    def root_items(item):
        return item

    assert first([1]) == [[1]]  # the handler itself is returned
    assert [s.slug for s in flow.steps] == ["first", "each", "listing", "root_items"]
    assert flow.get_step("each").dependencies == ("first",)
    assert flow.get_step("listing").is_array
    bare = Flow("bare")
    bare.step(first)
    with_parentheses = Flow("bare")
    with_parentheses.step()(first)
    assert bare.shape() == with_parentheses.shape()


@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_a_positional_option_is_a_clear_type_error(decorator):
    flow = Flow("demo")

    with pytest.raises(TypeError, match=rf"flow\.{decorator}\(\) takes keyword arguments only"):
        getattr(flow, decorator)("first")


def _sync_two(input, ctx):
    return input


def _sync_one(input):
    return input


async def _async_two(input, ctx):
    return input


async def _async_one(input):
    return input


def _optional_ctx(input, ctx=None):
    return input


def _variadic(*args):
    return args


def _keyword_options(input, *, extra=1):
    return input


class _AsyncCallable:
    async def __call__(self, input, ctx):
        return input


class _Handlers:
    def method(self, input):
        return input


@pytest.mark.parametrize(
    ("function", "accepts_context", "is_async"),
    [
        (_sync_two, True, False),
        (_sync_one, False, False),
        (_async_two, True, True),
        (_async_one, False, True),
        (_optional_ctx, True, False),
        (_variadic, True, False),
        (_keyword_options, False, False),
        (_AsyncCallable(), True, True),
        (_Handlers().method, False, False),
        (functools.partial(_async_two, ctx=None), False, True),
    ],
)
def test_handler_calling_convention_is_detected(function, accepts_context, is_async):
    flow = Flow("demo")

    flow.step(slug="s")(function)

    step = flow.steps[0]
    assert (step.accepts_context, step.is_async) == (accepts_context, is_async)


def test_async_handler_stays_a_coroutine_function():
    flow = Flow("demo")

    decorated = flow.step()(_async_two)

    assert asyncio.run(decorated("x", None)) == "x"


def _no_params():
    return None


def _three_required(input, ctx, other):
    return None


def _required_keyword(input, ctx, *, other):
    return None


@pytest.mark.parametrize("function", [_no_params, _three_required, _required_keyword])
def test_handler_with_an_unusable_signature_is_rejected(function):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="s")(function)

    assert_rule(excinfo, "handler_signature", "demo", "s")


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
