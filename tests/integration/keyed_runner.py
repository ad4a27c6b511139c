"""Plays one scenario of the keyed-runs model property test (test_model_keyed_runs.py):
each operation goes to the SQL API (keyed_driver.py) and to the model (keyed_model.py),
and after every SQL call both must agree and the invariants hold (keyed_checks.py).

After the drawn operations the worker drains what is left: rounds that claim everything
visible; when nothing is, the tasks of crashed workers are reported late, a paused run is
resumed, or the tick runs (held messages, queued runs behind an expired one), until every
run has ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from hypothesis import event, note

from tests.integration.jsonb_model import dumps
from tests.integration.keyed_checks import check_held, check_invariants, compare_runs
from tests.integration.keyed_driver import KeyedDriver
from tests.integration.keyed_model import TERMINAL, Key3, KeyedModel
from tests.integration.keyed_scenarios import VERBS, KeyedScenario, Op
from tests.integration.wait_checks import normalize

MAX_DRAIN_ROUNDS = 100


class KeyedPlay:
    """One scenario played through SQL and the model side by side."""

    def __init__(self, conn: psycopg.Connection, slug: str, scenario: KeyedScenario) -> None:
        self.scenario = scenario
        self.driver = KeyedDriver(conn, slug, scenario)
        self.model = KeyedModel(
            scenario.flow,
            scenario.run_input,
            scenario.concurrency_limit,
            scenario.on_limit,
            scenario.max_in_flight,
        )
        self.calls: dict[Key3, int] = {}  # handler calls per task of a run
        self.in_flight: list[Key3] = []  # claimed tasks whose worker died before reporting

    # ------------------------------------------------------------ the frame of a call
    def sql_call(self, when: str, call: Callable[[], Any], tick: bool = False) -> Any:
        """Make a call (SQL, then the model) and check everything after it."""
        before = self.model.live_held()
        limited = self.scenario.max_in_flight
        started = self.model.started(limited[0]) if limited else set()
        result = call()
        freed = tick or bool(started - (self.model.started(limited[0]) if limited else set()))
        self.check(when, before, freed)
        return result

    def check(self, when: str, before: dict[Key3, int], freed: bool) -> None:
        snap = self.driver.snapshot()
        compare_runs(snap, self.model, when)
        check_invariants(snap, self.scenario, when)
        check_held(snap, self.model, before, freed, when)
        self.model.held = {k: (self.model.task(k).msg, db) for k, db in snap["hidden"].items()}

    # ------------------------------------------------------------ the operations
    def play(self) -> None:
        self.driver.define()
        for n, op in enumerate(self.scenario.ops):
            note(f"op {n}: {op!r}")
            self.apply(op, f"after op {n} ({op!r})")
        self.drain()
        for run in self.model.runs:
            event(f"a run {run.status}")
            assert run.status in TERMINAL, f"run #{run.number} {run.status} at the end"
        assert not self.driver.snapshot()["hidden"], "messages still held at the end"

    def apply(self, op: Op, when: str) -> None:
        runs = len(self.model.runs)
        if op.kind == "start":
            self.start(op, when)
        elif op.kind == "work":
            self.work(op, when)
        elif op.kind == "tick":
            self.tick(when)
        elif op.kind == "report":
            if self.in_flight:
                self.report(self.in_flight.pop(op.run % len(self.in_flight)), when)
        elif op.kind == "stall":
            self.stall(op.run, when)
        elif runs and op.kind == "deadline":
            number = op.run % runs
            self.driver.pass_deadline(number)
            self.model.runs[number].past_deadline = True
            event("a deadline passes" + ("" if op.tick else ", no tick"))
            if op.tick:
                self.tick(when)
        elif runs and op.kind in VERBS:
            # Mostly a run the verb applies to (if any), else any run.
            fits = [
                r.number for r in self.model.runs if self.model.refusal(op.kind, r.number) is None
            ]
            number = fits[op.run % len(fits)] if fits and op.run < 4 else op.run % runs
            self.control(op.kind, number, when)

    def start(self, op: Op, when: str) -> None:
        if self.model.start_refused(op.idem, op.key):
            event("start_flow: rejected")
            count = self.driver.run_count()
            with pytest.raises(
                psycopg.errors.ConfigurationLimitExceeded, match="concurrency limit"
            ):
                self.driver.start(op.idem, op.key, op.deadline)
            assert self.driver.run_count() == count, "a rejected start_flow wrote a run"
            self.check(when, self.model.live_held(), False)
            return
        result: dict[str, Any] = {}

        def both() -> None:
            result["got"] = self.driver.start(op.idem, op.key, op.deadline)
            result["want"] = self.model.start(op.idem, op.key)

        self.sql_call(when, both)
        outcome, number = result["want"]
        event(f"start_flow: {outcome}")
        want = (number, self.model.runs[number].status, outcome == "duplicate")
        assert result["got"] == want, f"start_flow returned (run #, status, duplicate) {result}"

    def control(self, verb: str, number: int, reason: str) -> None:
        status = self.model.runs[number].status
        refusal = self.model.refusal(verb, number)
        event(f"{verb}: {refusal or 'applied'}")
        if refusal is not None:
            error = (
                psycopg.errors.ObjectNotInPrerequisiteState
                if refusal == "illegal"
                else psycopg.errors.ConfigurationLimitExceeded
            )
            note(f"{verb}(#{number}) on a {status} run: must raise {error.__name__}")
            with pytest.raises(error, match=f"^{verb}: " if refusal == "illegal" else "limit"):
                self.driver.control(verb, number, reason)
            self.check(f"after a refused {verb} ({reason})", self.model.live_held(), False)
            return
        result: dict[str, Any] = {}

        def both() -> None:
            result["row"] = self.driver.control(verb, number, reason)
            result["reset"] = self.model.control(verb, number)

        self.sql_call(reason, both)
        row = result["row"]
        want = (self.driver.run_ids[number], self.model.runs[number].status, True, None)
        assert (str(row[0]), *row[1:]) == want, f"{verb} returned {row}"

    def tick(self, when: str) -> None:
        result: dict[str, Any] = {}

        def both() -> None:
            result.update(self.driver.tick())
            result["model"] = self.model.tick()

        self.sql_call(f"tick {when}", both, tick=True)
        want = result.pop("model")
        got = {k: v for k, v in result.items() if k != "fired_waits" and k != "released_tasks"}
        note(f"tick -> {got}")
        assert got == {"ran": True, **want.__dict__}, f"tick returned {got}, model {want}"
        if want.expired_runs:
            event("a run expired")
        if want.started_queued_runs:
            event("the tick started a queued run")

    def stall(self, pick: int, when: str) -> None:
        started = sorted(k for k, t in self._tasks() if t.status == "started")
        if started:
            key = started[pick % len(started)]
            self.driver.stall(key)
            self.model.stalled.add(key)
            event("a task stalls")
        self.tick(when)

    def _tasks(self) -> list[tuple[Key3, Any]]:
        return [((r.number, *k), t) for r in self.model.runs for k, t in r.tasks.items()]

    # ------------------------------------------------------------ the worker
    def work(self, op: Op, when: str) -> bool:
        """A worker round; returns whether it claimed anything."""
        visible = self.driver.read_visible()
        seen = self.model.visible()
        assert set(visible) == set(seen), f"visible tasks differ {when}"
        if not visible:
            return False
        order = {slug: rank for rank, slug in enumerate(self.scenario.priority)}
        claim = sorted(visible, key=lambda k: (order[k[1]], k[0], k[2]))
        claim = claim[: op.claim] if op.claim else claim
        items = [(k, seen[k], visible[k]) for k in claim]
        records: dict[Key3, Any] = {}

        def both() -> dict[Key3, tuple[Any, Any]]:
            records.update(self.driver.start_tasks([visible[k] for k in claim]))
            return self.model.claim(items)

        expected = self.sql_call(f"claim {when}", both)
        assert set(records) == set(expected), f"claimed tasks differ (read {claim}) {when}"
        for key, (want_input, want_flow_input) in expected.items():
            got_input, got_flow_input = records[key]
            assert dumps(normalize(got_input)) == dumps(want_input), f"input of {key}"
            assert dumps(got_flow_input) == dumps(want_flow_input), f"flow_input of {key}"
        if len(expected) < len(claim):
            event("a claim held tasks back")
        reports = list(expected)
        if op.crash and reports:
            self.in_flight.append(reports.pop())
            event("a worker crashes")
        for key in reports:
            self.report(key, when)
        return bool(expected)

    def report(self, key: Key3, when: str) -> None:
        """The task's handler ran (once more): report its outcome."""
        self.calls[key] = call = self.calls.get(key, 0) + 1
        outcome = self.scenario.outcomes[key[1]][key[2]]
        if call <= outcome.fails:
            error = f"boom {key} call {call}"
            self.sql_call(f"fail_task {key} {when}", lambda: self._fail(key, error))
        else:
            self.sql_call(
                f"complete_task {key} {when}", lambda: self._complete(key, outcome.output)
            )

    def _fail(self, key: Key3, error: str) -> None:
        self.driver.fail(key, error)
        self.model.fail(key, error)

    def _complete(self, key: Key3, output: Any) -> None:
        self.driver.complete(key, output)
        self.model.complete(key, output)

    def drain(self) -> None:
        """Work until every run has ended (see the module docstring)."""
        ticks = 0
        for n in range(MAX_DRAIN_ROUNDS):
            when = f"in drain round {n}"
            if self.work(Op("work"), when):
                ticks = 0
                continue
            if self.in_flight:
                self.report(self.in_flight.pop(0), f"late report {when}")
            elif paused := [r for r in self.model.runs if r.status == "paused"]:
                self.control("resume_run", paused[0].number, f"resumed {when}")
            elif ticks < 2 and any(r.status not in TERMINAL for r in self.model.runs):
                ticks += 1
                self.tick(when)
            else:
                return
        pytest.fail(f"runs still going after {MAX_DRAIN_ROUNDS} drain rounds")
