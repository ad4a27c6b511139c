"""A pure-Python model of the pgflow run semantics, for the property tests.

The model holds one run of one flow and applies the same transitions as the SQL API:
``start_flow``, ``start_tasks``, ``complete_task`` and ``fail_task`` with conditions
(``if``/``ifNot`` by jsonb containment, ``when_unmet``), empty-map cascades, skips and
their cascade, type violations, retries and ``when_exhausted``. It is written from the
documented semantics (upstream's, and compat/UPSTREAM.md), not from the SQL:
tests/integration/test_model_property.py drives the SQL and the model side by side and
compares them.

It models pgflow-py where it deliberately differs from upstream (compat/UPSTREAM.md):
conditions are re-evaluated after every empty-map round (#8) and only a started run is
completed (#12).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------- flow definitions


@dataclass(frozen=True)
class StepSpec:
    """One step as ``pgflow.add_step`` receives it."""

    slug: str
    kind: str  # "single" | "map"
    deps: tuple[str, ...] = ()
    max_attempts: int | None = None
    base_delay: int | None = None
    start_delay: int | None = None
    when_exhausted: str = "fail"
    required: dict[str, Any] | None = None  # required_input_pattern (DSL `if`)
    forbidden: dict[str, Any] | None = None  # forbidden_input_pattern (DSL `ifNot`)
    when_unmet: str = "skip"

    def add_step_call(self) -> str:
        """The ``pgflow.add_step`` call defining this step, as readable SQL."""
        args = [f"'{self.slug}'"]
        if self.deps:
            args.append("deps_slugs => array[" + ", ".join(f"'{d}'" for d in self.deps) + "]")
        if self.kind == "map":
            args.append("step_type => 'map'")
        for name in ("max_attempts", "base_delay", "start_delay"):
            if getattr(self, name) is not None:
                args.append(f"{name} => {getattr(self, name)}")
        if self.when_exhausted != "fail":
            args.append(f"when_exhausted => '{self.when_exhausted}'")
        if self.required is not None:
            args.append(f"required_input_pattern => '{dumps(self.required)}'")
        if self.forbidden is not None:
            args.append(f"forbidden_input_pattern => '{dumps(self.forbidden)}'")
        if self.when_unmet != "skip":
            args.append(f"when_unmet => '{self.when_unmet}'")
        return f"add_step(flow, {', '.join(args)})"


@dataclass(frozen=True)
class FlowSpec:
    """A flow: options and steps in definition (= topological) order."""

    max_attempts: int
    base_delay: int
    steps: tuple[StepSpec, ...]

    def step(self, slug: str) -> StepSpec:
        return next(s for s in self.steps if s.slug == slug)

    def children(self, slug: str) -> list[StepSpec]:
        """Direct dependents of a step, in step order."""
        return [s for s in self.steps if slug in s.deps]

    def has_root_map(self) -> bool:
        return any(s.kind == "map" and not s.deps for s in self.steps)


def dumps(value: Any) -> str:
    """Canonical JSON text (sorted keys): equal texts mean equal JSON values."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def json_type(value: Any) -> str:
    """``jsonb_typeof`` of a JSON value (``null`` for JSON null)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


# ---------------------------------------------------------------- jsonb containment


def _scalar_equal(a: Any, b: Any) -> bool:
    # jsonb compares numbers by value (1 = 1.0) but never a boolean with a number.
    return json_type(a) == json_type(b) and a == b


def _contains(val: Any, tmpl: Any) -> bool:
    if isinstance(tmpl, dict):
        return isinstance(val, dict) and all(
            k in val and _value_contains(val[k], v) for k, v in tmpl.items()
        )
    if isinstance(tmpl, list):
        if not isinstance(val, list):
            return False
        for t in tmpl:
            if isinstance(t, dict | list):
                if not any(type(v) is type(t) and _contains(v, t) for v in val):
                    return False
            elif not any(not isinstance(v, dict | list) and _scalar_equal(v, t) for v in val):
                return False
        return True
    return not isinstance(val, dict | list) and _scalar_equal(val, tmpl)


def _value_contains(val: Any, tmpl: Any) -> bool:
    # An object member: same kind of value; containers compare recursively.
    if isinstance(tmpl, dict | list):
        return type(val) is type(tmpl) and _contains(val, tmpl)
    return not isinstance(val, dict | list) and _scalar_equal(val, tmpl)


def jsonb_contains(val: Any, tmpl: Any) -> bool:
    """PostgreSQL's ``val @> tmpl`` on two JSON values.

    Objects contain objects key by key; arrays contain arrays element by element (order
    and duplicates ignored); at the top level only, an array also contains a scalar that
    is one of its elements.
    """
    if isinstance(val, list) and not isinstance(tmpl, dict | list):
        return any(not isinstance(v, dict | list) and _scalar_equal(v, tmpl) for v in val)
    return _contains(val, tmpl)


# ---------------------------------------------------------------- run state


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
    status: str = "queued"
    attempts: int = 0
    output: Any = None
    error_message: str | None = None
    live: bool = True  # its pgmq message is still in the queue (not archived)


@dataclass
class Model:
    """One run of ``flow`` with ``run_input``; call :meth:`start` first."""

    flow: FlowSpec
    run_input: Any
    status: str = "started"
    output: Any = None
    remaining_steps: int = 0
    states: dict[str, StepState] = field(default_factory=dict)
    tasks: dict[tuple[str, int], TaskState] = field(default_factory=dict)

    # ------------------------------------------------------------ the SQL API
    def start(self) -> str | None:
        """``start_flow``; returns the error condition name when it must raise."""
        if self.flow.has_root_map() and not isinstance(self.run_input, list):
            return "invalid_parameter_value"
        self.remaining_steps = len(self.flow.steps)
        for s in self.flow.steps:
            initial = (None if s.deps else len(self.run_input)) if s.kind == "map" else 1
            self.states[s.slug] = StepState(remaining_deps=len(s.deps), initial_tasks=initial)
        if self._cascade():
            self._start_ready()
            self._maybe_complete()
        return None

    def visible(self) -> set[tuple[str, int]]:
        """Tasks a reader can receive: queued, with their message still in the queue."""
        return {k for k, t in self.tasks.items() if t.live and t.status == "queued"}

    def start_task(self, key: tuple[str, int]) -> tuple[Any, Any] | None:
        """``start_tasks`` for one task; returns (input, flow_input) or None if not claimed."""
        task = self.tasks[key]
        if task.status != "queued" or self.status != "started":
            return None
        if self.states[key[0]].status != "started":
            return None
        task.status = "started"
        task.attempts += 1
        return self.task_input(key)

    def task_input(self, key: tuple[str, int]) -> tuple[Any, Any]:
        step = self.flow.step(key[0])
        if step.kind == "map" and not step.deps:
            return self.run_input[key[1]], None
        if step.kind == "map":
            return self.states[step.deps[0]].output[key[1]], None
        if not step.deps:
            return {}, self.run_input
        return self._dependency_outputs(step), None

    def complete(self, key: tuple[str, int], output: Any) -> None:
        """``complete_task``."""
        slug, _ = key
        step, state, task = self.flow.step(slug), self.states[slug], self.tasks[key]
        if self.status == "failed":
            return
        if state.status != "started":
            task.live = False
            return
        if task.status != "started":
            return
        if step.kind == "single" and not isinstance(output, list):
            child = next(
                (
                    c
                    for c in self.flow.children(slug)
                    if c.kind == "map" and self.states[c.slug].initial_tasks is None
                ),
                None,
            )
            if child is not None:
                produced = json_type(output)
                task.status, task.output, task.live = "failed", output, False
                task.error_message = f"[TYPE_VIOLATION] Produced {produced} instead of array"
                state.status = "failed"
                state.error_message = (
                    f"[TYPE_VIOLATION] Map step {child.slug} expects array input but "
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
        for child in self.flow.children(slug):
            cs = self.states[child.slug]
            if cs.status != "created":
                continue
            cs.remaining_deps -= 1
            if child.kind == "map" and cs.initial_tasks is None:
                if step.kind == "map":
                    cs.initial_tasks = state.initial_tasks
                elif isinstance(state.output, list):
                    cs.initial_tasks = len(state.output)
        self.remaining_steps -= 1
        if self._cascade():
            self._start_ready()
            self._maybe_complete()

    def fail(self, key: tuple[str, int], error: str) -> None:
        """``fail_task``."""
        slug, _ = key
        step, state, task = self.flow.step(slug), self.states[slug], self.tasks[key]
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
        if task.attempts < max_attempts:
            task.status = "queued"
            state.error_message = None
            return
        task.status, task.live = "failed", False
        if step.when_exhausted == "fail":
            state.status, state.error_message = "failed", error
            self._fail_run()
            return
        state.status, state.skip_reason, state.error_message = "skipped", "handler_failed", error
        state.remaining_tasks = None
        self._archive_step_tasks([slug])
        if step.when_exhausted == "skip-cascade":
            self.remaining_steps -= 1
            self._force_skip(slug, "handler_failed")
        else:
            self._release_skipped([slug])
            if not self._cascade():
                return
            self._start_ready()
        self._maybe_complete()

    # ------------------------------------------------------------ internals
    def _dependency_outputs(self, step: StepSpec) -> dict[str, Any]:
        return {d: self.states[d].output for d in step.deps if self.states[d].status == "completed"}

    def _condition_met(self, step: StepSpec) -> bool:
        value = self.run_input if not step.deps else self._dependency_outputs(step)
        required_ok = step.required is None or jsonb_contains(value, step.required)
        forbidden_ok = step.forbidden is None or not jsonb_contains(value, step.forbidden)
        return required_ok and forbidden_ok

    def _cascade(self) -> bool:
        while True:
            if not self._resolve_conditions():
                return False
            if self._complete_taskless() == 0:
                return True

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
            skipped = [s.slug for s in unmet if s.when_unmet == "skip"]
            for slug in skipped:
                self.states[slug].status = "skipped"
                self.states[slug].skip_reason = "condition_unmet"
            self._release_skipped(skipped)
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
            for s in done:
                for child in self.flow.children(s.slug):
                    self.states[child.slug].remaining_deps -= 1
                    if child.kind == "map":
                        self.states[child.slug].initial_tasks = 0
            self.remaining_steps -= len(done)
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
            ):
                state.status, state.remaining_tasks = "started", state.initial_tasks
                for i in range(state.initial_tasks or 0):
                    self.tasks[(s.slug, i)] = TaskState()

    def _maybe_complete(self) -> None:
        if self.status != "started" or self.remaining_steps != 0:
            return
        self.status = "completed"
        leaves = {
            s.slug: self.states[s.slug].output
            for s in self.flow.steps
            if not self.flow.children(s.slug) and self.states[s.slug].status == "completed"
        }
        self.output = leaves or None

    def _fail_run(self) -> None:
        if self.status != "started":
            return
        self.status = "failed"
        for task in self.tasks.values():
            if task.status in ("queued", "started"):
                task.live = False

    def _archive_step_tasks(self, slugs: list[str]) -> None:
        for (slug, _), task in self.tasks.items():
            if slug in slugs and task.status in ("queued", "started"):
                task.live = False

    def _release_skipped(self, slugs: list[str]) -> None:
        if not slugs:
            return
        self.remaining_steps -= len(slugs)
        for s in self.flow.steps:
            state = self.states[s.slug]
            skipped_parents = sum(1 for d in s.deps if d in slugs)
            if skipped_parents and state.status == "created":
                state.remaining_deps -= skipped_parents
                if s.kind == "map":
                    state.initial_tasks = 0

    def _force_skip(self, slug: str, reason: str) -> None:
        subtree = {slug}
        for s in self.flow.steps:  # definition order is topological order
            if subtree.intersection(s.deps):
                subtree.add(s.slug)
        skipped = []
        for s in self.flow.steps:
            state = self.states[s.slug]
            if s.slug in subtree and state.status in ("created", "started"):
                state.status = "skipped"
                state.skip_reason = reason if s.slug == slug else "dependency_skipped"
                state.remaining_tasks = None
                skipped.append(s.slug)
        self.remaining_steps -= len(skipped)
        self._archive_step_tasks(skipped)
