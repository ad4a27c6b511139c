"""What hypothesis draws for the model property tests (test_model_property.py): flows, run
inputs, task outcomes, the operator's calls and, for flows with waits (#13), the waits and
what the outside world does (signals, time passing, ticks)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.integration.flow_spec import FlowSpec, StepSpec, WaitSpec
from tests.integration.model_scenarios import (
    MAX_MAP_TASKS,
    Control,
    Scenario,
    SignalDraw,
    TaskOutcome,
)
from tests.integration.wait_model import READABLE_UNTIL, UNTIL_KEY, UNTIL_VALUES

MAX_POINT = 12  # operator calls happen at points 0..MAX_POINT of the worker's sequence

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

# ---------------------------------------------------------------- waits (#13)

SIGNAL_NAMES = ("approved", "shipped")
STRAY_NAME = "stray"  # a name no step of any drawn flow waits for
MATCHES = st.sampled_from([None, None, {"a": 1}, {"b": "x"}, {}])
# Deadlines are far away (an hour, a day): only time_passes makes them pass during a test.
SIGNAL_WAITS = st.builds(
    WaitSpec,
    kind=st.just("signal"),
    signal_name=st.sampled_from(SIGNAL_NAMES),
    match=MATCHES,
    timeout=st.sampled_from([None, 3600, 86400]),
    on_timeout=st.sampled_from(["fail", "skip", "skip-cascade", "continue"]),
    runs_handler=st.booleans(),
)
TIMERS = st.builds(WaitSpec, kind=st.just("timer"), seconds=st.sampled_from([0, 0, 3600]))
UNTIL_TIMERS = st.builds(WaitSpec, kind=st.just("timer"), until=st.just(f"input.{UNTIL_KEY}"))
# Mostly signal waits (one_of would weigh the three alike).
WAIT_SPECS = st.integers(0, 5).flatmap(
    lambda n: [TIMERS, UNTIL_TIMERS][n] if n < 2 else SIGNAL_WAITS
)
# At input.<UNTIL_KEY>: mostly a timestamp a timer can read (in the past or the future).
UNTIL_DRAWS = st.sampled_from(READABLE_UNTIL) | st.sampled_from(UNTIL_VALUES)
WAITS_OFTEN = st.integers(0, 2).map(bool)  # two single steps in three wait
KEYS_SENT = st.sampled_from([None, None, "", " ", "k1", "k1", "k2"])  # blank: no key


def _feeds_map(steps: list[StepSpec], slug: str) -> bool:
    return any(s.kind == "map" and s.deps == (slug,) for s in steps)


def _signal_payloads(steps: list[StepSpec]) -> st.SearchStrategy[Any]:
    """Payloads that match some wait of the flow (its match, with more keys) or not."""
    matches = [s.wait.match for s in steps if s.wait is not None and s.wait.match is not None]
    if not matches:
        return JSON
    merged = st.builds(
        lambda base, match: {**base, **match},
        st.dictionaries(KEYS, JSON, max_size=2),
        st.sampled_from(matches),
    )
    return st.one_of(JSON, st.sampled_from(matches), merged)


@st.composite
def wait_controls(draw: st.DrawFn, steps: list[StepSpec]) -> list[Control]:
    """What the outside world does about the waits, each at a point: signals (to a name the
    flow waits for or a stray one), time passing for a wait, ticks."""
    names = st.sampled_from([*FlowSpec(1, 0, tuple(steps)).signal_names(), STRAY_NAME])
    payloads = _signal_payloads(steps)
    controls = []
    for _ in range(draw(st.integers(0, 6))):
        point = draw(st.integers(0, 5) | st.integers(0, MAX_POINT))
        verb = draw(st.sampled_from(["send_signal"] * 3 + ["time_passes", "time_passes", "tick"]))
        if verb == "send_signal":
            signal = SignalDraw(draw(names), draw(payloads), draw(KEYS_SENT))
            controls.append(Control(point, verb, signal=signal))
        else:
            controls.append(Control(point, verb, draw(st.integers(0, 3))))
    return controls


# ---------------------------------------------------------------- scenarios


@st.composite
def scenarios(
    draw: st.DrawFn, grouped: bool = False, max_controls: int = 4, waits: bool = False
) -> Scenario:
    """A flow with a run input, task outcomes, a claim order and the operator's calls;
    ``waits``: two single steps in three wait, and the outside world sends signals, lets
    time pass and ticks."""
    steps: list[StepSpec] = []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["single", "map"]))
        earlier = [s.slug for s in steps]
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
                wait=draw(WAIT_SPECS) if waits and kind == "single" and draw(WAITS_OFTEN) else None,
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
    until = any(s.wait and s.wait.until for s in steps) and not flow.has_root_map()
    if until and draw(st.integers(0, 4)) > 0:  # mostly a value at input.<UNTIL_KEY>
        base = run_input if isinstance(run_input, dict) else {}
        run_input = {**base, UNTIL_KEY: draw(UNTIL_DRAWS)}
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
    if waits and any(s.wait for s in steps):
        controls.extend(draw(wait_controls(steps)))
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
