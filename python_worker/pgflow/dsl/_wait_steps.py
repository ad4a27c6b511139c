"""``Flow.wait`` and ``Flow.sleep``: the steps without handler (a :class:`Flow` mixin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pgflow.dsl._build import OPTION_NAMES, MakeWait
from pgflow.dsl.step import Handler, Step, StepType
from pgflow.dsl.wait import Wait, signal_wait, timer_wait


class WaitSteps:
    """The methods of :class:`~pgflow.dsl.Flow` that define steps without handler.

    Such a step never gets a task and never runs on a worker: the database completes it
    when its wait resolves (a signal taken, a timeout, a timer due). Later steps depend on
    it by its slug like on any step.
    """

    def wait(
        self,
        slug: str,
        signal: str | None = None,
        *,
        depends_on: Sequence[str] | None = None,
        timeout: int | None = None,
        on_timeout: str | None = None,
        match: dict[str, Any] | None = None,
        if_: dict[str, Any] | None = None,
        if_not: dict[str, Any] | None = None,
        when_unmet: str | None = None,
        when_exhausted: str | None = None,
    ) -> Step:
        """Add a step without handler that waits for a signal; its output is the payload.

        ``flow.wait("approved", depends_on=["submit"])`` adds step ``approved``: once
        ``submit`` is complete it waits, holding no task and no worker, for a signal named
        ``approved`` sent to the run (``pgflow.send_signal``, ``Client.send_signal``), and
        completes with the signal's payload as its output (JSON null when the signal had
        none, or after a timeout with ``on_timeout="continue"``). A signal sent before the
        step waits is kept and taken when it does.

        Args:
            slug: The step slug.
            signal: The signal name (1 to 128 characters, not blank, no control characters
                or surrounding spaces); None uses ``slug``.
            depends_on: Slugs of steps defined earlier that must complete first.
            timeout: Seconds (>= 1) the step waits at most, counted from when it starts
                waiting (DB clock); None waits for ever.
            on_timeout: ``"fail"`` (default: the step fails, then ``when_exhausted``
                applies), ``"skip"``, ``"skip-cascade"`` (as an unmet condition) or
                ``"continue"`` (the step completes with output null).
            match: JSON object a signal's payload must contain (``@>``) for the step to
                take it; None takes any signal of that name.
            if_: As for :meth:`~pgflow.dsl.Flow.step` (a condition on the step input).
            if_not: As for :meth:`~pgflow.dsl.Flow.step`.
            when_unmet: As for :meth:`~pgflow.dsl.Flow.step`.
            when_exhausted: As for :meth:`~pgflow.dsl.Flow.step`: what a failed step
                (a timeout with ``on_timeout="fail"``) does to the run.

        Returns:
            The registered step (``step.slug`` is what later steps list in depends_on).

        Raises:
            FlowDefinitionError: The step breaks a rule (slug, dependencies, condition,
                ``signal_name``, ``option_range`` of timeout, ``on_timeout``, ``pattern``
                of match).
        """
        name = slug if signal is None else signal

        def make_wait(_dependencies: tuple[str, ...]) -> Wait:
            return signal_wait(
                name, match=match, timeout=timeout, on_timeout=on_timeout, runs_handler=False
            )

        options = _no_task_options(if_, if_not, when_unmet, when_exhausted)
        return self._add_step(None, "single", False, slug, depends_on, options, make_wait)

    def sleep(
        self,
        slug: str,
        *,
        seconds: int | None = None,
        until: str | None = None,
        depends_on: Sequence[str] | None = None,
        if_: dict[str, Any] | None = None,
        if_not: dict[str, Any] | None = None,
        when_unmet: str | None = None,
        when_exhausted: str | None = None,
    ) -> Step:
        """Add a timer: a step without handler that completes when the time comes.

        ``flow.sleep("cool_off", seconds=3600, depends_on=["order"])`` completes an hour
        after ``order`` completed; ``flow.sleep("remind", until="input.remind_at")``
        completes at the ISO 8601 timestamp in the run input's ``remind_at`` (without
        offset: UTC). Times are those of the database clock; a timestamp already past
        completes the step at once, one that cannot be read fails it. Its output is
        ``{"due_at", "fired_at"}``.

        Args:
            slug: The step slug.
            seconds: Seconds (>= 0) to wait once the step is ready; or give ``until``.
            until: Where to read the timestamp: ``"input.<key>..."`` in the run input or
                ``"<dependency>.<key>..."`` in the output of a step listed in
                ``depends_on``; or give ``seconds``.
            depends_on: Slugs of steps defined earlier that must complete first.
            if_: As for :meth:`~pgflow.dsl.Flow.step`.
            if_not: As for :meth:`~pgflow.dsl.Flow.step`.
            when_unmet: As for :meth:`~pgflow.dsl.Flow.step`.
            when_exhausted: As for :meth:`~pgflow.dsl.Flow.step` (an unreadable timestamp
                fails the step).

        Returns:
            The registered step.

        Raises:
            FlowDefinitionError: The step breaks a rule (slug, dependencies, condition,
                ``sleep_time`` for both or neither of seconds and until, ``option_range``
                of seconds, ``sleep_until`` for a path not rooted at input or a
                dependency).
        """

        def make_wait(dependencies: tuple[str, ...]) -> Wait:
            return timer_wait(seconds=seconds, until=until, dependencies=dependencies)

        options = _no_task_options(if_, if_not, when_unmet, when_exhausted)
        return self._add_step(None, "single", False, slug, depends_on, options, make_wait)

    def _add_step(
        self,
        handler: Handler | None,
        step_type: StepType,
        is_array: bool,
        slug: str | None,
        depends_on: object,
        options: dict[str, Any],
        make_wait: MakeWait | None = None,
    ) -> Step:
        """Validate and register one step (implemented by :class:`~pgflow.dsl.Flow`)."""
        raise NotImplementedError


def _no_task_options(
    if_: object, if_not: object, when_unmet: object, when_exhausted: object
) -> dict[str, Any]:
    """The decorator options of a step without handler: conditions and modes only."""
    options: dict[str, Any] = dict.fromkeys(OPTION_NAMES)
    options.update(if_=if_, if_not=if_not, when_unmet=when_unmet, when_exhausted=when_exhausted)
    return options
