"""Property-based test of keyed starts, concurrency limits, deadlines and max_in_flight
(#14): several runs of a random flow, driven through the SQL API, agree with a pure model.

Hypothesis draws a flow of the model property tests (model_strategies.scenarios, at most
four steps) with a concurrency_limit (1-3), on_limit (queue or reject), maybe a
run_timeout and maybe a max_in_flight (1-3) on one step, and a sequence of operations
(keyed_strategies.py): start_flow with an idempotency key and a concurrency key from
small pools (or none), worker rounds (read, claim, report success or failure as each
task's drawn outcome says; a worker may die before reporting), cancel_run, pause_run,
resume_run and retry_run of a drawn run, a run's deadline passing (then the tick, or
not yet), a started task stalling (then the tick requeues it), a late report of a dead
worker's task, and ticks. The worker resets the visibility of every message but the ones
max_in_flight holds back before it reads.

The model (keyed_model.py, on run_control_model.py) predicts for every start whether it
returns an existing run (duplicate), creates one started or queued, or is refused (53400,
nothing written); every run's status, steps and tasks; which queued runs start as slots
free (start order); which verbs raise (55000; retry_run 53400 without a free slot); what
the tick returns (runs expired, queued runs started by its safety net, tasks requeued);
which claimed tasks start and which are held back. After every SQL call
(keyed_checks.py) each run must agree with the model, held messages must follow the
release rules, and the invariants of #14 must hold from the database alone: never more
than concurrency_limit runs of a key started or paused; no queued run (its deadline not
passed: one past it is left for the tick) while its key has a free slot; never more
than max_in_flight tasks of the limited step started; one run per idempotency key; an
ended (expired included) run holds no queued or started task and no message; a queued
run has no task. After the operations the worker drains what is left and every run must
end. keyed_scenarios.py adds hand-written scenarios that every run plays.

Budget: one database for the test and a fresh flow per example (k_<n>), derandomized
(profile "pgflow-ci", as test_model_property.py); HYPOTHESIS_PROFILE=pgflow-dev draws new
random examples for local exploration.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from hypothesis import example, given, note, settings

from tests.integration.keyed_runner import KeyedPlay
from tests.integration.keyed_scenarios import KEYED_EXAMPLES, KeyedScenario
from tests.integration.keyed_strategies import keyed_scenarios
from tests.integration.test_model_property import PROFILE

pytestmark = pytest.mark.property

_flow_numbers = itertools.count(1)


def with_examples(*examples: KeyedScenario) -> Callable[[Any], Any]:
    """Decorator: the test plays these scenarios too (before the drawn ones)."""

    def decorate(test: Any) -> Any:
        for scenario in reversed(examples):
            test = example(scenario=scenario)(test)
        return test

    return decorate


@with_examples(*KEYED_EXAMPLES)
@settings(PROFILE, max_examples=200)
@given(scenario=keyed_scenarios())
def test_keyed_runs_agree_with_the_model(
    pgflow_conn: psycopg.Connection, scenario: KeyedScenario
) -> None:
    slug = f"k_{next(_flow_numbers)}"
    note(f"flow slug {slug}")
    try:
        KeyedPlay(pgflow_conn, slug, scenario).play()
    finally:
        pgflow_conn.execute("select pgflow.delete_flow_and_data(%s)", (slug,))
