"""Wait steps in pgflow.dsl: wait_for=, flow.wait, flow.sleep, their rules, shape and SQL."""

from __future__ import annotations

import dataclasses

import pytest

import pgflow
from pgflow.dsl import Flow, FlowDefinitionError, Job, Step, Wait
from pgflow.worker import queries
from tests.unit.test_worker_executor import claimed, only_report, run_task


def handler(input, ctx):
    return input


def assert_rule(excinfo, rule, flow_slug, step_slug):
    """The error carries the rule and the names, and its message shows them."""
    error = excinfo.value
    assert (error.rule, error.flow_slug, error.step_slug) == (rule, flow_slug, step_slug)
    assert f"(rule {rule})" in str(error)
    assert f"step {step_slug!r}" in str(error)


@pytest.fixture
def flow():
    """Flow "approval" with a root step `submit`."""
    flow = Flow("approval")
    flow.step(slug="submit")(handler)
    return flow


def expense() -> Flow:
    """Every kind of wait: a wait step, two timers, a handler waiting for a matching signal."""
    flow = Flow("expense")
    flow.step(slug="submit")(handler)
    flow.wait("approved", depends_on=["submit"], timeout=86400, on_timeout="skip-cascade")
    flow.sleep("cool_off", seconds=3600, depends_on=["approved"])
    flow.sleep("remind", until="submit.remind_at", depends_on=["submit"])
    flow.step(
        slug="book",
        depends_on=["cool_off"],
        wait_for="paid",
        signal_match={"currency": "EUR"},
        on_timeout="continue",
    )(handler)
    return flow


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


# ---------------------------------------------------------------- rules


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


# ---------------------------------------------------------------- shape() and to_sql()


def test_shape_has_a_wait_key_on_waiting_steps_only():
    shape = expense().shape()

    def base(slug, deps):
        return {
            "slug": slug,
            "stepType": "single",
            "dependencies": deps,
            "whenUnmet": "skip",
            "whenExhausted": "fail",
            "requiredInputPattern": {"defined": False},
            "forbiddenInputPattern": {"defined": False},
        }

    assert shape == {
        "steps": [
            base("submit", []),
            base("approved", ["submit"])
            | {
                "wait": {
                    "kind": "signal",
                    "signal": "approved",
                    "match": None,
                    "timeout": 86400,
                    "onTimeout": "skip-cascade",
                    "handler": False,
                }
            },
            base("cool_off", ["approved"])
            | {"wait": {"kind": "timer", "seconds": 3600, "until": None}},
            base("remind", ["submit"])
            | {"wait": {"kind": "timer", "seconds": None, "until": "submit.remind_at"}},
            base("book", ["cool_off"])
            | {
                "wait": {
                    "kind": "signal",
                    "signal": "paid",
                    "match": {"currency": "EUR"},
                    "timeout": None,
                    "onTimeout": "continue",
                    "handler": True,
                }
            },
        ]
    }


def test_shape_of_a_flow_without_waits_has_no_wait_key(flow):
    flow.step(slug="after", depends_on=["submit"], if_={"submit": 1})(handler)

    assert all("wait" not in step for step in flow.shape()["steps"])


def test_shape_is_a_fresh_copy():
    flow = expense()
    flow.shape()["steps"][4]["wait"]["match"]["currency"] = "USD"

    assert flow.get_step("book").wait.signal_match == {"currency": "EUR"}
    assert flow.shape()["steps"][4]["wait"]["match"] == {"currency": "EUR"}


def test_to_sql_adds_wait_and_timer_calls_right_after_their_step():
    assert expense().to_sql().splitlines() == [
        "SELECT pgflow.create_flow('expense');",
        "SELECT pgflow.add_step('expense', 'submit');",
        "SELECT pgflow.add_step('expense', 'approved', ARRAY['submit']);",
        "SELECT pgflow.add_wait('expense', 'approved', 'approved', timeout => 86400, "
        "on_timeout => 'skip-cascade', runs_handler => false);",
        "SELECT pgflow.add_step('expense', 'cool_off', ARRAY['approved']);",
        "SELECT pgflow.add_timer('expense', 'cool_off', seconds => 3600);",
        "SELECT pgflow.add_step('expense', 'remind', ARRAY['submit']);",
        "SELECT pgflow.add_timer('expense', 'remind', until_path => 'submit.remind_at');",
        "SELECT pgflow.add_step('expense', 'book', ARRAY['cool_off']);",
        "SELECT pgflow.add_wait('expense', 'book', 'paid', "
        """signal_match => '{"currency": "EUR"}'::jsonb, on_timeout => 'continue', """
        "runs_handler => true);",
    ]


def test_to_sql_quotes_signal_names_and_paths():
    flow = Flow("quoting")
    flow.wait("w", "it's\\ok")
    flow.sleep("t", until="input.o'clock")

    lines = flow.to_sql().splitlines()

    assert lines[2] == (
        "SELECT pgflow.add_wait('quoting', 'w', E'it''s\\\\ok', on_timeout => 'fail', "
        "runs_handler => false);"
    )
    assert lines[4] == "SELECT pgflow.add_timer('quoting', 't', until_path => 'input.o''clock');"


# ---------------------------------------------------------------- the worker


def test_a_task_of_a_step_without_handler_fails_permanently_with_a_clear_error(flow):
    flow.wait("approved", depends_on=["submit"])

    pool = run_task(claimed(flow, "approved", {"submit": 1}))

    query, report = only_report(pool)
    assert query == queries.FAIL_TASKS
    assert report["payloads"].startswith("PermanentError: step 'approved' has no handler")
    assert report["permanents"] is True
