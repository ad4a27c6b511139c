"""What hypothesis draws for the keyed-runs model property test (test_model_keyed_runs.py):
a flow of the model property tests (model_strategies.scenarios) with a concurrency limit,
on_limit, maybe a run_timeout and a max_in_flight step, and operations on its runs.

Keys come from small pools, so that duplicates and full slots are common."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from tests.integration.keyed_scenarios import VERBS, KeyedScenario, Op
from tests.integration.model_strategies import scenarios

IDEMPOTENCY_KEYS = st.sampled_from([None, "i1", "i1", "i2", "i3"])
CONCURRENCY_KEYS = st.sampled_from([None, "k1", "k1", "k1", "k1", "k2"])
MAX_STEPS = 4
RUNS = st.integers(0, 5)  # a run (or a started task), modulo how many there are
# (a verb goes to a run it applies to when ``run`` < 4, keyed_runner.py)
# Mostly starts and worker rounds; the rest once each.
KINDS = st.sampled_from(
    ["start"] * 4 + ["work"] * 5 + [*VERBS, "deadline", "stall", "stall", "report", "tick"]
)

STARTS = st.builds(
    Op,
    kind=st.just("start"),
    idem=IDEMPOTENCY_KEYS,
    key=CONCURRENCY_KEYS,
    deadline=st.integers(0, 3).map(lambda n: n == 0),
)
WORK = st.builds(
    Op,
    kind=st.just("work"),
    claim=st.sampled_from([0, 0, 1, 2]),
    crash=st.booleans(),
)


@st.composite
def ops(draw: st.DrawFn) -> Op:
    """One operation of a scenario."""
    kind = draw(KINDS)
    if kind == "start":
        return draw(STARTS)
    if kind == "work":
        return draw(WORK)
    if kind == "deadline":
        return Op(kind, run=draw(RUNS), tick=draw(st.integers(0, 2).map(bool)))
    return Op(kind, run=draw(RUNS))


@st.composite
def keyed_scenarios(draw: st.DrawFn) -> KeyedScenario:
    """A flow (at most 4 steps) with its keyed options and 7-19 operations, a start first."""
    base = draw(scenarios(max_controls=0))
    # Its first four steps (steps depend on earlier ones only: still a flow).
    flow = replace(base.flow, steps=base.flow.steps[:MAX_STEPS])
    if draw(st.booleans()):  # runs fail more often: a handler that fails once fails its task
        steps = tuple(replace(s, max_attempts=None) for s in flow.steps)
        flow = replace(flow, max_attempts=1, steps=steps)
    slugs = [s.slug for s in flow.steps]
    run_input = base.run_input
    if flow.has_root_map() and not isinstance(run_input, list):
        run_input = [run_input]  # start_flow's input check is not what this test is about
    max_in_flight = None
    if draw(st.booleans()):
        maps = [s.slug for s in flow.steps if s.kind == "map"]
        slug = draw(st.sampled_from(maps or slugs))
        max_in_flight = (slug, draw(st.integers(1, 3)))
    return KeyedScenario(
        flow=flow,
        run_input=run_input,
        outcomes={slug: base.outcomes[slug] for slug in slugs},
        priority=tuple(slug for slug in base.priority if slug in slugs),
        concurrency_limit=draw(st.sampled_from([1, 1, 2, 3])),
        on_limit=draw(st.sampled_from(["queue", "queue", "reject"])),
        run_timeout=draw(st.sampled_from([None, 3600])),
        max_in_flight=max_in_flight,
        ops=(draw(STARTS), *draw(st.lists(ops(), min_size=6, max_size=18))),
    )
