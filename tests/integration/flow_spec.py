"""The flow definitions of the model property tests: a flow, its steps and their waits, as
``pgflow.create_flow``, ``add_step``, ``add_wait`` and ``add_timer`` receive them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.integration.jsonb_model import dumps


@dataclass(frozen=True)
class WaitSpec:
    """What a single step waits for before it runs (``add_wait`` or ``add_timer``).

    kind "signal": a signal named ``signal_name`` whose payload contains ``match`` (None:
    any payload), at most ``timeout`` seconds (None: no limit), then ``on_timeout``;
    ``runs_handler`` False: the step has no handler and completes with the payload. kind
    "timer": due ``seconds`` after it starts waiting, or at the timestamp at ``until``.
    """

    kind: str  # "signal" | "timer"
    signal_name: str | None = None
    match: dict[str, Any] | None = None
    timeout: int | None = None
    on_timeout: str = "fail"
    runs_handler: bool = True  # signal waits only: a timer has no handler
    seconds: int | None = None
    until: str | None = None  # "input.<key>"

    @property
    def has_handler(self) -> bool:
        """Whether the step runs its handler once the wait ends (else it completes)."""
        return self.kind == "signal" and self.runs_handler

    def sql_call(self, slug: str) -> str:
        """The ``add_wait`` / ``add_timer`` call defining this wait, as readable SQL."""
        if self.kind == "timer":
            when = (
                f"seconds => {self.seconds}"
                if self.until is None
                else f"until_path => '{self.until}'"
            )
            return f"add_timer(flow, '{slug}', {when})"
        args = [f"'{slug}'", f"'{self.signal_name}'"]
        if self.match is not None:
            args.append(f"signal_match => '{dumps(self.match)}'")
        if self.timeout is not None:
            args.append(f"timeout => {self.timeout}, on_timeout => '{self.on_timeout}'")
        if not self.runs_handler:
            args.append("runs_handler => false")
        return f"add_wait(flow, {', '.join(args)})"


@dataclass(frozen=True)
class StepSpec:
    """One step as ``pgflow.add_step`` receives it (and its wait, if any)."""

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
    wait: WaitSpec | None = None  # single steps only

    def add_step_call(self) -> str:
        """The ``pgflow.add_step`` call defining this step (then its wait), as readable SQL."""
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
        call = f"add_step(flow, {', '.join(args)})"
        return call if self.wait is None else f"{call}; {self.wait.sql_call(self.slug)}"

    @property
    def has_handler(self) -> bool:
        """Whether the step runs a handler (has tasks): not a timer or a handler-less wait."""
        return self.wait is None or self.wait.has_handler


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

    def signal_names(self) -> list[str]:
        """The names the flow's steps wait for, each once, in step order."""
        names = [s.wait.signal_name for s in self.steps if s.wait and s.wait.signal_name]
        return list(dict.fromkeys(names))
