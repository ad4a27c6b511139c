"""Hand-written scenarios with waits (#13) that every run of the model property tests plays
(cases random draws reach rarely). Points as in model_scenarios.py; a round that finds
nothing visible makes the next drawn calls at once, and a run that only waits has its first
wait ended (by its deadline passing if it has one, else by a signal)."""

from __future__ import annotations

from typing import Any

from tests.integration.flow_spec import FlowSpec, StepSpec, WaitSpec
from tests.integration.model_scenarios import Control, Scenario, SignalDraw, TaskOutcome


def _wait(name: str, **options: Any) -> WaitSpec:
    return WaitSpec("signal", signal_name=name, **options)


def _send(point: int, name: str, payload: Any, key: str | None = None) -> Control:
    return Control(point, "send_signal", signal=SignalDraw(name, payload, key))


def _passes(point: int, n: int = 0) -> Control:
    return Control(point, "time_passes", n)


def _scenario(steps: tuple[StepSpec, ...], run_input: Any, *controls: Control) -> Scenario:
    """Every handler returns {"step": <slug>} at once; the worker claims all it sees."""
    return Scenario(
        flow=FlowSpec(max_attempts=1, base_delay=0, steps=steps),
        run_input=run_input,
        outcomes={s.slug: (TaskOutcome(0, {"step": s.slug}),) * 3 for s in steps},
        priority=tuple(s.slug for s in steps),
        batch=True,
        duplicates=False,
        controls=controls,
    )


#: Signals sent before the step waits are buffered; the oldest is taken, the second stays
#: pending; a repeated key is a duplicate (also once the run is completed); a signal to the
#: completed run without a key is refused.
BUFFERED = _scenario(
    (
        StepSpec("s0", "single"),
        StepSpec("s1", "single", deps=("s0",), wait=_wait("approved", runs_handler=False)),
    ),
    {"a": 1},
    _send(0, "approved", {"n": 1}, key="k1"),
    _send(0, "approved", {"n": 2}),
    _send(0, "approved", {"n": 3}, key="k1"),
    _send(0, "stray", None, key=" "),
    _send(9, "approved", {"n": 4}, key="k1"),
    _send(9, "approved", {"n": 5}),
)

#: Signals stored while paused are taken on resume, in step order and oldest matching
#: first: s0 (match {"a": 1}) takes the second one, s1 (any payload) the first.
MATCH_IN_STEP_ORDER = _scenario(
    (
        StepSpec("s0", "single", wait=_wait("approved", match={"a": 1}, runs_handler=False)),
        StepSpec("s1", "single", wait=_wait("approved", runs_handler=False)),
        StepSpec("s2", "single", deps=("s0", "s1")),
    ),
    None,
    Control(0, "pause_run"),
    _send(0, "approved", {"b": 1}),
    _send(0, "approved", {"a": 1, "c": []}),
    Control(0, "resume_run"),
)

#: Every on_timeout (and when_exhausted skip of a timeout that fails): skip, skip-cascade
#: (its dependent s5 is skipped too), continue without a handler (output null) and with
#: one (the handler runs), fail.
TIMEOUTS = _scenario(
    (
        StepSpec("s0", "single", wait=_wait("approved", timeout=3600, on_timeout="skip")),
        StepSpec("s1", "single", wait=_wait("approved", timeout=60, on_timeout="skip-cascade")),
        StepSpec(
            "s2",
            "single",
            wait=_wait("shipped", timeout=86400, on_timeout="continue", runs_handler=False),
        ),
        StepSpec("s3", "single", wait=_wait("shipped", timeout=3600, on_timeout="continue")),
        StepSpec("s4", "single", when_exhausted="skip", wait=_wait("approved", timeout=3600)),
        StepSpec("s5", "single", deps=("s1",)),
    ),
    [],
    *(_passes(0) for _ in range(5)),
)

#: A timeout fails the run (s1's task is cancelled); a signal to the failed run is
#: refused; retry_run makes s0 wait afresh and a signal ends it. A timed-out wait (s2,
#: continue) is independent of the later wait on the same name (s3), which gets the
#: JSON null payload, not a timeout.
RETRY_AFTER_TIMEOUT = _scenario(
    (
        StepSpec("s0", "single", wait=_wait("approved", timeout=3600, runs_handler=False)),
        StepSpec("s1", "single"),
        StepSpec(
            "s2",
            "single",
            wait=_wait("done", timeout=3600, on_timeout="continue", runs_handler=False),
        ),
        StepSpec("s3", "single", deps=("s2",), wait=_wait("done", runs_handler=False)),
    ),
    {},
    _passes(0, 0),
    _send(0, "approved", {"late": True}),
    Control(0, "retry_run"),
    _send(0, "approved", {"ok": True}, key="k2"),
    _passes(0, 1),
    _send(0, "done", None),
)

#: Timers: 0 seconds (at once), a past timestamp from the input (at once), an hour (time
#: passes); then their dependent runs with their outputs.
TIMERS = _scenario(
    (
        StepSpec("s0", "single", wait=WaitSpec("timer", seconds=0)),
        StepSpec("s1", "single", wait=WaitSpec("timer", until="input.at")),
        StepSpec("s2", "single", wait=WaitSpec("timer", seconds=3600)),
        StepSpec("s3", "single", deps=("s0", "s1", "s2")),
    ),
    {"at": "2000-01-01T00:00:00Z"},
)

#: A timestamp that cannot be read fails its timer (skipped: when_exhausted skip, error
#: kept); one in the future waits until time passes.
TIMER_UNREADABLE = _scenario(
    (
        StepSpec("s0", "single", when_exhausted="skip", wait=WaitSpec("timer", until="input.at")),
        StepSpec("s1", "single", deps=("s0",)),
    ),
    {"at": "2001-02-30"},
)

#: A paused run stores a signal (pending) and does not fire a passed deadline; a waiting
#: step skipped by hand abandons its wait; on resume_run s0 takes the signal (a signal
#: wins over a deadline that passed meanwhile).
PAUSED = _scenario(
    (
        StepSpec("s0", "single", wait=_wait("approved", timeout=3600)),
        StepSpec("s1", "single", wait=_wait("shipped", timeout=3600, runs_handler=False)),
    ),
    None,
    Control(0, "pause_run"),
    _passes(0, 0),
    _send(0, "approved", {"a": 1}, key="k1"),
    Control(0, "skip_step", "s1"),
    _passes(0, 1),
    Control(0, "resume_run"),
)

#: Cancelled while waiting: the wait is abandoned, signals are refused (a known key is
#: still a duplicate), time passing and ticks change nothing.
CANCEL_WHILE_WAITING = _scenario(
    (StepSpec("s0", "single", wait=_wait("approved", timeout=3600)),),
    None,
    _send(0, "stray", {"a": 1}, key="k1"),
    Control(0, "cancel_run"),
    _send(0, "approved", {"a": 1}),
    _send(0, "approved", {"a": 2}, key="k1"),
    _passes(0),
    Control(0, "tick"),
)

WAIT_EXAMPLES = (
    BUFFERED,
    MATCH_IN_STEP_ORDER,
    TIMEOUTS,
    RETRY_AFTER_TIMEOUT,
    TIMERS,
    TIMER_UNREADABLE,
    PAUSED,
    CANCEL_WHILE_WAITING,
)
