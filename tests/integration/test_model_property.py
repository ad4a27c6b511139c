"""Property-based tests: random flows driven through the SQL API agree with a pure model.

Hypothesis draws a flow (1-6 single and map steps, random dependencies, conditions,
max_attempts and when_exhausted), a run input, and for every task an outcome (fail N
times, then return a random JSON output). A simulated worker drives the run purely
through the SQL API (pgmq.read, start_tasks, complete_task, fail_task; message vt reset
to now before every read so backoff delays cost nothing) while the model in
flow_model.py applies the same calls. After every round the visible tasks must agree,
every claimed task must get the model's input, and at the end the run must be terminal
with the model's status and output, every step and task state must match, and the queue
must hold no message.

Budget: one database per test and a fresh flow per example (f_<n>); the examples run
derandomized by default (profile "pgflow-ci", reproducible). HYPOTHESIS_PROFILE=
pgflow-dev draws new random examples (and more of them) for local exploration.
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from psycopg import sql
from psycopg.rows import dict_row

from tests.integration.flow_model import (
    FlowSpec,
    Model,
    StepSpec,
    dumps,
    jsonb_contains,
)

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
MAX_MAP_TASKS = 3  # arrays feeding maps have at most this many elements
MAX_ROUNDS = 200

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
FAILS = st.sampled_from([0, 0, 0, 1, 2, 3])  # failures before the task succeeds


@dataclass(frozen=True)
class TaskOutcome:
    """What the simulated handler does: fail ``fails`` times, then return ``output``."""

    fails: int
    output: Any

    def __repr__(self) -> str:
        prefix = f"fail x{self.fails}, then " if self.fails else ""
        return f"{prefix}return {dumps(self.output)}"


@dataclass(frozen=True)
class Scenario:
    """A flow, a run input, the task outcomes and the order the worker claims tasks in."""

    flow: FlowSpec
    run_input: Any
    outcomes: dict[str, tuple[TaskOutcome, ...]]  # step slug -> outcome per task_index
    priority: tuple[str, ...]  # claim order: earlier slugs first, then by task_index
    batch: bool  # claim every visible task per round (else one task per round)
    duplicates: bool  # send every report twice (at-least-once delivery of reports)
    grouped: bool = False  # completions of a round in one complete_tasks call (group commit)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis prints falsifying examples with this

    def __repr__(self) -> str:
        lines = [
            "",
            f"create_flow(flow, max_attempts => {self.flow.max_attempts}, "
            f"base_delay => {self.flow.base_delay})",
            *(s.add_step_call() for s in self.flow.steps),
            f"start_flow(flow, '{dumps(self.run_input)}')",
            f"worker claims {'every visible task' if self.batch else 'one task'} per round, "
            f"steps by priority {' > '.join(self.priority)}"
            + (", every report sent twice" if self.duplicates else "")
            + (", completions of a round in one complete_tasks call" if self.grouped else ""),
        ]
        for s in self.flow.steps:
            count = MAX_MAP_TASKS if s.kind == "map" else 1
            for i, outcome in enumerate(self.outcomes[s.slug][:count]):
                lines.append(f"  {s.slug}[{i}]: {outcome!r}")
        return "\n".join(lines)


def _feeds_map(steps: list[StepSpec], slug: str) -> bool:
    return any(s.kind == "map" and s.deps == (slug,) for s in steps)


@st.composite
def scenarios(draw: st.DrawFn, grouped: bool = False) -> Scenario:
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
    return Scenario(
        flow,
        run_input,
        outcomes,
        priority,
        batch=grouped or draw(st.booleans()),  # grouping needs several tasks per round
        duplicates=draw(st.booleans()),
        grouped=grouped,
    )


# ---------------------------------------------------------------- the simulated worker


class Driver:
    """Creates the scenario's flow and drives one run through the SQL API."""

    def __init__(self, conn: psycopg.Connection, slug: str, scenario: Scenario) -> None:
        self.conn, self.slug, self.scenario = conn, slug, scenario
        self.worker_id = uuid.uuid4()
        self.run_id: str | None = None
        #: completed_at values complete_task returned per task (one = completed once)
        self.completions: dict[tuple[str, int], set[Any]] = {}

    def define(self) -> None:
        flow = self.scenario.flow
        self.conn.execute(
            "select pgflow.create_flow(%s, max_attempts => %s, base_delay => %s)",
            (self.slug, flow.max_attempts, flow.base_delay),
        )
        for s in flow.steps:
            self.conn.execute(
                "select pgflow.add_step(%s, %s, %s, max_attempts => %s, base_delay => %s,"
                " start_delay => %s, step_type => %s, required_input_pattern => %s::jsonb,"
                " forbidden_input_pattern => %s::jsonb, when_unmet => %s, when_exhausted => %s)",
                (
                    self.slug,
                    s.slug,
                    list(s.deps),
                    s.max_attempts,
                    s.base_delay,
                    s.start_delay,
                    s.kind,
                    None if s.required is None else json.dumps(s.required),
                    None if s.forbidden is None else json.dumps(s.forbidden),
                    s.when_unmet,
                    s.when_exhausted,
                ),
            )
        self.conn.execute(
            "select pgflow.register_worker(%s, %s, 'property-test')", (self.worker_id, self.slug)
        )

    def start(self) -> None:
        row = self.conn.execute(
            "select run_id from pgflow.start_flow(%s, %s::jsonb)",
            (self.slug, json.dumps(self.scenario.run_input)),
        ).fetchone()
        assert row is not None
        self.run_id = str(row[0])

    def read_visible(self) -> dict[tuple[str, int], int]:
        """Make every message visible now, read them all: (step, task_index) -> msg_id."""
        self.conn.execute(
            sql.SQL("update pgmq.{} set vt = clock_timestamp() - interval '1 second'").format(
                sql.Identifier(f"q_{self.slug}")
            )
        )
        rows = self.conn.execute(
            "select msg_id, message from pgmq.read(%s, 30, 1000)", (self.slug,)
        ).fetchall()
        visible = {}
        for msg_id, message in rows:
            assert message["run_id"] == self.run_id
            key = (message["step_slug"], message["task_index"])
            assert key not in visible, f"two visible messages for task {key}"
            visible[key] = msg_id
        return visible

    def start_tasks(self, msg_ids: list[int]) -> dict[tuple[str, int], tuple[Any, Any]]:
        rows = self.conn.execute(
            "select step_slug, task_index, input, flow_input"
            " from pgflow.start_tasks(%s, %s::bigint[], %s)",
            (self.slug, msg_ids, self.worker_id),
        ).fetchall()
        return {
            (step, index): (task_input, flow_input) for step, index, task_input, flow_input in rows
        }

    def complete(self, key: tuple[str, int], output: Any) -> None:
        row = self.conn.execute(
            "select completed_at from pgflow.complete_task(%s::uuid, %s, %s, %s::jsonb)",
            (self.run_id, key[0], key[1], json.dumps(output)),
        ).fetchone()
        if row is not None and row[0] is not None:
            self.completions.setdefault(key, set()).add(row[0])

    def complete_many(self, items: list[tuple[tuple[str, int], Any]]) -> None:
        """Report several outputs in one pgflow.complete_tasks call, in list order."""
        rows = self.conn.execute(
            "select step_slug, task_index, status"
            " from pgflow.complete_tasks(%s::uuid[], %s::text[], %s::int[], %s::jsonb[])",
            (
                [self.run_id] * len(items),
                [key[0] for key, _ in items],
                [key[1] for key, _ in items],
                [json.dumps(output) for _, output in items],
            ),
        ).fetchall()
        assert [(r[0], r[1]) for r in rows] == [key for key, _ in items], "one row per item"

    def fail(self, key: tuple[str, int], error: str) -> None:
        self.conn.execute(
            "select pgflow.fail_task(%s::uuid, %s, %s, %s)", (self.run_id, key[0], key[1], error)
        )

    def state(self) -> dict[str, Any]:
        with self.conn.cursor(row_factory=dict_row) as cur:
            run = cur.execute(
                "select * from pgflow.runs where run_id = %s", (self.run_id,)
            ).fetchone()
            steps = cur.execute(
                "select * from pgflow.step_states where run_id = %s", (self.run_id,)
            ).fetchall()
            tasks = cur.execute(
                "select * from pgflow.step_tasks where run_id = %s", (self.run_id,)
            ).fetchall()
            queued = cur.execute(
                sql.SQL("select count(*) as n from pgmq.{}").format(
                    sql.Identifier(f"q_{self.slug}")
                )
            ).fetchone()
        return {
            "run": run,
            "steps": {r["step_slug"]: r for r in steps},
            "tasks": {(r["step_slug"], r["task_index"]): r for r in tasks},
            "messages": queued["n"] if queued else 0,
        }


def run_scenario(conn: psycopg.Connection, slug: str, scenario: Scenario) -> None:
    """Drive the scenario through SQL and the model side by side; assert they agree."""
    driver = Driver(conn, slug, scenario)
    driver.define()
    model = Model(scenario.flow, scenario.run_input)
    expected_error = model.start()
    if expected_error is not None:
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="not an array"):
            driver.start()
        count = conn.execute("select count(*) from pgflow.runs where flow_slug = %s", (slug,))
        assert count.fetchone() == (0,), "a rejected start_flow wrote a run"
        event("start_flow rejected the input")
        return
    driver.start()
    order = {slug: rank for rank, slug in enumerate(scenario.priority)}

    def claim_key(key: tuple[str, int]) -> tuple[int, int]:
        return order[key[0]], key[1]

    for round_no in range(MAX_ROUNDS):
        visible = driver.read_visible()
        assert set(visible) == model.visible(), f"round {round_no}: visible tasks differ"
        if not visible:
            break
        claim = sorted(visible, key=claim_key)
        if not scenario.batch:
            claim = claim[:1]
        records = driver.start_tasks([visible[k] for k in claim])
        expected = {k: r for k in claim if (r := model.start_task(k)) is not None}
        assert set(records) == set(expected), f"round {round_no}: claimed tasks differ"
        for key in claim:
            got_input, got_flow_input = records[key]
            want_input, want_flow_input = expected[key]
            assert dumps(got_input) == dumps(want_input), f"input of {key}"
            assert dumps(got_flow_input) == dumps(want_flow_input), f"flow_input of {key}"
        grouped: list[tuple[tuple[str, int], Any]] = []
        for key in claim:
            outcome = scenario.outcomes[key[0]][key[1]]
            attempt = model.tasks[key].attempts
            for _ in range(2 if scenario.duplicates else 1):
                if attempt <= outcome.fails:
                    error = f"boom {key[0]}[{key[1]}] attempt {attempt}"
                    note(f"fail_task {key} attempt {attempt}")
                    driver.fail(key, error)
                    model.fail(key, error)
                elif scenario.grouped:
                    grouped.append((key, outcome.output))
                else:
                    note(f"complete_task {key} -> {dumps(outcome.output)}")
                    driver.complete(key, outcome.output)
                    model.complete(key, outcome.output)
        if grouped:
            # complete_tasks = complete_task per item in array order, in one transaction.
            note(f"complete_tasks {[(k, dumps(o)) for k, o in grouped]}")
            driver.complete_many(grouped)
            for key, output in grouped:
                model.complete(key, output)
    else:
        pytest.fail(f"run still had visible tasks after {MAX_ROUNDS} rounds")

    compare_final_state(driver.state(), model)
    for key, times in driver.completions.items():
        assert len(times) == 1, f"task {key} completed more than once: {sorted(times)}"
    event(f"run {model.status}")
    event(f"tasks: {min(len(model.tasks), 10)}")
    for state in model.states.values():
        event(f"a step {state.status}" + (f" ({state.skip_reason})" if state.skip_reason else ""))
        if state.status == "failed":
            event(f"a step failed: {(state.error_message or '').split(' ')[0]}")


def compare_final_state(db: dict[str, Any], model: Model) -> None:
    run = db["run"]
    assert model.status in ("completed", "failed"), f"model run stuck in {model.status}"
    assert run["status"] == model.status, "run status"
    assert dumps(run["output"]) == dumps(model.output), "run output"
    assert run["remaining_steps"] == model.remaining_steps, "run remaining_steps"
    for slug, want in model.states.items():
        got = db["steps"][slug]
        assert got["status"] == want.status, f"status of step {slug}"
        assert got["skip_reason"] == want.skip_reason, f"skip_reason of step {slug}"
        assert got["error_message"] == want.error_message, f"error_message of step {slug}"
        assert got["initial_tasks"] == want.initial_tasks, f"initial_tasks of step {slug}"
        assert got["remaining_tasks"] == want.remaining_tasks, f"remaining_tasks of step {slug}"
        if want.status == "completed":
            assert dumps(got["output"]) == dumps(want.output), f"output of step {slug}"
        else:
            assert got["output"] is None, f"output of step {slug} (not completed)"
    assert set(db["tasks"]) == set(model.tasks), "task rows"
    for key, want_task in model.tasks.items():
        got_task = db["tasks"][key]
        assert got_task["status"] == want_task.status, f"status of task {key}"
        assert got_task["attempts_count"] == want_task.attempts, f"attempts of task {key}"
        assert got_task["error_message"] == want_task.error_message, f"error of task {key}"
        if want_task.status in ("completed", "failed") and want_task.output is not None:
            assert dumps(got_task["output"]) == dumps(want_task.output), f"output of task {key}"
    assert not model.visible(), "model left a visible task in a terminal run"
    assert db["messages"] == 0, "messages left in the queue of a finished run"


# ---------------------------------------------------------------- the tests

_flow_numbers = itertools.count(1)


@settings(PROFILE)
@given(scenario=scenarios())
def test_random_flows_agree_with_the_model(pgflow_conn, scenario):
    slug = f"f_{next(_flow_numbers)}"
    note(f"flow slug {slug}")
    try:
        run_scenario(pgflow_conn, slug, scenario)
    finally:
        pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (slug,))


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
