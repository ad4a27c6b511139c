"""The scenarios of the model property tests (test_model_property.py): what hypothesis draws,
and hand-written ones that every run plays (run-control cases that random draws reach
rarely)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.integration.flow_spec import FlowSpec, StepSpec
from tests.integration.jsonb_model import dumps

MAX_MAP_TASKS = 3  # arrays feeding maps have at most this many elements


@dataclass(frozen=True)
class TaskOutcome:
    """What a task's handler does: its first ``fails`` calls fail (counted over every run of
    its step: a step run again by retry_run goes on counting), later calls return ``output``."""

    fails: int
    output: Any

    def __repr__(self) -> str:
        if self.fails == 0:
            return f"return {dumps(self.output)}"
        calls = "call 1 fails" if self.fails == 1 else f"calls 1-{self.fails} fail"
        return f"{calls}, then return {dumps(self.output)}"


@dataclass(frozen=True)
class SignalDraw:
    """A signal the outside world sends: ``send_signal(run, name, payload, key)``."""

    name: str
    payload: Any
    key: str | None = None

    def __repr__(self) -> str:
        key = "" if self.key is None else f", idempotency_key => {self.key!r}"
        return f"{self.name!r}, '{dumps(self.payload)}'{key}"


@dataclass(frozen=True)
class Control:
    """A call from outside the worker at worker point ``point``: a run-control ``verb`` of
    the operator (skip_step skips ``step``: a slug, or n: the n-th (modulo) of the steps it
    may skip then, of all steps if none), or one about waits (wait_actions.py):
    send_signal(``signal``), time_passes (``step`` n: the n-th (modulo) wait with a
    deadline passes it, then tick) or tick."""

    point: int
    verb: str
    step: str | int | None = None
    signal: SignalDraw | None = None

    def __repr__(self) -> str:
        target = "" if self.step is None else repr(self.step)
        if isinstance(self.step, int):
            which = "skippable step" if self.verb == "skip_step" else "wait with a deadline"
            target = f"the {which} number {self.step}"
        if self.signal is not None:
            target = repr(self.signal)
        return f"at point {self.point}: {self.verb}({target})"


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
    controls: tuple[Control, ...] = ()  # the operator's calls, by point

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
            if not s.has_handler:
                released = dumps(self.outcomes[s.slug][0].output)
                lines.append(f"  {s.slug}: no handler (a signal may end its wait: {released})")
                continue
            count = MAX_MAP_TASKS if s.kind == "map" else 1
            for i, outcome in enumerate(self.outcomes[s.slug][:count]):
                lines.append(f"  {s.slug}[{i}]: {outcome!r}")
        lines.extend(f"operator {c!r}" for c in self.controls)
        return "\n".join(lines)


# ---------------------------------------------------------------- hand-written scenarios
# Points, as the worker passes them in a round: before the read, after it, after the claim
# (the handlers run), after each report call. A round that finds nothing visible makes the
# next drawn calls at once; a run still paused after the last one is resumed.


def _ok(output: Any, fails: int = 0) -> TaskOutcome:
    return TaskOutcome(fails=fails, output=output)


def _scenario(
    steps: tuple[StepSpec, ...],
    run_input: Any,
    outcomes: dict[str, tuple[TaskOutcome, ...]],
    *controls: Control,
    max_attempts: int = 1,
    batch: bool = True,
    duplicates: bool = False,
) -> Scenario:
    return Scenario(
        flow=FlowSpec(max_attempts=max_attempts, base_delay=0, steps=steps),
        run_input=run_input,
        outcomes=outcomes,
        priority=tuple(s.slug for s in steps),
        batch=batch,
        duplicates=duplicates,
        controls=controls,
    )


_MAP_THEN_SINGLE = (StepSpec("s0", "map"), StepSpec("s1", "single", deps=("s0",)))

#: Paused while its handlers run: s0[0]'s report completes it, s0[1] fails and its retry
#: waits (no message) until the run is resumed at the end.
RETRY_WHILE_PAUSED = _scenario(
    _MAP_THEN_SINGLE,
    [1, 2],
    {"s0": (_ok("a"), _ok("b", fails=1), _ok(None)), "s1": (_ok({"x": 1}),)},
    Control(2, "pause_run"),
    max_attempts=2,
)

#: Paused while s0 runs: its completion makes s1 ready, which does not start; s1 skipped
#: by hand leaves s2 (a map of s1) with nothing to map, which completes on resume.
SKIP_WHILE_PAUSED = _scenario(
    (
        StepSpec("s0", "single"),
        StepSpec("s1", "single", deps=("s0",)),
        StepSpec("s2", "map", deps=("s1",)),
    ),
    {"a": 1},
    {"s0": (_ok(0),), "s1": (_ok([1]),), "s2": (_ok(1), _ok(2), _ok(3))},
    Control(2, "pause_run"),
    Control(3, "skip_step", "s1"),
    Control(3, "pause_run"),  # illegal: already paused
)

#: Both root steps complete while the run is paused: it completes paused.
COMPLETES_WHILE_PAUSED = _scenario(
    (StepSpec("s0", "single"), StepSpec("s1", "single")),
    None,
    {"s0": (_ok(1),), "s1": (_ok(2),)},
    Control(2, "pause_run"),
    Control(5, "resume_run"),  # illegal: completed
)

#: Cancelled while three map tasks run: their (twice sent) reports are ignored.
CANCEL_IN_FLIGHT = _scenario(
    _MAP_THEN_SINGLE,
    ["a", "b", "c"],
    {"s0": (_ok(1), _ok(2, fails=1), _ok(3)), "s1": (_ok(None),)},
    Control(2, "cancel_run"),
    Control(2, "retry_run"),  # illegal: cancelled
    duplicates=True,
)

#: s0 fails the run (s2's queued task is cancelled); retry_run runs s0 again (its second
#: call succeeds), then s1 (a map of it) and s2.
RETRY_AFTER_FAILURE = _scenario(
    (StepSpec("s0", "single"), StepSpec("s1", "map", deps=("s0",)), StepSpec("s2", "single")),
    {"k": [1]},
    {"s0": (_ok([1, 2], fails=1),), "s1": (_ok("x"), _ok("y"), _ok("z")), "s2": (_ok(5),)},
    Control(1, "retry_run"),  # illegal: started
    Control(9, "retry_run"),
    Control(9, "retry_run"),  # illegal: started again
    batch=False,
)

#: s0 fails the run while s2 runs (s2's report comes too late: ignored); skipping s0 by
#: hand reopens the run: s1 runs without s0's output and s2 runs again.
SKIP_FAILED_STEP = _scenario(
    (StepSpec("s0", "single"), StepSpec("s1", "single", deps=("s0",)), StepSpec("s2", "single")),
    [],
    {"s0": (_ok(0, fails=3),), "s1": (_ok("s1"),), "s2": (_ok("s2"),)},
    Control(9, "skip_step", "s1"),  # illegal: cancelled, not failed
    Control(9, "skip_step", "s0"),
)

#: played by the test with single completions (the grouped one plays them grouped)
EXAMPLES = (
    RETRY_WHILE_PAUSED,
    SKIP_WHILE_PAUSED,
    COMPLETES_WHILE_PAUSED,
    CANCEL_IN_FLIGHT,
    RETRY_AFTER_FAILURE,
    SKIP_FAILED_STEP,
)
