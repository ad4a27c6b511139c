"""What the model property tests check about waits and signals (#13): the database agrees
with the model (signals, wait_states, get_step_signal), and the invariants hold whatever
the model says (a waiting step holds no task and no message, a finished run nothing live,
a signal is pending or taken by exactly one step, a wait has at most one outcome)."""

from __future__ import annotations

from typing import Any

from tests.integration.jsonb_model import dumps
from tests.integration.wait_model import TIMER_OUTPUT, WaitModel

#: the event that records each outcome of a wait (abandoned records none)
OUTCOME_EVENTS = {
    "signal": "signal:taken",
    "timed_out": "wait:timed_out",
    "due": "timer:fired",
    "unreadable": "timer:fired",
}


def normalize(value: Any) -> Any:
    """A JSON value from the database with every fired timer's output (two timestamps) as
    the model holds it (:data:`TIMER_OUTPUT`); drawn values never have those keys."""
    if isinstance(value, dict):
        if set(value) == set(TIMER_OUTPUT) and all(isinstance(v, str) for v in value.values()):
            return dict(TIMER_OUTPUT)
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def compare_waits(wdb: dict[str, Any], model: WaitModel, when: str) -> None:
    """The run's signals, waits and what get_step_signal says are as the model says."""
    ids = [s["signal_id"] for s in wdb["signals"]]
    got = [
        (
            s["signal_name"],
            dumps(s["payload"]),
            s["idempotency_key"],
            s["status"],
            s["taken_by_step"],
        )
        for s in wdb["signals"]
    ]
    want = [(s.name, dumps(s.payload), s.key, s.status, s.taken_by) for s in model.signals]
    assert got == want, f"signals (name, payload, key, status, taken by) {when}"
    assert set(wdb["waits"]) == set(model.waits), f"steps with a wait_states row {when}"
    for slug, wait in model.waits.items():
        row = wdb["waits"][slug]
        assert row["outcome"] == wait.outcome, f"outcome of the wait of {slug} {when}"
        assert (row["resolved_at"] is None) == (wait.outcome is None), f"resolved {slug} {when}"
        signal_id = None if wait.signal is None else ids[wait.signal]
        assert row["signal_id"] == signal_id, f"signal taken by the wait of {slug} {when}"
        assert row["error_message"] == wait.error, f"error of the wait of {slug} {when}"
        if wait.deadline in ("none", "unreadable"):
            assert row["deadline"] is None, f"deadline of the wait of {slug} {when}"
        else:
            assert row["passed"] == (wait.deadline == "past"), f"deadline of {slug} {when}"
        if wait.due_at is not None:
            assert row["deadline"] == wait.due_at, f"due time of the timer {slug} {when}"
    for step in model.flow.steps:
        if step.wait is None or step.wait.kind != "signal":
            continue
        last = model.waits.get(step.slug)
        row = wdb["step_signals"].get(step.slug)
        name = step.wait.signal_name
        if last is None or last.outcome not in ("signal", "timed_out"):
            assert row is None, f"get_step_signal of {step.slug} (no signal yet) {when}"
            continue
        assert row is not None, f"get_step_signal of {step.slug} {when}"
        got_signal = (row["signal_id"], row["signal_name"], dumps(row["payload"]), row["timed_out"])
        if last.outcome == "signal":
            assert last.signal is not None
            payload = dumps(model.signals[last.signal].payload)
            assert got_signal == (ids[last.signal], name, payload, False), f"{step.slug} {when}"
        else:
            assert got_signal == (None, name, "null", True), f"get_step_signal {step.slug} {when}"


def check_invariants(db: dict[str, Any], wdb: dict[str, Any] | None, when: str) -> None:
    """What must hold in any case, read from the database alone (``wdb`` None: a flow
    without waits)."""
    if db["run"]["status"] in ("completed", "failed", "cancelled"):
        live = [k for k, t in db["tasks"].items() if t["status"] in ("queued", "started")]
        assert not live, f"live tasks {live} of a {db['run']['status']} run {when}"
        assert not db["queue"], f"messages of a {db['run']['status']} run {when}"
    if wdb is None:
        return
    for hold in wdb["holds"]:
        assert (hold["tasks"], hold["messages"]) == (0, 0), f"waiting {hold['step_slug']} {when}"
    taken_events = [e for e in wdb["events"] if e["event"] == "signal:taken"]
    for signal in wdb["signals"]:
        takes = [e for e in taken_events if e["details"]["signal_id"] == signal["signal_id"]]
        if signal["status"] == "pending":
            assert not takes and signal["taken_by_step"] is None, f"pending signal taken {when}"
        else:
            assert signal["status"] == "taken", f"signal status {signal['status']} {when}"
            steps = [e["step_slug"] for e in takes]
            assert steps == [signal["taken_by_step"]], f"signal taken by {steps} {when}"
    resolutions = set(OUTCOME_EVENTS.values())
    for slug in {e["step_slug"] for e in wdb["events"] if e["step_slug"]} | set(wdb["waits"]):
        lives: list[list[str]] = []  # per time the step waited: the outcome events
        for e in wdb["events"]:
            if e["step_slug"] != slug:
                continue
            if e["event"] == "step:waiting":
                lives.append([])
            elif e["event"] in resolutions:
                assert lives, f"{e['event']} of {slug} before it waited {when}"
                lives[-1].append(e["event"])
        assert all(len(outcomes) <= 1 for outcomes in lives), f"two outcomes {slug} {when}"
        assert bool(lives) == (slug in wdb["waits"]), f"step:waiting events of {slug} {when}"
        if lives:
            outcome = wdb["waits"][slug]["outcome"]
            want = [OUTCOME_EVENTS[outcome]] if outcome in OUTCOME_EVENTS else []
            assert lives[-1] == want, f"the events of {slug}'s last wait ({outcome}) {when}"
    for timer in wdb["timers"]:
        assert timer["due_ok"] and timer["fired_ok"], f"output of timer {timer['step_slug']} {when}"
