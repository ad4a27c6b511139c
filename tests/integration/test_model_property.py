"""Property-based tests: random flows driven through the SQL API agree with a pure model.

Hypothesis draws a flow (1-6 single and map steps, random dependencies, conditions,
max_attempts and when_exhausted), a run input, for every task an outcome (the first N
calls of its handler fail, later ones return a random JSON output) and up to four
run-control calls of an operator (cancel_run, pause_run, resume_run, retry_run,
skip_step), each at a numbered point of the worker's sequence (model_strategies.py). A
simulated worker drives the run purely through the SQL API (pgmq.read, start_tasks,
complete_task, fail_task; message vt reset to now before every read so backoff delays cost
nothing) while the model in flow_model.py and run_control_model.py applies the same calls
(model_runner.py). After every round the visible tasks must agree and every claimed task
must get the model's input. A verb the model says is illegal must raise SQLSTATE 55000 and
change nothing; a legal one must return the model's run status, record its event and leave
the run, its steps, tasks and queue as the model says. At the end the run must be terminal
with the model's status and output, every step and task state must match, and the queue
must hold no message. model_scenarios.py adds hand-written scenarios that every run plays
(run-control cases random draws reach rarely).

Waits (#13): in the third test half of the single steps wait, for a signal (with or without
a handler, a match, a timeout and each on_timeout) or as timers (0 seconds, an hour, a
timestamp from the run input), and the outside world sends signals (to a name the flow
waits for or a stray one, payloads that match or not, repeated idempotency keys, to paused
and finished runs), lets a wait's deadline pass (then ticks) and ticks, at drawn points;
a run left waiting has its waits ended one by one. wait_model.py predicts step statuses,
which signal each wait takes, the signals' statuses, outputs, on_timeout outcomes and tick's
result; wait_checks.py compares and checks the invariants (a waiting step holds no task and
no message, a finished run nothing live, each signal pending or taken by exactly one step,
no wait with two outcomes) after every call. wait_scenarios.py adds hand-written ones.

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
from hypothesis import HealthCheck, example, given, note, settings

from tests.integration.jsonb_model import jsonb_contains
from tests.integration.model_runner import run_scenario
from tests.integration.model_scenarios import EXAMPLES, Scenario
from tests.integration.model_strategies import JSON, scenarios
from tests.integration.wait_scenarios import WAIT_EXAMPLES

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


@with_examples(*WAIT_EXAMPLES)
@settings(PROFILE, max_examples=120)
@given(scenario=scenarios(waits=True))
def test_random_flows_with_waits_and_signals_agree_with_the_model(
    pgflow_conn: psycopg.Connection, scenario: Scenario
) -> None:
    slug = f"w_{next(_flow_numbers)}"
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
