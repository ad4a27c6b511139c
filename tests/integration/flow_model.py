"""A pure-Python model of the pgflow run semantics, for the property tests.

The model holds one run of one flow and applies the same transitions as the SQL API:
``start_flow``, ``start_tasks``, ``complete_task`` and ``fail_task`` with conditions
(``if``/``ifNot`` by jsonb containment, ``when_unmet``), empty-map cascades, skips and
their cascade, type violations, retries and ``when_exhausted``; a run ended by a failure
leaves nothing live (its unfinished steps and tasks are cancelled, later reports of them
are ignored) and a skipped step's tasks are cancelled. run_control_model.py adds the
operator's verbs (a run may be paused). It is written from the documented semantics
(upstream's, compat/UPSTREAM.md and the functions' COMMENTs), not from the SQL:
tests/integration/test_model_property.py drives the SQL and the model side by side and
compares them.

It models pgflow-py where it deliberately differs from upstream (compat/UPSTREAM.md):
conditions are re-evaluated after every empty-map round (#8), only a started (or paused)
run is completed and a failed run's unfinished work is cancelled (#12). A step that waits
(#13) is ``waiting`` between ``created`` and ``started``; wait_model.py models its wait.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.integration.flow_spec import FlowSpec, StepSpec
from tests.integration.jsonb_model import json_type, jsonb_contains

# ---------------------------------------------------------------- run state

Key = tuple[str, int]  # a task: (step_slug, task_index)


@dataclass
class StepState:
    status: str = "created"
    remaining_deps: int = 0
    initial_tasks: int | None = None
    remaining_tasks: int | None = None
    output: Any = None
    skip_reason: str | None = None
    error_message: str | None = None


@dataclass
class TaskState:
    msg: int  # which message carries it (a new number per message sent)
    status: str = "queued"
    attempts: int = 0
    attempt_offset: int = 0  # attempts made before its run was reopened (retry budget base)
    output: Any = None
    error_message: str | None = None
    live: bool = True  # its pgmq message is in the queue (not archived)


@dataclass
class Model:
    """One run of ``flow`` with ``run_input``; call :meth:`start` first."""

    flow: FlowSpec
    run_input: Any
    status: str = "started"
    output: Any = None
    remaining_steps: int = 0
    states: dict[str, StepState] = field(default_factory=dict)
    tasks: dict[Key, TaskState] = field(default_factory=dict)
    messages_sent: int = 0

    # ------------------------------------------------------------ the SQL API
    def start(self) -> str | None:
        """``start_flow``; returns the error condition name when it must raise."""
        if self.flow.has_root_map() and not isinstance(self.run_input, list):
            return "invalid_parameter_value"
        self.remaining_steps = len(self.flow.steps)
        for s in self.flow.steps:
            initial = (None if s.deps else len(self.run_input)) if s.kind == "map" else 1
            self.states[s.slug] = StepState(remaining_deps=len(s.deps), initial_tasks=initial)
        self._advance()
        return None

    def visible(self) -> dict[Key, int]:
        """What a reader receives once every message is visible: task -> its message."""
        return {k: t.msg for k, t in self.tasks.items() if t.live}

    def messages(self) -> int:
        """How many messages the queue holds."""
        return sum(1 for t in self.tasks.values() if t.live)

    def start_task(self, key: Key, msg: int) -> tuple[Any, Any] | None:
        """``start_tasks`` for one message read earlier: (input, flow_input), or None when
        it claims nothing (the message is no longer the task's, the task is not queued, the
        run or the step is not started)."""
        task = self.tasks.get(key)
        if task is None or task.msg != msg or task.status != "queued":
            return None
        if self.status != "started" or self.states[key[0]].status != "started":
            return None
        task.status = "started"
        task.attempts += 1
        return self.task_input(key)

    def task_input(self, key: Key) -> tuple[Any, Any]:
        step = self.flow.step(key[0])
        if step.kind == "map" and not step.deps:
            return self.run_input[key[1]], None
        if step.kind == "map":
            return self.states[step.deps[0]].output[key[1]], None
        if not step.deps:
            return {}, self.run_input
        return self._dependency_outputs(step), None

    def complete(self, key: Key, output: Any) -> None:
        """``complete_task`` (no attempt fence)."""
        slug, _ = key
        task = self.tasks.get(key)
        if task is None or task.status == "cancelled" or self.status in ("failed", "cancelled"):
            return  # ignored: unknown_task, task_cancelled, run_failed, run_cancelled
        step, state = self.flow.step(slug), self.states[slug]
        if state.status != "started":
            task.live = False  # step_not_started: the message is archived
            return
        if task.status != "started":
            return
        map_child = next((c for c in self.flow.children(slug) if c.kind == "map"), None)
        if step.kind == "single" and map_child is not None and not isinstance(output, list):
            produced = json_type(output)
            task.status, task.output, task.live = "failed", output, False
            task.error_message = f"[TYPE_VIOLATION] Produced {produced} instead of array"
            state.status = "failed"
            state.error_message = (
                f"[TYPE_VIOLATION] Map step {map_child.slug} expects array input but "
                f"dependency {slug} produced {produced}"
            )
            self._fail_run()
            return
        task.status, task.output, task.live = "completed", output, False
        assert state.remaining_tasks is not None
        state.remaining_tasks -= 1
        if state.remaining_tasks > 0:
            return
        state.status = "completed"
        if step.kind == "map":
            count = state.initial_tasks or 0
            state.output = [self.tasks[(slug, i)].output for i in range(count)]
        else:
            state.output = output
        self._release_dependents([slug])
        self._advance()

    def fail(self, key: Key, error: str) -> None:
        """``fail_task`` (no attempt fence)."""
        slug, _ = key
        task = self.tasks.get(key)
        if task is None or task.status == "cancelled":
            return  # ignored: unknown_task, run_failed/run_cancelled/task_cancelled
        step, state = self.flow.step(slug), self.states[slug]
        if self.status == "failed":
            if task.status == "started":
                task.status, task.error_message = "failed", error
            task.live = False
            return
        if state.status != "started":
            task.live = False
            return
        if task.status != "started":
            return
        max_attempts = (
            step.max_attempts if step.max_attempts is not None else self.flow.max_attempts
        )
        task.error_message = error
        if task.attempts - task.attempt_offset < max_attempts:
            task.status = "queued"
            state.error_message = None
            if self.status == "paused":
                self._park()
            return
        task.status, task.live = "failed", False
        if step.when_exhausted == "fail":
            state.status, state.error_message = "failed", error
            self._fail_run()
            return
        self._skip([slug], "handler_failed", error)
        if step.when_exhausted == "skip-cascade":
            self.remaining_steps -= 1
            self._force_skip(slug, "handler_failed")
        else:
            self._release_dependents([slug])
        self._advance()

    # ------------------------------------------------------------ internals
    def _send(self) -> int:
        self.messages_sent += 1
        return self.messages_sent

    def _dependency_outputs(self, step: StepSpec) -> dict[str, Any]:
        return {d: self.states[d].output for d in step.deps if self.states[d].status == "completed"}

    def _condition_met(self, step: StepSpec) -> bool:
        value = self.run_input if not step.deps else self._dependency_outputs(step)
        required_ok = step.required is None or jsonb_contains(value, step.required)
        forbidden_ok = step.forbidden is None or not jsonb_contains(value, step.forbidden)
        return required_ok and forbidden_ok

    def _advance(self) -> None:
        """After a change (``_advance_runs``): a started run settles its conditions and
        empty maps and starts its ready steps; a started or paused run with no remaining
        step completes."""
        if self.status == "started" and not self._cascade():
            return
        self._start_ready()
        self._maybe_complete()

    def _cascade(self) -> bool:
        """``_cascade``: conditions, waits, then taskless steps, until nothing changes."""
        while True:
            if not self._resolve_conditions():
                return False
            changed = self._settle_waits() > 0
            if self._complete_taskless() == 0 and not changed:
                return True

    def _settle_waits(self) -> int:
        """Ready steps that wait start waiting and waits that can end now end (one round
        of ``_enter_waits`` + ``_resolve_waits``): how many did. No waits in this model."""
        return 0

    def _resolve_conditions(self) -> bool:
        if self.status != "started":
            return self.status == "completed"
        conditional = [
            s for s in self.flow.steps if s.required is not None or s.forbidden is not None
        ]
        while conditional:
            unmet = [
                s
                for s in conditional
                if self.states[s.slug].status == "created"
                and self.states[s.slug].remaining_deps == 0
                and not self._condition_met(s)
            ]
            failing = [s for s in unmet if s.when_unmet == "fail"]
            if failing:
                state = self.states[failing[0].slug]
                state.status, state.error_message = "failed", "Condition not met"
                self._fail_run()
                return False
            skip = [s.slug for s in unmet if s.when_unmet == "skip"]
            skipped = self._skip(skip, "condition_unmet")
            self._release_dependents(skipped)
            for s in unmet:
                if s.when_unmet == "skip-cascade":
                    self._force_skip(s.slug, "condition_unmet")
            if not skipped:
                break
        return True

    def _complete_taskless(self) -> int:
        total = 0
        while True:
            done = [
                s
                for s in self.flow.steps
                if self.states[s.slug].status == "created"
                and self.states[s.slug].remaining_deps == 0
                and self.states[s.slug].initial_tasks == 0
            ]
            if not done:
                return total
            for s in done:
                state = self.states[s.slug]
                state.status, state.remaining_tasks = "completed", 0
                state.output = [] if s.kind == "map" else None
            self._release_dependents([s.slug for s in done])
            total += len(done)

    def _start_ready(self) -> None:
        if self.status != "started":
            return
        for s in self.flow.steps:
            state = self.states[s.slug]
            if (
                state.status == "created"
                and state.remaining_deps == 0
                and (state.initial_tasks or 0) > 0
                and s.wait is None  # a step that waits is waiting by now (_settle_waits)
            ):
                state.status, state.remaining_tasks = "started", state.initial_tasks
                for i in range(state.initial_tasks or 0):
                    self.tasks[(s.slug, i)] = TaskState(msg=self._send())

    def _maybe_complete(self) -> None:
        if self.status not in ("started", "paused") or self.remaining_steps != 0:
            return
        self.status = "completed"
        leaves = {
            s.slug: self.states[s.slug].output
            for s in self.flow.steps
            if not self.flow.children(s.slug) and self.states[s.slug].status == "completed"
        }
        self.output = leaves or None

    def _fail_run(self) -> None:
        if self.status not in ("started", "paused"):
            return
        self.status = "failed"
        self._cancel_unfinished_work()

    def _cancel_unfinished_work(self) -> None:
        """The run ended (failed, cancelled): unfinished steps and tasks are cancelled."""
        for state in self.states.values():
            if state.status in ("created", "waiting", "started"):
                state.status = "cancelled"
        self._cancel_tasks(list(self.states))

    def _cancel_tasks(self, slugs: list[str]) -> None:
        for (slug, _), task in self.tasks.items():
            if slug in slugs and task.status in ("queued", "started"):
                task.status, task.live = "cancelled", False

    def _park(self) -> None:
        """A paused run's queued tasks lose their messages until it is resumed."""
        for task in self.tasks.values():
            if task.status == "queued":
                task.live = False

    def _skip(self, slugs: list[str], reason: str, error: str | None = None) -> list[str]:
        """``_skip_steps``: returns the slugs it skipped, in step order."""
        skipped = []
        for s in self.flow.steps:
            state = self.states[s.slug]
            if s.slug in slugs and state.status in ("created", "waiting", "started", "failed"):
                state.status, state.skip_reason = "skipped", reason
                state.error_message = error if error is not None else state.error_message
                state.remaining_tasks = None
                skipped.append(s.slug)
        self._cancel_tasks(skipped)
        return skipped

    def _release_dependents(self, slugs: list[str]) -> None:
        """Steps that just completed or were skipped: the run and their dependents (created,
        or cancelled: created again if the failed run is reopened) count them as done."""
        self.remaining_steps -= len(slugs)
        for s in self.flow.steps:
            state = self.states[s.slug]
            finished = [d for d in s.deps if d in slugs]
            if not finished or state.status not in ("created", "cancelled"):
                continue
            state.remaining_deps -= len(finished)
            if s.kind == "map" and state.initial_tasks is None:
                parent = self.states[finished[0]]
                if parent.status == "skipped":
                    state.initial_tasks = 0
                elif self.flow.step(finished[0]).kind == "map":
                    state.initial_tasks = parent.initial_tasks
                elif isinstance(parent.output, list):
                    state.initial_tasks = len(parent.output)

    def _force_skip(self, slug: str, reason: str) -> None:
        subtree = [slug]
        for s in self.flow.steps:  # definition order is topological order
            if set(subtree).intersection(s.deps):
                subtree.append(s.slug)
        skipped = self._skip([slug], reason) + self._skip(subtree[1:], "dependency_skipped")
        self.remaining_steps -= len(skipped)
