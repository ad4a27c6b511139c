"""What the outside world does to a run's waits in the model property tests (#13): send a
signal, let a wait's deadline pass and tick, tick; and, when nothing else would move a run
that waits, end its first wait. Each goes through SQL and the model, then both must
agree (the ``check`` callback)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from hypothesis import event, note

from tests.integration.flow_spec import StepSpec
from tests.integration.jsonb_model import dumps
from tests.integration.model_driver import ACTOR, Driver
from tests.integration.model_scenarios import Control, SignalDraw
from tests.integration.wait_driver import WaitDriver
from tests.integration.wait_model import WaitModel

WAIT_VERBS = ("send_signal", "time_passes", "tick")


def release_payload(step: StepSpec, output: Any) -> Any:
    """The payload that ends ``step``'s wait when nothing else does: ``output`` (what its
    handler would return), made to contain the wait's match."""
    assert step.wait is not None
    match = step.wait.match
    if match is None:
        return output
    return {**output, **match} if isinstance(output, dict) else match


class WaitActions:
    """Signals, time and ticks for one run, through SQL and the model side by side."""

    def __init__(
        self,
        driver: Driver,
        model: WaitModel,
        outputs: dict[str, Any],
        check: Callable[[str], None],
    ) -> None:
        assert driver.run_id is not None
        self.driver, self.model, self.outputs, self.check = driver, model, outputs, check
        self.sql = WaitDriver(driver.conn, driver.slug, driver.run_id, ACTOR)

    def call(self, control: Control) -> None:
        """Make a drawn call (send_signal, time_passes or tick)."""
        if control.verb == "send_signal":
            assert control.signal is not None
            self.send(control.signal)
        elif control.verb == "time_passes":
            assert isinstance(control.step, int)
            self.time_passes(control.step)
        else:
            self.tick()

    def send(self, signal: SignalDraw) -> None:
        driver, model = self.driver, self.model
        status = model.status
        outcome, index = model.send_signal(signal.name, signal.payload, signal.key)
        if outcome == "refused":
            note(f"send_signal({signal!r}) to a {status} run: must raise 55000")
            event("send_signal refused")
            before = (driver.state(), self.sql.state())
            message = f"^send_signal: run {driver.run_id} is {status}\n"
            with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match=message):
                self.sql.send_signal(signal)
            assert (driver.state(), self.sql.state()) == before, "a refused signal wrote"
            return
        assert index is not None
        last_event = driver.last_event_id()
        row = self.sql.send_signal(signal)
        want = model.signals[index]
        note(f"send_signal({signal!r}) -> {outcome}, {want.status} {want.taken_by or ''}")
        event(f"send_signal: {outcome}, {want.status} ({status} run)")
        got = (row["signal_name"], dumps(row["payload"]), row["idempotency_key"], row["status"])
        assert got == (want.name, dumps(want.payload), want.key, want.status), "signal returned"
        assert row["taken_by_step"] == want.taken_by, "the step send_signal says took it"
        assert row["duplicate"] == (outcome == "duplicate"), "duplicate flag"
        recorded = "signal:duplicate" if outcome == "duplicate" else "signal:received"
        assert (recorded, None, ACTOR) in driver.events_since(last_event), f"{recorded} event"
        self.check(f"after send_signal({signal!r})")

    def time_passes(self, n: int) -> None:
        """The n-th (modulo) unresolved wait with a deadline passes it; then tick."""
        slugs = self.model.deadline_waits()
        assert self.sql.deadline_waits() == slugs, "unresolved waits with a deadline"
        if slugs:
            slug = slugs[n % len(slugs)]
            note(f"time passes for the wait of {slug}")
            self.sql.pass_deadline(slug)
            self.model.time_passes(slug)
        self.tick()

    def tick(self) -> None:
        fired = self.model.tick()
        note(f"tick -> {fired} fired")
        event(f"tick fired {fired}")
        assert self.sql.tick() == (True, fired, 0), "tick: (ran, fired_waits, requeued_tasks)"
        self.check("after tick")

    def unblock(self) -> bool:
        """A started run with nothing else to do that waits: its first waiting step's wait
        ends, by its deadline passing (if it has one) or by a signal it takes. False when
        the run does not wait."""
        if self.model.status != "started":
            return False
        waiting = [
            s for s in self.model.flow.steps if self.model.states[s.slug].status == "waiting"
        ]
        if not waiting:
            return False
        step = waiting[0]
        assert step.wait is not None
        deadlines = self.model.deadline_waits()
        if step.slug in deadlines:
            self.time_passes(deadlines.index(step.slug))
        else:
            assert step.wait.signal_name is not None
            payload = release_payload(step, self.outputs[step.slug])
            self.send(SignalDraw(step.wait.signal_name, payload))
        return True
