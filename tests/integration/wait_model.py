"""Wait steps, timers and signals (#13) in the model of the property tests.

Written from the COMMENTs of the SQL functions (extension/sql/317__enter_waits.sql,
320__resolve_waits.sql, 321__finish_waits.sql, 720_send_signal.sql, 723_tick.sql,
210_add_wait.sql, 211_add_timer.sql), not from their bodies:

- A created step of a started run with no pending dependency whose condition is met and
  that has a wait becomes ``waiting`` (no task, no message); its wait starts afresh (also
  when it waits again after retry_run), with a deadline (its timeout, a timer's due time)
  or none.
- In a started run, the waits that can end do, in step order: a signal wait takes the
  oldest pending signal of its name whose payload contains its match (each signal is taken
  once), else times out when its deadline has passed; a timer whose timestamp cannot be
  read is ``unreadable``, else it fires when due. Then the outcomes apply: an unreadable
  timer or a timeout with on_timeout fail fails the step (its when_exhausted applies; fail
  fails the run and nothing else matters), a step with a handler that got a signal (or
  timed out with continue) starts (one task), a step without a handler completes (the
  payload; null after a timeout with continue; a timer: {"due_at", "fired_at"}; one that
  feeds a map step with anything but an array fails instead, and its run), on_timeout
  skip / skip-cascade skip it (reason timed_out). This repeats with the conditions and
  taskless steps until nothing changes (``_cascade``).
- send_signal: the same non-blank idempotency key of the run returns its first signal
  (duplicate, whatever the run's status), a finished run refuses (55000) and stores
  nothing, a started run takes it at once if a step waits for it, a paused run keeps it
  pending until resume_run.
- A step that stops waiting another way (its run fails or is cancelled, an operator skips
  it) abandons its wait at once (``_abandon_waits``).
- tick: a started run with a wait past its deadline moves on (a paused one waits for
  resume_run); fired_waits counts those of the waits due when it was called that timed
  out or fired (a signal may have won).

Time is abstract: a deadline is "none", "future" (an hour or more away), "past" or
"unreadable"; only the test moves it (:meth:`WaitModel.time_passes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.integration.flow_model import TaskState
from tests.integration.flow_spec import StepSpec, WaitSpec
from tests.integration.jsonb_model import dumps, json_type, jsonb_contains
from tests.integration.run_control_model import ControlledModel

#: A fired timer's output as the model holds it (the database has two timestamps there).
TIMER_OUTPUT = {"due_at": "<due_at>", "fired_at": "<fired_at>"}
#: Timers that read their time from the run input read it at input.<UNTIL_KEY>.
UNTIL_KEY = "at"
#: What a run input may hold there: dates and date-times in the past and the future (no
#: offset: UTC), and values a timer cannot read (missing altogether: "nothing").
READABLE_UNTIL = (
    "2000-01-01T00:00:00Z",
    "2001-02-03",
    "2001-02-03T04:05:06+02:00",
    "2999-12-31T23:59:59+02:00",
    "2999-01-01",
)
UNTIL_VALUES: tuple[Any, ...] = (
    *READABLE_UNTIL,
    "tomorrow",
    "2001-02-30",
    5,
    None,
    {"a": "2000-01-01"},
)
_IMPOSSIBLE_DATES = {"2001-02-30": 'date/time field value out of range: "2001-02-30"'}
_RESOLVED_BY_TIME = ("timed_out", "due", "unreadable")


def read_until(run_input: Any, path: str) -> tuple[datetime | None, str | None]:
    """The due time a timer reads at ``path`` (input.<key>): (time, None) or (None, error)."""
    key = path.split(".", 1)[1]
    missing = not isinstance(run_input, dict) or key not in run_input
    value = None if missing else run_input[key]
    got = "nothing" if missing else dumps(value)
    if not isinstance(value, str) or value == "tomorrow":
        return None, f"Timer: {path} is not an ISO 8601 timestamp (got {got})"
    if value in _IMPOSSIBLE_DATES:
        why = _IMPOSSIBLE_DATES[value]
        return None, f"Timer: {path} is not a valid timestamp (got {got}): {why}"
    due = datetime.fromisoformat(value)
    return (due if due.tzinfo else due.replace(tzinfo=UTC)), None


@dataclass
class Signal:
    """A signal of the run (pgflow.signals), in the order they were stored."""

    name: str
    payload: Any
    key: str | None
    status: str = "pending"
    taken_by: str | None = None


@dataclass
class Wait:
    """The current wait of a step (its pgflow.wait_states row)."""

    deadline: str  # "none" | "future" | "past" | "unreadable"
    outcome: str | None = None  # signal | timed_out | due | unreadable | abandoned
    signal: int | None = None  # index into WaitModel.signals
    error: str | None = None  # an unreadable timer's error
    due_at: datetime | None = None  # a timer's due time read from the input


@dataclass
class WaitModel(ControlledModel):
    """A run whose steps may wait for signals and times, controlled by an operator."""

    signals: list[Signal] = field(default_factory=list)
    waits: dict[str, Wait] = field(default_factory=dict)

    # ------------------------------------------------------------ the outside world
    def send_signal(self, name: str, payload: Any, key: str | None) -> tuple[str, int | None]:
        """``send_signal``: ("duplicate", the first signal with the key), ("refused", None)
        for a finished run (nothing stored), or ("stored", the new signal)."""
        key = key if key is not None and key.strip() else None
        if key is not None:
            first = next((i for i, s in enumerate(self.signals) if s.key == key), None)
            if first is not None:
                return "duplicate", first
        if self.status not in ("started", "paused"):
            return "refused", None
        self.signals.append(Signal(name, payload, key))
        if self.status == "started":
            self._advance()
        return "stored", len(self.signals) - 1

    def deadline_waits(self) -> list[str]:
        """The unresolved waits that have a deadline, in step order."""
        return [
            s.slug
            for s in self.flow.steps
            if (w := self.waits.get(s.slug)) is not None
            and w.outcome is None
            and w.deadline in ("future", "past")
        ]

    def time_passes(self, slug: str) -> None:
        """The deadline of ``slug``'s unresolved wait passes (nothing happens yet)."""
        wait = self.waits[slug]
        wait.deadline, wait.due_at = "past", None

    def tick(self) -> int:
        """``tick``: returns fired_waits (of the waits due when it was called)."""
        due = [s for s, w in self.waits.items() if w.outcome is None and w.deadline == "past"]
        if self.status != "started" or not due:
            return 0
        self._advance()
        return sum(1 for slug in due if self.waits[slug].outcome in _RESOLVED_BY_TIME)

    # ------------------------------------------------------------ steps that stop waiting
    def skip_step(self, slug: str) -> list[str]:
        """``skip_step``; a waiting step's wait is abandoned."""
        reset = super().skip_step(slug)
        self._abandon([slug])
        return reset

    def _cancel_unfinished_work(self) -> None:
        """The run ended: the waits of the steps it cancels are abandoned."""
        unfinished = [
            s for s, st in self.states.items() if st.status in ("created", "waiting", "started")
        ]
        super()._cancel_unfinished_work()
        self._abandon(unfinished)

    def _abandon(self, slugs: list[str]) -> None:
        for slug in slugs:
            wait = self.waits.get(slug)
            if wait is not None and wait.outcome is None:
                wait.outcome = "abandoned"

    # ------------------------------------------------------------ the cascade
    def _settle_waits(self) -> int:
        """``_enter_waits`` then ``_resolve_waits`` (one round of ``_cascade``)."""
        if self.status != "started":
            return 0
        entered = 0
        for s in self.flow.steps:
            state = self.states[s.slug]
            if s.wait is not None and state.status == "created" and state.remaining_deps == 0:
                state.status = "waiting"
                self.waits[s.slug] = self._new_wait(s.wait)
                entered += 1
        return entered + self._resolve_waits()

    def _new_wait(self, spec: WaitSpec) -> Wait:
        if spec.kind == "signal":
            return Wait("none" if spec.timeout is None else "future")
        if spec.until is None:
            return Wait("past" if spec.seconds == 0 else "future")
        due_at, error = read_until(self.run_input, spec.until)
        if due_at is None:
            return Wait("unreadable", error=error)
        return Wait("past" if due_at <= datetime.now(UTC) else "future", due_at=due_at)

    def _resolve_waits(self) -> int:
        resolved = []
        for s in self.flow.steps:
            wait = self.waits.get(s.slug)
            if wait is None or wait.outcome is not None or self.states[s.slug].status != "waiting":
                continue
            assert s.wait is not None
            if s.wait.kind == "signal":
                taken = self._take_signal(s.slug, s.wait)
                if taken is not None:
                    wait.outcome, wait.signal = "signal", taken
                elif wait.deadline == "past":
                    wait.outcome = "timed_out"
            elif wait.deadline == "unreadable":
                wait.outcome = "unreadable"
            elif wait.deadline == "past":
                wait.outcome = "due"
            if wait.outcome is not None:
                resolved.append(s)
        if resolved:
            self._finish_waits(resolved)
        return len(resolved)

    def _take_signal(self, slug: str, spec: WaitSpec) -> int | None:
        for index, signal in enumerate(self.signals):
            if (
                signal.status == "pending"
                and signal.name == spec.signal_name
                and (spec.match is None or jsonb_contains(signal.payload, spec.match))
            ):
                signal.status, signal.taken_by = "taken", slug
                return index
        return None

    def _finish_waits(self, steps: list[StepSpec]) -> None:
        """``_finish_waits``: the outcomes just recorded apply, failures first."""
        for s in steps:
            wait, spec = self.waits[s.slug], s.wait
            assert spec is not None
            if wait.outcome == "unreadable" or (
                wait.outcome == "timed_out" and spec.on_timeout == "fail"
            ):
                error = wait.error or (
                    f"Wait for signal '{spec.signal_name}' timed out after {spec.timeout} seconds"
                )
                if s.when_exhausted == "fail":
                    state = self.states[s.slug]
                    state.status, state.error_message = "failed", error
                    self._fail_run()
                    return
                self._skip([s.slug], "timed_out", error)
                if s.when_exhausted == "skip-cascade":
                    self.remaining_steps -= 1
                    self._force_skip(s.slug, "timed_out")
                else:
                    self._release_dependents([s.slug])
        woken: list[str] = []
        done: list[str] = []
        skip: list[str] = []
        cascade: list[str] = []
        for s in steps:
            wait, spec = self.waits[s.slug], s.wait
            assert spec is not None
            goes_on = wait.outcome in ("signal", "due") or (
                wait.outcome == "timed_out" and spec.on_timeout == "continue"
            )
            if self.states[s.slug].status != "waiting" or wait.outcome == "unreadable":
                continue
            if goes_on:
                (woken if spec.has_handler else done).append(s.slug)
            elif spec.on_timeout in ("skip", "skip-cascade"):
                (skip if spec.on_timeout == "skip" else cascade).append(s.slug)
        for slug in woken:
            state = self.states[slug]
            state.status, state.remaining_tasks = "started", state.initial_tasks
            self.tasks[(slug, 0)] = TaskState(msg=self._send())
        outputs = {slug: self._wait_output(self.waits[slug]) for slug in done}
        if self._type_violation(outputs):
            return
        for slug in done:
            state = self.states[slug]
            state.status, state.initial_tasks, state.remaining_tasks = "completed", 0, 0
            state.output = outputs[slug]
        if done:
            self._release_dependents(done)
        self._release_dependents(self._skip(skip, "timed_out"))
        for slug in cascade:
            self._force_skip(slug, "timed_out")

    def _type_violation(self, outputs: dict[str, Any]) -> bool:
        """A step without a handler that feeds a map step completes with an array, else it
        fails and its run with it (the first such step, in step order)."""
        for slug, output in outputs.items():
            fed = next((c for c in self.flow.children(slug) if c.kind == "map"), None)
            if fed is not None and not isinstance(output, list):
                state = self.states[slug]
                state.status, state.error_message = (
                    "failed",
                    (
                        f"[TYPE_VIOLATION] Map step {fed.slug} expects array input but dependency "
                        f"{slug} produced {json_type(output)}"
                    ),
                )
                self._fail_run()
                return True
        return False

    def _wait_output(self, wait: Wait) -> Any:
        if wait.outcome == "signal":
            assert wait.signal is not None
            return self.signals[wait.signal].payload
        if wait.outcome == "due":
            return dict(TIMER_OUTPUT)
        return None  # timed out, on_timeout continue
