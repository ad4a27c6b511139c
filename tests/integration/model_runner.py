"""Plays one scenario of the model property tests (test_model_property.py): a simulated
worker drives the run through the SQL API, an operator makes run-control calls and the
outside world sends signals and lets time pass (wait_actions.py) at numbered points, while
the model (wait_model.py, on run_control_model.py and flow_model.py) applies the same
calls; both must agree throughout.

Points are numbered in the order the worker passes them: before each read, between a read
and its claim, after the claim (while the handlers run), after each report call. When
nothing is visible the next drawn calls are made at once; a run still paused after the
last one is resumed, and a run that only waits has its first wait ended (by its deadline
passing if it has one, else by a signal it takes).
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from hypothesis import event, note

from tests.integration.flow_model import Key
from tests.integration.jsonb_model import dumps
from tests.integration.model_driver import ACTOR, VERB_EVENTS, Driver
from tests.integration.model_scenarios import Scenario
from tests.integration.wait_actions import WAIT_VERBS, WaitActions
from tests.integration.wait_checks import check_invariants, compare_waits, normalize
from tests.integration.wait_model import WaitModel

MAX_ROUNDS = 200


class Operator:
    """Makes the scenario's calls at their points, through SQL and the model: run-control
    verbs itself, calls about waits through :class:`WaitActions`."""

    def __init__(self, driver: Driver, model: WaitModel, scenario: Scenario):
        self.driver, self.model = driver, model
        self.pending = list(scenario.controls)
        self.point = 0
        outputs = {slug: outcomes[0].output for slug, outcomes in scenario.outcomes.items()}
        self.waits = WaitActions(driver, model, outputs, self.check)

    def at_point(self) -> None:
        """The worker passes the next point: the calls drawn for it are made."""
        while self.pending and self.pending[0].point <= self.point:
            control = self.pending.pop(0)
            if control.verb in WAIT_VERBS:
                self.waits.call(control)
                continue
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
        self.check(f"after {verb}")

    def check(self, when: str) -> None:
        """The database agrees with the model, and the invariants hold."""
        db, wdb = self.driver.state(), None
        compare_state(db, self.model, when)
        if any(s.wait for s in self.model.flow.steps):  # (else there is nothing to read)
            wdb = self.waits.sql.state()
            compare_waits(wdb, self.model, when)
        check_invariants(db, wdb, when)


# ---------------------------------------------------------------- the simulated worker


def run_scenario(conn: psycopg.Connection, slug: str, scenario: Scenario) -> None:
    """Drive the scenario through SQL and the model side by side; assert they agree."""
    driver = Driver(conn, slug, scenario.flow)
    driver.define()
    model = WaitModel(scenario.flow, scenario.run_input)
    expected_error = model.start()
    if expected_error is not None:
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="not an array"):
            driver.start(scenario.run_input)
        count = conn.execute("select count(*) from pgflow.runs where flow_slug = %s", (slug,))
        assert count.fetchone() == (0,), "a rejected start_flow wrote a run"
        event("start_flow rejected the input")
        return
    driver.start(scenario.run_input)
    operator = Operator(driver, model, scenario)
    if any(s.wait for s in scenario.flow.steps):
        operator.check("after start_flow")
    for round_no in range(MAX_ROUNDS):
        operator.at_point()
        visible = driver.read_visible()
        seen = model.visible()  # task -> the message the model says was read
        assert set(visible) == set(seen), f"round {round_no}: visible tasks differ"
        if not visible:
            if operator.skip_ahead():
                continue
            if model.status == "paused":
                operator.call("resume_run", None, "resumed at the end")
                continue
            if operator.waits.unblock():
                continue
            break
        operator.at_point()
        work_round(driver, model, operator, scenario, visible, seen)
    else:
        pytest.fail(f"run still had visible tasks after {MAX_ROUNDS} rounds")

    db = driver.state()
    assert model.status in ("completed", "failed", "cancelled"), f"model run {model.status}"
    operator.check("at the end")
    assert not db["queue"], "messages left in the queue of a finished run"
    for key, times in driver.completions.items():
        assert len(times) == 1, f"task {key} completed more than once: {sorted(times)}"
    record_events(model)


def record_events(model: WaitModel) -> None:
    """Statistics of what the examples reached (hypothesis --hypothesis-show-statistics)."""
    event(f"run {model.status}")
    event(f"tasks: {min(len(model.tasks), 10)}")
    for state in model.states.values():
        event(f"a step {state.status}" + (f" ({state.skip_reason})" if state.skip_reason else ""))
        if state.status == "failed":
            event(f"a step failed: {(state.error_message or '').split(' ')[0]}")
    for slug, wait in model.waits.items():
        spec = model.flow.step(slug).wait
        assert spec is not None
        detail = "" if spec.kind == "timer" else f", on_timeout {spec.on_timeout}"
        event(f"a {spec.kind} wait: {wait.outcome}{detail}")
    for signal in model.signals:
        event(f"a signal {signal.status}")


def work_round(
    driver: Driver,
    model: WaitModel,
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
        assert dumps(normalize(got_input)) == dumps(want_input), f"input of {key}"
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


def compare_state(db: dict[str, Any], model: WaitModel, when: str) -> None:
    """The run, its steps, tasks and queue are as the model says."""
    run = db["run"]
    assert run["status"] == model.status, f"run status {when}"
    assert dumps(normalize(run["output"])) == dumps(model.output), f"run output {when}"
    assert run["remaining_steps"] == model.remaining_steps, f"run remaining_steps {when}"
    for slug, want in model.states.items():
        got = db["steps"][slug]
        for name in ("status", "skip_reason", "error_message", "remaining_deps"):
            assert got[name] == getattr(want, name), f"{name} of step {slug} {when}"
        assert got["initial_tasks"] == want.initial_tasks, f"initial_tasks of step {slug} {when}"
        assert got["remaining_tasks"] == want.remaining_tasks, f"remaining_tasks of {slug} {when}"
        if want.status == "completed":
            output = dumps(normalize(got["output"]))
            assert output == dumps(want.output), f"output of step {slug} {when}"
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
