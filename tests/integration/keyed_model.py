"""Keyed starts, concurrency limits, deadlines and max_in_flight (#14) in the model of the
property tests: several runs of one flow, each a ``run_control_model.ControlledModel``.

Written from the COMMENTs of the SQL functions (extension/sql/322_start_flow.sql,
327__take_concurrency_slot.sql, 329__start_queued_runs.sql, 330__release_concurrency_slots
.sql, 331__expire_runs.sql, 404__throttle_claims.sql, 723_tick.sql, 70*_*.sql), not
from their bodies:

- start_flow with an idempotency key the flow already has returns that run (duplicate,
  nothing written). A run with a concurrency key starts when fewer than the limit of the
  key's runs are started or paused and none is queued (but those past their deadline,
  left for the tick to expire); else on_limit queue creates it
  ``queued`` (no step started, no task; a place in the start order) and on_limit reject
  refuses it (53400, nothing written). A run without a key is never limited.
- A run that held a slot (started or paused) and ends (completed, failed, cancelled,
  expired) releases it: the queued runs of its key whose deadline has not passed start,
  oldest first, as many as there are free slots (one that ends at once frees its slot for
  the next).
  A queued run that is cancelled or expires held nothing.
- retry_run of a failed run with a key needs a free slot now (as a start), else 53400,
  nothing written.
- tick: started and paused runs past their deadline expire (their unfinished work is
  cancelled, their slots released); queued runs of keys with a free slot start (a safety
  net: counted as started_queued_runs); queued runs past their deadline expire; stalled
  tasks of started runs are requeued (after 3 requeues a stalled task is given up on: it
  fails for good and its when_exhausted applies).
- A claim starts at most max_in_flight tasks of the limited step (counting its tasks
  started in every run), lowest message id first; the others are held: queued, their
  message hidden, no attempt spent. Which held messages a release makes visible again is
  read back from the database and checked (keyed_checks.py), not predicted here: each
  release call frees up to "max_in_flight - started" of them, and how many calls one SQL
  function makes is its own business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.integration.flow_model import Key
from tests.integration.flow_spec import FlowSpec
from tests.integration.run_control_model import ControlledModel

Key3 = tuple[int, str, int]  # a task of a run: (run number, step_slug, task_index)

HOLDING = ("started", "paused")
TERMINAL = ("completed", "failed", "cancelled", "expired")
GIVE_UP_ERROR = "Task stalled: its worker stopped without reporting 4 times (3 requeues); given up"


@dataclass
class RunModel(ControlledModel):
    """One run of the flow; ``number`` is its place in the order the runs were created."""

    number: int = 0
    idempotency_key: str | None = None
    concurrency_key: str | None = None
    queue_seq: int | None = None
    past_deadline: bool = False
    #: whether the run held a slot since the last release (a run that ends releases it)
    held_slot: bool = False
    requeued: dict[Key, int] = field(default_factory=dict)

    def begin(self, queued: bool) -> None:
        """``start_flow`` created the run: queued (its steps created, nothing started), or
        started (its ready steps start; it may end at once)."""
        if queued:
            self.status = "queued"
        assert self.start() is None, "the scenarios give every run a valid input"

    def start_from_queue(self) -> None:
        """``_start_queued_runs`` started the run: its ready steps start."""
        self.status, self.held_slot = "started", True
        self._advance()

    def legal(self, verb: str, slug: str | None = None) -> bool:
        if verb == "cancel_run" and self.status == "queued":
            return True
        return super().legal(verb, slug)

    def expire(self) -> None:
        """``_expire_runs``: the run ends as expired, its unfinished work cancelled."""
        self.status = "expired"
        self._cancel_unfinished_work()

    def complete(self, key: Key, output: Any) -> None:
        if self.status != "expired":  # a late report to an expired run is ignored
            super().complete(key, output)

    def fail(self, key: Key, error: str) -> None:
        if self.status != "expired":
            super().fail(key, error)

    def retry_run(self) -> list[str]:
        reset = super().retry_run()
        self.requeued = {k: n for k, n in self.requeued.items() if k[0] not in reset}
        return reset

    def requeue(self, key: Key) -> None:
        """``requeue_stalled_tasks``: the stalled task is queued again, same message."""
        self.tasks[key].status = "queued"
        self.requeued[key] = self.requeued.get(key, 0) + 1

    def give_up(self, key: Key) -> None:
        """``requeue_stalled_tasks`` gives up on a task stalled after 3 requeues: it fails
        for good (no attempt left or spent) and its step's when_exhausted applies."""
        slug = key[0]
        step, state, task = self.flow.step(slug), self.states[slug], self.tasks[key]
        task.status, task.live, task.error_message = "failed", False, GIVE_UP_ERROR
        if step.when_exhausted == "fail":
            state.status, state.error_message = "failed", GIVE_UP_ERROR
            self._fail_run()
            return
        self._skip([slug], "handler_failed", GIVE_UP_ERROR)
        if step.when_exhausted == "skip-cascade":
            self.remaining_steps -= 1
            self._force_skip(slug, "handler_failed")
        else:
            self._release_dependents([slug])
        self._advance()


@dataclass(frozen=True)
class TickResult:
    """What ``pgflow.tick()`` returns that the model predicts."""

    expired_runs: int
    started_queued_runs: int
    requeued_tasks: int


@dataclass
class KeyedModel:
    """The runs of one flow with a concurrency limit (and a max_in_flight step)."""

    flow: FlowSpec
    run_input: Any
    limit: int
    on_limit: str
    max_in_flight: tuple[str, int] | None
    runs: list[RunModel] = field(default_factory=list)
    by_idempotency_key: dict[str, int] = field(default_factory=dict)
    next_seq: int = 0
    #: tasks whose message a claim held back: (model message, database msg_id)
    held: dict[Key3, tuple[int, int]] = field(default_factory=dict)
    #: started tasks that look stalled (started long ago)
    stalled: set[Key3] = field(default_factory=set)

    # ------------------------------------------------------------ starts and slots
    def start_refused(self, idem: str | None, key: str | None) -> bool:
        """Whether ``start_flow`` raises 53400: on_limit reject, no free slot for the
        concurrency key, and no run with the idempotency key (a duplicate is returned)."""
        if idem is not None and idem in self.by_idempotency_key:
            return False
        return key is not None and self.on_limit == "reject" and not self.slot_free(key)

    def start(self, idem: str | None, key: str | None) -> tuple[str, int]:
        """``start_flow`` not refused: ("duplicate", n) or ("started" or "queued", n)."""
        if idem is not None and idem in self.by_idempotency_key:
            return "duplicate", self.by_idempotency_key[idem]
        queued = key is not None and not self.slot_free(key)
        run = RunModel(
            self.flow, self.run_input, number=len(self.runs), idempotency_key=idem,
            concurrency_key=key, held_slot=not queued,
        )  # fmt: skip
        if queued:
            run.queue_seq, self.next_seq = self.next_seq, self.next_seq + 1
        self.runs.append(run)
        if idem is not None:
            self.by_idempotency_key[idem] = run.number
        run.begin(queued)
        self._release()
        return ("queued" if queued else "started"), run.number

    def holders(self, key: str) -> list[RunModel]:
        return [r for r in self.runs if r.concurrency_key == key and r.status in HOLDING]

    def waiting(self, key: str) -> list[RunModel]:
        """The queued runs of the key that may start (deadline not passed), in start order."""
        queue = [
            r for r in self.runs
            if r.concurrency_key == key and r.status == "queued" and not r.past_deadline
        ]  # fmt: skip
        return sorted(queue, key=lambda r: r.queue_seq or 0)

    def slot_free(self, key: str) -> bool:
        """``_take_concurrency_slot``: a run of this key may start now (a slot is free and
        no run waits for one; a queued run past its deadline waits for the tick only)."""
        return len(self.holders(key)) < self.limit and not self.waiting(key)

    def _start_queued(self, key: str) -> int:
        """``_start_queued_runs``: how many queued runs of the key it started (those that
        end at once free their slots for the next ones)."""
        started = 0
        while ready := self.waiting(key)[: max(self.limit - len(self.holders(key)), 0)]:
            for run in ready:
                run.start_from_queue()
            started += len(ready)
        return started

    def _release(self) -> None:
        """``_release_concurrency_slots`` for the runs that held a slot and have ended,
        until none is left (a run started from the queue may end at once)."""
        while True:
            ended = [r for r in self.runs if r.held_slot and r.status not in HOLDING]
            if not ended:
                return
            for run in ended:
                run.held_slot = False
            for key in sorted({r.concurrency_key for r in ended if r.concurrency_key}):
                self._start_queued(key)

    # ------------------------------------------------------------ operator
    def refusal(self, verb: str, number: int) -> str | None:
        """Why a run-control verb on run ``number`` raises: "illegal" (55000: not in a
        status the verb applies to), "limit" (53400: retry_run with no free slot), or None."""
        run = self.runs[number]
        if not run.legal(verb):
            return "illegal"
        key = run.concurrency_key
        if verb == "retry_run" and key is not None and not self.slot_free(key):
            return "limit"
        return None

    def control(self, verb: str, number: int) -> list[str]:
        """Apply a run-control verb :meth:`refusal` accepts; returns the steps it reset."""
        run = self.runs[number]
        if verb == "retry_run":
            run.held_slot = True
        reset = run.apply(verb)
        self.stalled -= {k for k in self.stalled if k[0] == number and k[1] in reset}
        self.held = {k: v for k, v in self.held.items() if k[0] != number or k[1] not in reset}
        self._release()
        return reset

    # ------------------------------------------------------------ the worker
    def task(self, key: Key3) -> Any:
        return self.runs[key[0]].tasks.get((key[1], key[2]))

    def hidden(self, key: Key3) -> bool:
        """Whether a claim held the task's current message back (and it is still held)."""
        entry, task = self.held.get(key), self.task(key)
        return (
            entry is not None
            and task is not None
            and task.status == "queued"
            and task.live
            and task.msg == entry[0]
        )

    def live_held(self) -> dict[Key3, int]:
        """The held messages still in the queue, hidden: task -> database msg_id."""
        return {k: db for k, (_, db) in self.held.items() if self.hidden(k)}

    def visible(self) -> dict[Key3, int]:
        """What a reader receives once every message but the held ones is visible."""
        return {
            (run.number, *k): t.msg
            for run in self.runs
            for k, t in run.tasks.items()
            if t.live and not self.hidden((run.number, *k))
        }

    def started(self, slug: str) -> set[Key3]:
        return {
            (run.number, *k)
            for run in self.runs
            for k, t in run.tasks.items()
            if k[0] == slug and t.status == "started"
        }

    def claim(self, items: list[tuple[Key3, int, int]]) -> dict[Key3, tuple[Any, Any]]:
        """``start_tasks`` for (task, model message, database msg_id) read earlier: the
        limited step's tasks beyond its free slots are held, lowest msg_id first; returns
        the started tasks with their (input, flow_input)."""
        hold: set[Key3] = set()
        if self.max_in_flight is not None:
            slug, limit = self.max_in_flight
            free = max(limit - len(self.started(slug)), 0)
            candidates = sorted(
                (db, key, msg)
                for key, msg, db in items
                if key[1] == slug
                and (task := self.task(key)) is not None
                and task.status == "queued"
                and task.msg == msg
            )
            for db, key, msg in candidates[free:]:
                hold.add(key)
                self.held[key] = (msg, db)
        started = {}
        for key, msg, _ in items:
            if key in hold:
                continue
            got = self.runs[key[0]].start_task((key[1], key[2]), msg)
            if got is not None:
                started[key] = got
                self.stalled.discard(key)
        return started

    def complete(self, key: Key3, output: Any) -> None:
        self.runs[key[0]].complete((key[1], key[2]), output)
        self._after_report(key)

    def fail(self, key: Key3, error: str) -> None:
        self.runs[key[0]].fail((key[1], key[2]), error)
        self._after_report(key)

    def _after_report(self, key: Key3) -> None:
        task = self.task(key)
        if task is None or task.status != "started":
            self.stalled.discard(key)
        self._release()

    # ------------------------------------------------------------ time
    def tick(self) -> TickResult:
        """``pgflow.tick()`` (no waits in these flows)."""
        late = [r for r in self.runs if r.past_deadline and r.status in HOLDING]
        for run in late:
            run.expire()
        self._release()
        started = 0
        queued = {r.concurrency_key for r in self.runs if r.status == "queued"}
        for key in sorted(k for k in queued if k is not None):
            if len(self.holders(key)) < self.limit:
                started += self._start_queued(key)
                self._release()
        stale = [r for r in self.runs if r.past_deadline and r.status == "queued"]
        for run in stale:
            run.expire()
        return TickResult(len(late) + len(stale), started, self._requeue_stalled())

    def _requeue_stalled(self) -> int:
        """``requeue_stalled_tasks``: give up on the tasks stalled after 3 requeues, then
        requeue the other stalled tasks of started steps of started runs."""

        def sweepable(key: Key3) -> bool:
            run, task = self.runs[key[0]], self.task(key)
            return (
                task is not None
                and task.status == "started"
                and run.status == "started"
                and run.states[key[1]].status == "started"
            )

        for key in sorted(k for k in self.stalled if sweepable(k)):
            run = self.runs[key[0]]
            if run.requeued.get((key[1], key[2]), 0) >= 3 and sweepable(key):
                run.give_up((key[1], key[2]))
                self.stalled.discard(key)
                self._release()
        requeued = sorted(k for k in self.stalled if sweepable(k))
        for key in requeued:
            self.runs[key[0]].requeue((key[1], key[2]))
            self.stalled.discard(key)
        return len(requeued)
