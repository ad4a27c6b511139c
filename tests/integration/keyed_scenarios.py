"""The scenarios of the keyed-runs model property test (test_model_keyed_runs.py): a flow
with a concurrency limit (and maybe a run_timeout and a max_in_flight step), and a
sequence of operations on several runs of it; hand-written ones that every run plays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.integration.flow_spec import FlowSpec, StepSpec
from tests.integration.jsonb_model import dumps
from tests.integration.model_scenarios import MAX_MAP_TASKS, TaskOutcome

#: the run-control verbs a scenario calls on a drawn run
VERBS = ("cancel_run", "pause_run", "resume_run", "retry_run")


@dataclass(frozen=True)
class Op:
    """One operation of a scenario.

    kind "start": start_flow with ``idem`` (idempotency key) and ``key`` (concurrency
    key), with an explicit deadline an hour away when ``deadline``. "work": a worker
    round: read every visible message, claim the first ``claim`` of them (0: all) by
    step priority, run the handlers and report, except the last claimed task when
    ``crash`` (its worker died: the task stays started). A verb of :data:`VERBS` on run
    number ``run`` (modulo the runs there are). "deadline": run ``run``'s deadline is set
    in the past, then the tick runs when ``tick``. "stall": the ``run``-th (modulo) started
    task looks stalled (started a day ago), then the tick runs. "report": the ``run``-th
    (modulo) started task is reported late, as its handler says. "tick": pgflow.tick().
    """

    kind: str
    run: int = 0
    idem: str | None = None
    key: str | None = None
    deadline: bool = False
    claim: int = 0
    crash: bool = False
    tick: bool = True

    def __repr__(self) -> str:
        if self.kind == "start":
            deadline = ", deadline => now() + 1 hour" if self.deadline else ""
            keys = f"idempotency_key => {self.idem!r}, concurrency_key => {self.key!r}"
            return f"start_flow({keys}{deadline})"
        if self.kind == "work":
            claim = "every visible task" if self.claim == 0 else f"at most {self.claim} tasks"
            return f"worker round: claim {claim}" + (", the last one crashes" if self.crash else "")
        if self.kind == "deadline":
            return f"deadline of run #{self.run} passes" + (", tick" if self.tick else "")
        if self.kind in ("stall", "report"):
            return f"{self.kind} started task number {self.run}" + (
                ", tick" if self.kind == "stall" else ""
            )
        if self.kind == "tick":
            return "tick()"
        return f"{self.kind}(run #{self.run})"


@dataclass(frozen=True)
class KeyedScenario:
    """A flow with its keyed options, the input every run gets, the task outcomes (per
    run: a task's first ``fails`` handler calls fail), the claim priority and the ops."""

    flow: FlowSpec
    run_input: Any
    outcomes: dict[str, tuple[TaskOutcome, ...]]
    priority: tuple[str, ...]
    concurrency_limit: int
    on_limit: str  # "queue" | "reject"
    run_timeout: int | None
    max_in_flight: tuple[str, int] | None  # (step slug, limit)
    ops: tuple[Op, ...]

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis prints falsifying examples with this

    def __repr__(self) -> str:
        timeout = "" if self.run_timeout is None else f", run_timeout => {self.run_timeout}"
        lines = [
            "",
            f"create_flow(flow, max_attempts => {self.flow.max_attempts}, base_delay => "
            f"{self.flow.base_delay}, concurrency_limit => {self.concurrency_limit}, "
            f"on_limit => '{self.on_limit}'{timeout})",
            *(s.add_step_call() for s in self.flow.steps),
        ]
        if self.max_in_flight is not None:
            lines.append(f"  {self.max_in_flight[0]}: max_in_flight => {self.max_in_flight[1]}")
        lines.append(f"every run's input: '{dumps(self.run_input)}'")
        lines.append(f"claim priority {' > '.join(self.priority)}")
        for s in self.flow.steps:
            count = MAX_MAP_TASKS if s.kind == "map" else 1
            for i, outcome in enumerate(self.outcomes[s.slug][:count]):
                lines.append(f"  {s.slug}[{i}]: {outcome!r}")
        lines.extend(f"op {n}: {op!r}" for n, op in enumerate(self.ops))
        return "\n".join(lines)


# ---------------------------------------------------------------- hand-written scenarios


def _ok(output: Any, fails: int = 0) -> TaskOutcome:
    return TaskOutcome(fails=fails, output=output)


def _start(idem: str | None = None, key: str | None = "k1") -> Op:
    return Op("start", idem=idem, key=key)


_ONE_STEP = FlowSpec(max_attempts=1, base_delay=0, steps=(StepSpec("s0", "single"),))
_ONE_STEP_OUTCOMES: dict[str, tuple[TaskOutcome, ...]] = {"s0": (_ok({"done": 1}),)}


def _scenario(
    *ops: Op,
    on_limit: str = "queue",
    limit: int = 1,
    flow: FlowSpec = _ONE_STEP,
    outcomes: dict[str, tuple[TaskOutcome, ...]] | None = None,
    run_input: Any = None,
    max_in_flight: tuple[str, int] | None = None,
) -> KeyedScenario:
    return KeyedScenario(
        flow=flow,
        run_input=run_input,
        outcomes=outcomes or _ONE_STEP_OUTCOMES,
        priority=tuple(s.slug for s in flow.steps),
        concurrency_limit=limit,
        on_limit=on_limit,
        run_timeout=None,
        max_in_flight=max_in_flight,
        ops=ops,
    )


#: A finished run is returned by a second start with its key, whatever the other arguments.
DUPLICATE_OF_FINISHED = _scenario(
    _start("i1"),
    Op("work"),
    _start("i1"),  # duplicate of the completed run
    _start("i1", key=None),  # duplicate too: the key decides, not the arguments
    _start("i2"),  # a new run takes the free slot
)

#: on_limit reject: a start over the limit raises 53400 and writes nothing (not even its
#: idempotency key); other keys and unkeyed runs are not limited; a freed slot is taken.
REJECT_AT_LIMIT = _scenario(
    _start("i1"),
    _start("i2"),  # rejected
    _start("i2"),  # rejected again: the first refusal stored nothing
    _start("i1"),  # a duplicate is returned, full or not
    _start("i3", key="k2"),
    _start(None, key=None),
    Op("pause_run", run=0),  # a paused run keeps its slot
    _start("i2"),  # rejected
    Op("resume_run", run=0),
    Op("work"),
    _start("i2"),  # the slot is free now
    on_limit="reject",
)

#: Three runs of a key with limit 1: the second and third wait and start in start order.
QUEUE_ORDER = _scenario(
    _start("a"),
    _start("b"),
    _start("c"),
    Op("pause_run", run=0),
    Op("work"),  # nothing to do: the holder is paused, the others queued
    Op("resume_run", run=0),
    Op("work"),  # a completes: b starts (not c)
    Op("cancel_run", run=1),  # b cancelled: c starts
    Op("work"),
)

#: A queued run expires (its deadline passes, the tick runs); then the started holder
#: expires with its task in flight: the next queued run starts, the late report is ignored.
EXPIRY_OF_QUEUED_AND_HOLDER = _scenario(
    _start("a"),
    _start("b"),
    _start("c"),
    Op("deadline", run=1),  # b (queued) expires
    Op("work", crash=True),  # a's task is started, its worker dies
    Op("deadline", run=0),  # a (started) expires, c starts
    Op("report", run=0),  # a's task reported late: ignored
    Op("work"),
)

#: A queued run past its deadline is left for the tick: the slot that frees goes to the
#: next queued run, and a new start does not wait behind it.
EXPIRY_LEFT_FOR_THE_TICK = _scenario(
    _start("a"),
    _start("b"),
    _start("c"),
    Op("deadline", run=1, tick=False),
    Op("work"),  # a completes: c starts, b is passed over
    Op("work"),  # c completes: b still queued (past its deadline), the slot is free
    _start("d"),  # started: b does not count
    _start("e"),  # queued behind d
    Op("tick"),  # b expires
    Op("work"),
    Op("work"),
)

#: A failed run needs a free slot to be retried: refused (53400) while another run holds
#: it, accepted once that one has failed too.
RETRY_REFUSED = _scenario(
    _start("a"),
    Op("work"),  # a's first call fails: a failed
    _start("b"),  # takes the slot a freed
    Op("retry_run", run=0),  # refused: b holds the slot
    Op("work"),  # b's first call fails too: the slot frees
    Op("retry_run", run=0),  # a starts again: its second call succeeds
    Op("retry_run", run=1),  # refused: a holds the slot
    Op("work"),
    Op("retry_run", run=1),
    Op("work"),
    outcomes={"s0": (_ok("x", fails=1),)},
)

#: max_in_flight 1 on a map step, two runs: one task starts, the five others are held; the
#: paused run's held messages (the oldest) are dropped when the slot frees, using none of
#: it: the other run's next task gets it; a stalled task is requeued and frees its slot.
HELD_BY_MAX_IN_FLIGHT = _scenario(
    _start("a"),
    _start("b"),
    Op("work", crash=True),  # a's s0[0] started (its worker dies), five held
    Op("pause_run", run=0),  # a's held messages are parked
    Op("report", run=0),  # s0[0] completes late: b's s0[0] is released, not a's
    Op("work", crash=True),  # b's s0[0] started, its worker dies
    Op("resume_run", run=0),  # a's tasks get new messages, which the next claim holds
    Op("stall", run=0),  # b's s0[0] is requeued: its slot frees
    Op("work", claim=2),
    flow=FlowSpec(max_attempts=2, base_delay=0, steps=(StepSpec("s0", "map"),)),
    outcomes={"s0": (_ok(1), _ok(2, fails=1), _ok(3))},
    run_input=[1, 2, 3],
    limit=2,
    max_in_flight=("s0", 1),
)

KEYED_EXAMPLES = (
    DUPLICATE_OF_FINISHED,
    REJECT_AT_LIMIT,
    QUEUE_ORDER,
    EXPIRY_OF_QUEUED_AND_HOLDER,
    EXPIRY_LEFT_FOR_THE_TICK,
    RETRY_REFUSED,
    HELD_BY_MAX_IN_FLIGHT,
)
