"""Property-based tests: random flows driven through the SQL API agree with a pure model.

Hypothesis draws a flow (1-6 single and map steps, random dependencies, conditions,
max_attempts and when_exhausted), a run input, for every task an outcome (the first N
calls of its handler fail, later ones return a random JSON output) and up to four
run-control calls of an operator (cancel_run, pause_run, resume_run, retry_run,
skip_step), each at a numbered point of the worker's sequence. A simulated worker drives
the run purely through the SQL API (pgmq.read, start_tasks, complete_task, fail_task;
message vt reset to now before every read so backoff delays cost nothing) while the model
in flow_model.py and run_control_model.py applies the same calls. After every round the
visible tasks must agree and every claimed task must get the model's input. A verb the
model says is illegal must raise SQLSTATE 55000 and change nothing; a legal one must
return the model's run status, record its event and leave the run, its steps, tasks and
queue as the model says. At the end the run must be terminal with the model's status and
output, every step and task state must match, and the queue must hold no message.

Points are numbered in the order the worker passes them: before each read, between a read
and its claim, after the claim (while the handlers run), after each report call. When
nothing is visible the operator's next calls are made at once; a run still paused after
the last one is resumed. model_scenarios.py adds hand-written scenarios that every run
plays (run-control cases random draws reach rarely).

Budget: one database per test and a fresh flow per example (f_<n>); the examples run
derandomized by default (profile "pgflow-ci", reproducible). HYPOTHESIS_PROFILE=
pgflow-dev draws new random examples (and more of them) for local exploration.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, event, example, given, note, settings
from hypothesis import strategies as st

from tests.integration.flow_model import FlowSpec, Key, StepSpec
from tests.integration.jsonb_model import dumps, jsonb_contains
from tests.integration.model_driver import ACTOR, VERB_EVENTS, Driver
from tests.integration.model_scenarios import (
    EXAMPLES,
    MAX_MAP_TASKS,
    Control,
    Scenario,
    TaskOutcome,
)
from tests.integration.run_control_model import ControlledModel

pytestmark = pytest.mark.property

settings.register_profile(
    "pgflow-ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "pgflow-dev",
    max_examples=300,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "pgflow-ci"))
MAX_ROUNDS = 200
MAX_POINT = 12  # operator calls happen at points 0..MAX_POINT of the worker's sequence

# ---------------------------------------------------------------- strategies

# Falsy values included; numbers that survive a jsonb round trip unchanged.
SCALARS = st.sampled_from([None, True, False, 0, 1, -1, 2, 0.5, 10**20, "", "a", "b", "é"])
KEYS = st.sampled_from(["a", "b", "c"])
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)
ARRAYS = st.lists(JSON, max_size=MAX_MAP_TASKS)
MODES = st.sampled_from(["fail", "skip", "skip-cascade"])
FAILS = st.sampled_from([0, 0, 0, 1, 2, 3])  # failures before the handler succeeds
# The operator's verbs, weighted (resume mostly after a pause, cancel ends everything).
VERB_DRAWS = st.sampled_from(
    [
        *("pause_run", "retry_run", "skip_step", "resume_run"),
        *("pause_run", "retry_run", "skip_step", "cancel_run"),
    ]
)


def _feeds_map(steps: list[StepSpec], slug: str) -> bool:
    return any(s.kind == "map" and s.deps == (slug,) for s in steps)


@st.composite
def scenarios(draw: st.DrawFn, grouped: bool = False, max_controls: int = 4) -> Scenario:
    steps: list[StepSpec] = []
    for i in range(draw(st.integers(1, 6))):
        earlier = [s.slug for s in steps]
        kind = draw(st.sampled_from(["single", "map"]))
        max_deps = 1 if kind == "map" else 3
        deps = (
            draw(st.lists(st.sampled_from(earlier), max_size=max_deps, unique=True))
            if earlier
            else []
        )
        required = forbidden = None
        when_unmet = "skip"
        if draw(st.integers(0, 2)) == 0:  # a third of the steps have a condition
            keys = st.sampled_from(deps) if deps else KEYS
            patterns = st.dictionaries(keys, JSON, max_size=2)
            required = draw(st.none() | patterns)
            forbidden = draw(st.none() | patterns) if required is None else None
            when_unmet = draw(st.sampled_from(["skip", "skip-cascade", "fail", "skip"]))
        steps.append(
            StepSpec(
                slug=f"s{i}",
                kind=kind,
                deps=tuple(sorted(deps)),
                max_attempts=draw(st.none() | st.integers(0, 3)),
                base_delay=draw(st.none() | st.integers(0, 2)),
                start_delay=draw(st.sampled_from([None, 0, 1])),
                when_exhausted=draw(MODES),
                required=required,
                forbidden=forbidden,
                when_unmet=when_unmet,
            )
        )
    flow = FlowSpec(
        max_attempts=draw(st.integers(1, 3)), base_delay=draw(st.integers(0, 3)), steps=tuple(steps)
    )
    if flow.has_root_map():
        # Mostly an array; sometimes not, which start_flow must reject.
        run_input = draw(ARRAYS | JSON) if draw(st.integers(0, 9)) == 0 else draw(ARRAYS)
    else:
        run_input = draw(JSON)
    outcomes = {}
    for s in steps:
        output = (
            st.one_of(ARRAYS, ARRAYS, ARRAYS, JSON)
            if s.kind == "single" and _feeds_map(steps, s.slug)
            else JSON
        )
        count = MAX_MAP_TASKS if s.kind == "map" else 1
        outcomes[s.slug] = tuple(
            TaskOutcome(fails=draw(FAILS), output=draw(output)) for _ in range(count)
        )
    priority = tuple(draw(st.permutations([s.slug for s in steps])))
    controls = []
    for _ in range(draw(st.integers(0, max_controls))):
        point = draw(st.integers(0, 5) | st.integers(0, MAX_POINT))  # most runs are short
        verb = draw(VERB_DRAWS)
        step: str | int | None = None
        if verb == "skip_step":
            step = draw(st.integers(0, 5) | st.sampled_from([s.slug for s in steps]))
        controls.append(Control(point, verb, step))
    return Scenario(
        flow,
        run_input,
        outcomes,
        priority,
        batch=grouped or draw(st.booleans()),  # grouping needs several tasks per round
        duplicates=draw(st.booleans()),
        grouped=grouped,
        controls=tuple(sorted(controls, key=lambda c: c.point)),
    )


# ---------------------------------------------------------------- the operator


class Operator:
    """Makes the scenario's run-control calls at their points, through SQL and the model."""

    def __init__(self, driver: Driver, model: ControlledModel, controls: tuple[Control, ...]):
        self.driver, self.model = driver, model
        self.pending = list(controls)
        self.point = 0

    def at_point(self) -> None:
        """The worker passes the next point: the calls drawn for it are made."""
        while self.pending and self.pending[0].point <= self.point:
            control = self.pending.pop(0)
            step = control.step
            if isinstance(step, int):  # the n-th step skip_step applies to (if any)
                slugs = [s.slug for s in self.model.flow.steps]
                legal = [slug for slug in slugs if self.model.legal("skip_step", slug)]
                step = (legal or slugs)[step % len(legal or slugs)]
            self.call(control.verb, step, f"drawn at point {control.point}")
        self.point += 1

    def skip_ahead(self) -> bool:
        """Nothing to do for the worker: the next drawn calls are made now (False: none)."""
        if not self.pending:
            return False
        self.point = self.pending[0].point
        self.at_point()
        return True

    def call(self, verb: str, step: str | None, reason: str) -> None:
        driver, model = self.driver, self.model
        if not model.legal(verb, step):
            note(f"{verb}({step or ''}) on a {model.status} run: must raise 55000")
            event(f"{verb} refused")
            before = driver.state()
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match=f"^{verb}: "):
                driver.control(verb, step, reason)
            assert driver.state() == before, f"a refused {verb} changed something"
            return
        last_event = driver.last_event_id()
        run_id, status, changed, detail = driver.control(verb, step, reason)
        reset = model.apply(verb, step)
        note(f"{verb}({step or ''}) -> run {status}" + (f", steps reset {reset}" if reset else ""))
        event(f"{verb} applied")
        assert (str(run_id), status, changed, detail) == (driver.run_id, model.status, True, None)
        assert (VERB_EVENTS[verb], step, ACTOR) in driver.events_since(last_event), "event"
        for key in [k for k in driver.completions if k[0] in reset]:
            del driver.completions[key]  # a step created again has new tasks
        compare_state(driver.state(), model, f"after {verb}")


# ---------------------------------------------------------------- the simulated worker


def run_scenario(conn: psycopg.Connection, slug: str, scenario: Scenario) -> None:
    """Drive the scenario through SQL and the model side by side; assert they agree."""
    driver = Driver(conn, slug, scenario.flow)
    driver.define()
    model = ControlledModel(scenario.flow, scenario.run_input)
    expected_error = model.start()
    if expected_error is not None:
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="not an array"):
            driver.start(scenario.run_input)
        count = conn.execute("select count(*) from pgflow.runs where flow_slug = %s", (slug,))
        assert count.fetchone() == (0,), "a rejected start_flow wrote a run"
        event("start_flow rejected the input")
        return
    driver.start(scenario.run_input)
    operator = Operator(driver, model, scenario.controls)
    for round_no in range(MAX_ROUNDS):
        operator.at_point()
        visible = driver.read_visible()
        seen = model.visible()  # task -> the message the model says was read
        assert set(visible) == set(seen), f"round {round_no}: visible tasks differ"
        if not visible:
            if operator.skip_ahead():
                continue
            if model.status != "paused":
                break
            operator.call("resume_run", None, "resumed at the end")
            continue
        operator.at_point()
        work_round(driver, model, operator, scenario, visible, seen)
    else:
        pytest.fail(f"run still had visible tasks after {MAX_ROUNDS} rounds")

    db = driver.state()
    assert model.status in ("completed", "failed", "cancelled"), f"model run {model.status}"
    compare_state(db, model, "at the end")
    assert not db["queue"], "messages left in the queue of a finished run"
    for key, times in driver.completions.items():
        assert len(times) == 1, f"task {key} completed more than once: {sorted(times)}"
    event(f"run {model.status}")
    event(f"tasks: {min(len(model.tasks), 10)}")
    for state in model.states.values():
        event(f"a step {state.status}" + (f" ({state.skip_reason})" if state.skip_reason else ""))
        if state.status == "failed":
            event(f"a step failed: {(state.error_message or '').split(' ')[0]}")


def work_round(
    driver: Driver,
    model: ControlledModel,
    operator: Operator,
    scenario: Scenario,
    visible: dict[Key, int],
    seen: dict[Key, int],
) -> None:
    """One round of the worker: claim what it read, run the handlers, report."""
    order = {slug: rank for rank, slug in enumerate(scenario.priority)}
    claim = sorted(visible, key=lambda key: (order[key[0]], key[1]))
    if not scenario.batch:
        claim = claim[:1]
    records = driver.start_tasks([visible[k] for k in claim])
    expected = {k: r for k in claim if (r := model.start_task(k, seen[k])) is not None}
    assert set(records) == set(expected), f"claimed tasks differ (read {claim})"
    for key, (want_input, want_flow_input) in expected.items():
        got_input, got_flow_input = records[key]
        assert dumps(got_input) == dumps(want_input), f"input of {key}"
        assert dumps(got_flow_input) == dumps(want_flow_input), f"flow_input of {key}"
    operator.at_point()  # the handlers run: the run may be paused, cancelled meanwhile
    if expected and model.status != "started":
        event(f"reports to a {model.status} run")
    grouped: list[tuple[Key, Any]] = []
    for key in expected:
        outcome = scenario.outcomes[key[0]][key[1]]
        call = driver.handler_call(key)
        for _ in range(2 if scenario.duplicates else 1):
            if call <= outcome.fails:
                error = f"boom {key[0]}[{key[1]}] call {call}"
                note(f"fail_task {key} (handler call {call})")
                driver.fail(key, error)
                model.fail(key, error)
                operator.at_point()
            elif scenario.grouped:
                grouped.append((key, outcome.output))
            else:
                note(f"complete_task {key} -> {dumps(outcome.output)}")
                driver.complete(key, outcome.output)
                model.complete(key, outcome.output)
                operator.at_point()
    if grouped:
        # complete_tasks = complete_task per item in array order, in one transaction.
        note(f"complete_tasks {[(k, dumps(o)) for k, o in grouped]}")
        driver.complete_many(grouped)
        for key, output in grouped:
            model.complete(key, output)
        operator.at_point()


def compare_state(db: dict[str, Any], model: ControlledModel, when: str) -> None:
    run = db["run"]
    assert run["status"] == model.status, f"run status {when}"
    assert dumps(run["output"]) == dumps(model.output), f"run output {when}"
    assert run["remaining_steps"] == model.remaining_steps, f"run remaining_steps {when}"
    for slug, want in model.states.items():
        got = db["steps"][slug]
        for name in ("status", "skip_reason", "error_message", "remaining_deps"):
            assert got[name] == getattr(want, name), f"{name} of step {slug} {when}"
        assert got["initial_tasks"] == want.initial_tasks, f"initial_tasks of step {slug} {when}"
        assert got["remaining_tasks"] == want.remaining_tasks, f"remaining_tasks of {slug} {when}"
        if want.status == "completed":
            assert dumps(got["output"]) == dumps(want.output), f"output of step {slug} {when}"
        else:
            assert got["output"] is None, f"output of step {slug} (not completed) {when}"
    assert set(db["tasks"]) == set(model.tasks), f"task rows {when}"
    for key, want_task in model.tasks.items():
        got_task = db["tasks"][key]
        assert got_task["status"] == want_task.status, f"status of task {key} {when}"
        assert got_task["attempts_count"] == want_task.attempts, f"attempts of task {key} {when}"
        assert got_task["attempt_offset"] == want_task.attempt_offset, f"offset of {key} {when}"
        assert got_task["error_message"] == want_task.error_message, f"error of task {key} {when}"
        if want_task.status in ("completed", "failed") and want_task.output is not None:
            assert dumps(got_task["output"]) == dumps(want_task.output), f"output of {key} {when}"
    assert len(db["queue"]) == model.messages(), f"messages in the queue {when}"


# ---------------------------------------------------------------- the tests

_flow_numbers = itertools.count(1)


def with_examples(*examples: Scenario) -> Callable[[Any], Any]:
    """Decorator: the test plays these scenarios too (before the drawn ones)."""

    def decorate(test: Any) -> Any:
        for scenario in reversed(examples):
            test = example(scenario=scenario)(test)
        return test

    return decorate


@with_examples(*EXAMPLES)
@settings(PROFILE)
@given(scenario=scenarios())
def test_random_flows_agree_with_the_model(pgflow_conn, scenario):
    slug = f"f_{next(_flow_numbers)}"
    note(f"flow slug {slug}")
    try:
        run_scenario(pgflow_conn, slug, scenario)
    finally:
        pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (slug,))


@with_examples(*(replace(s, grouped=True) for s in EXAMPLES if s.batch))
@settings(PROFILE, max_examples=100)
@given(scenario=scenarios(grouped=True))
def test_random_flows_with_grouped_completions_agree_with_the_model(pgflow_conn, scenario):
    slug = f"g_{next(_flow_numbers)}"
    note(f"flow slug {slug}")
    try:
        run_scenario(pgflow_conn, slug, scenario)
    finally:
        pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (slug,))


@settings(PROFILE, max_examples=200)
@given(value=JSON, pattern=JSON)
def test_model_containment_matches_jsonb(pgflow_conn, value, pattern):
    got = pgflow_conn.execute(
        "select %s::jsonb @> %s::jsonb", (json.dumps(value), json.dumps(pattern))
    ).fetchone()
    assert got == (jsonb_contains(value, pattern),)
