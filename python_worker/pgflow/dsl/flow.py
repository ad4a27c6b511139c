"""Flow: a DAG of steps, each registered by decorating its handler."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, Unpack, overload

from pgflow.dsl import compiler
from pgflow.dsl._build import (
    OPTION_NAMES,
    MakeWait,
    MapOptions,
    StepOptions,
    build_step,
    step_name,
)
from pgflow.dsl._flow_options import FlowOptions
from pgflow.dsl._rules import FLOW_SLUG_MAX_LENGTH, RuleViolation, check_slug
from pgflow.dsl._wait_steps import WaitSteps
from pgflow.dsl.step import Handler, Step, StepType
from pgflow.errors import FlowDefinitionError

DEFAULT_TIMEOUT_SECONDS = 60
"""Task timeout when neither the step nor the flow sets one (``create_flow``'s default)."""

H = TypeVar("H", bound=Handler)


class Flow(WaitSteps, FlowOptions):
    """A workflow: a DAG of steps registered by decorators.

    Steps are registered with :meth:`step`, :meth:`array` and :meth:`map` (handlers), and
    :meth:`wait` and :meth:`sleep` (steps without handler), in topological order: a step
    may only depend on steps defined before it.

    Options left as None are not sent to the database, which applies its defaults
    (3 attempts, a 5-second base delay, a 60-second timeout, no concurrency limit, no run
    timeout).

    Args:
        slug: Flow slug: 1 to 47 characters matching ``^[a-zA-Z_][a-zA-Z0-9_]*$``, not
            ``run`` (it is also the name of the flow's pgmq queue).
        max_attempts: Attempts per task before its step fails, first try included (>= 1).
        base_delay: Retry backoff base in seconds (>= 1); retry n waits base_delay * 2**n.
        timeout: Seconds a task may run before it counts as stalled (>= 3).
        concurrency_limit: At most this many runs per concurrency key hold a slot (are
            started or paused) at once (>= 1); only runs started with a
            ``concurrency_key`` are limited. None: no limit.
        on_limit: What a start over the limit does: ``"queue"`` (SQL default: the run waits
            in status ``queued`` and starts in start order when a slot frees) or
            ``"reject"`` (``start_flow`` raises). Only with ``concurrency_limit``.
        run_timeout: Seconds (>= 1): a run's default deadline is its start plus this; a run
            past its deadline expires. None: no deadline unless the start gives one.
        cron: Optional schedule on which pg_cron starts runs: a 5-field cron expression
            (``"0 * * * *"``) or ``"N seconds"`` (pg_cron >= 1.5). The worker (or
            ``pgflow schedule sync``) creates it with ``pgflow.schedule_flow``.
        cron_input: JSON input of the scheduled runs (default ``{}``; a list for flows with
            a root map step).

    Raises:
        FlowDefinitionError: The slug or an option breaks a rule (``on_limit`` without
            ``concurrency_limit``: rule ``on_limit_without_concurrency_limit``).
    """

    def __init__(
        self,
        slug: str,
        *,
        max_attempts: int | None = None,
        base_delay: int | None = None,
        timeout: int | None = None,
        concurrency_limit: int | None = None,
        on_limit: str | None = None,
        run_timeout: int | None = None,
        cron: str | None = None,
        cron_input: Any = None,
    ):
        try:
            self._slug = check_slug(slug, what="flow", max_length=FLOW_SLUG_MAX_LENGTH)
            self._init_options(
                max_attempts=max_attempts,
                base_delay=base_delay,
                timeout=timeout,
                concurrency_limit=concurrency_limit,
                on_limit=on_limit,
                run_timeout=run_timeout,
                cron=cron,
                cron_input=cron_input,
            )
        except RuleViolation as violation:
            raise FlowDefinitionError(str(slug), None, violation.rule, violation.detail) from None
        self._steps: dict[str, Step] = {}

    # ------------------------------------------------------------------ read access
    @property
    def slug(self) -> str:
        """The flow slug (also the name of its pgmq queue)."""
        return self._slug

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps in definition order (a topological order of the DAG)."""
        return tuple(self._steps.values())

    def get_step(self, slug: str) -> Step:
        """Return the step called ``slug``.

        Raises:
            KeyError: The flow has no such step.
        """
        try:
            return self._steps[slug]
        except KeyError:
            known = ", ".join(self._steps) or "none"
            raise KeyError(f"flow {self._slug!r} has no step {slug!r} (steps: {known})") from None

    def effective_timeout(self, step_slug: str) -> int:
        """Return the timeout in seconds of a step's tasks: the step's, else the flow's, else 60.

        Raises:
            KeyError: The flow has no such step.
        """
        step = self.get_step(step_slug)
        if step.timeout is not None:
            return step.timeout
        return self._timeout if self._timeout is not None else DEFAULT_TIMEOUT_SECONDS

    def shape(self) -> dict[str, Any]:
        """Return the flow's shape for ``pgflow.ensure_flow_compiled`` (upstream's shape format).

        See :func:`pgflow.dsl.compiler.flow_shape` for the format.
        """
        return compiler.flow_shape(self)

    def to_sql(self) -> str:
        """Return a SQL script (``create_flow``, ``add_step``, ``add_wait`` / ``add_timer``)."""
        return compiler.flow_to_sql(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._slug!r}, steps={list(self._steps)!r})"

    # ------------------------------------------------------------------ decorators
    @overload
    def step(self, handler: H, /) -> H: ...

    @overload
    def step(self, handler: None = None, /, **options: Unpack[StepOptions]) -> Callable[[H], H]: ...

    def step(
        self,
        handler: H | None = None,
        /,
        *,
        depends_on: Sequence[str] | None = None,
        slug: str | None = None,
        max_attempts: int | None = None,
        base_delay: int | None = None,
        timeout: int | None = None,
        start_delay: int | None = None,
        max_in_flight: int | None = None,
        if_: dict[str, Any] | None = None,
        if_not: dict[str, Any] | None = None,
        when_unmet: str | None = None,
        when_exhausted: str | None = None,
        wait_for: str | None = None,
        wait_timeout: int | None = None,
        on_timeout: str | None = None,
        signal_match: dict[str, Any] | None = None,
    ) -> H | Callable[[H], H]:
        """Register a single step (one task per run): ``@flow.step(...)`` above its handler.

        Bare ``@flow.step`` (no parentheses) works too when no option is needed. The
        handler gets the run input when the step has no dependencies, else a dict
        ``{dependency slug: its output}`` (skipped dependencies are absent).

        Args:
            handler: Set only by the bare form ``@flow.step``: the handler itself.
            depends_on: Slugs of steps defined earlier that this step waits for.
            slug: Step slug; defaults to the handler's ``__name__``.
            max_attempts: Attempts before the step fails (>= 1); None inherits the flow's.
            base_delay: Retry backoff base in seconds (>= 1); None inherits the flow's.
            timeout: Task timeout in seconds (>= 3); None inherits the flow's.
            start_delay: Seconds before the first task becomes visible (>= 0).
            max_in_flight: At most this many tasks of the step are started at once, across
                runs and workers (>= 1); further tasks wait, spending no attempt. None: no
                limit.
            if_: JSON object the input must contain for the step to run.
            if_not: JSON object the input must not contain for the step to run.
            when_unmet: ``"fail"``, ``"skip"`` (SQL default) or ``"skip-cascade"``;
                only together with ``if_`` or ``if_not``.
            when_exhausted: ``"fail"`` (SQL default), ``"skip"`` or ``"skip-cascade"``.
            wait_for: A signal name: once its dependencies are complete (and its condition
                met) the step waits, holding no task and no worker, for a signal of that
                name sent to the run (``pgflow.send_signal``); then its handler runs and
                reads the signal as ``ctx.signal``. None: the step does not wait.
            wait_timeout: Seconds (>= 1) the step waits at most, counted from when it
                starts waiting (DB clock); None waits for ever. Only with ``wait_for``.
            on_timeout: What a timeout does: ``"fail"`` (default: the step fails, then its
                ``when_exhausted`` applies), ``"skip"``, ``"skip-cascade"`` (as an unmet
                condition) or ``"continue"`` (the handler runs with ``ctx.signal``
                timed out). Only with ``wait_for``.
            signal_match: JSON object a signal's payload must contain (``@>``) for the
                step to take it; None takes any. Only with ``wait_for``.

        Returns:
            The decorator, which registers the handler and returns it unchanged (used bare:
            the handler, registered).

        Raises:
            FlowDefinitionError: The step breaks a rule (raised when decorating).
            TypeError: A positional argument that is not a handler.
        """
        options = _options(locals())
        decorator = self._decorator("single", False, slug, depends_on, options)
        return _bare_or(decorator, handler, "step")

    @overload
    def array(self, handler: H, /) -> H: ...

    @overload
    def array(
        self, handler: None = None, /, **options: Unpack[StepOptions]
    ) -> Callable[[H], H]: ...

    def array(
        self,
        handler: H | None = None,
        /,
        *,
        depends_on: Sequence[str] | None = None,
        slug: str | None = None,
        max_attempts: int | None = None,
        base_delay: int | None = None,
        timeout: int | None = None,
        start_delay: int | None = None,
        max_in_flight: int | None = None,
        if_: dict[str, Any] | None = None,
        if_not: dict[str, Any] | None = None,
        when_unmet: str | None = None,
        when_exhausted: str | None = None,
        wait_for: str | None = None,
        wait_timeout: int | None = None,
        on_timeout: str | None = None,
        signal_match: dict[str, Any] | None = None,
    ) -> H | Callable[[H], H]:
        """Register a single step whose output must be a JSON array (for a map to consume).

        Stored as step type ``single`` (``Step.is_array`` is True); arguments, return value
        and errors are as for :meth:`step`.
        """
        options = _options(locals())
        decorator = self._decorator("single", True, slug, depends_on, options)
        return _bare_or(decorator, handler, "array")

    @overload
    def map(self, handler: H, /) -> H: ...

    @overload
    def map(self, handler: None = None, /, **options: Unpack[MapOptions]) -> Callable[[H], H]: ...

    def map(
        self,
        handler: H | None = None,
        /,
        *,
        array: str | None = None,
        slug: str | None = None,
        max_attempts: int | None = None,
        base_delay: int | None = None,
        timeout: int | None = None,
        start_delay: int | None = None,
        max_in_flight: int | None = None,
        if_: dict[str, Any] | None = None,
        if_not: dict[str, Any] | None = None,
        when_unmet: str | None = None,
        when_exhausted: str | None = None,
        wait_for: str | None = None,
        wait_timeout: int | None = None,
        on_timeout: str | None = None,
        signal_match: dict[str, Any] | None = None,
    ) -> H | Callable[[H], H]:
        """Register a map step: one task per array element, output = results in order.

        The handler gets one element of the array.

        Args:
            handler: Set only by the bare form ``@flow.map``: the handler itself.
            array: Slug of the earlier step whose output array is mapped over; None maps
                over the run input, which must then be an array.
            slug: Step slug; defaults to the handler's ``__name__``.
            max_attempts: As for :meth:`step`.
            base_delay: As for :meth:`step`.
            timeout: As for :meth:`step`.
            start_delay: As for :meth:`step`.
            max_in_flight: As for :meth:`step`: caps the tasks (elements) of the map
                running at once.
            if_: As for :meth:`step`.
            if_not: As for :meth:`step`.
            when_unmet: As for :meth:`step`.
            when_exhausted: As for :meth:`step`.
            wait_for: Not allowed (rule ``wait_on_map``): only single steps wait.
            wait_timeout: Not allowed, as ``wait_for``.
            on_timeout: Not allowed, as ``wait_for``.
            signal_match: Not allowed, as ``wait_for``.

        Returns:
            As for :meth:`step`.

        Raises:
            FlowDefinitionError: The step breaks a rule (``array`` must name one step).
        """
        options = _options(locals())
        decorator = self._decorator("map", False, slug, array, options)
        return _bare_or(decorator, handler, "map")

    # ------------------------------------------------------------------ registration
    def _decorator(
        self,
        step_type: StepType,
        is_array: bool,
        slug: str | None,
        depends_on: object,
        options: dict[str, Any],
    ) -> Callable[[H], H]:
        # depends_on is the raw depends_on= of step/array, or the raw array= of map.
        def register(function: H) -> H:
            self._add_step(function, step_type, is_array, slug, depends_on, options)
            return function

        return register

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
        try:
            step = build_step(
                self._steps,
                handler,
                step_type=step_type,
                is_array=is_array,
                slug=slug,
                depends_on=depends_on,
                options=options,
                make_wait=make_wait,
            )
        except RuleViolation as violation:
            name = step_name(handler, slug)
            raise FlowDefinitionError(self._slug, name, violation.rule, violation.detail) from None
        self._steps[step.slug] = step
        return step


def _bare_or(decorator: Callable[[H], H], handler: H | None, name: str) -> H | Callable[[H], H]:
    """Apply ``decorator`` to ``handler`` when used bare (``@flow.step``), else return it."""
    if handler is None:
        return decorator
    if callable(handler):
        return decorator(handler)
    raise TypeError(
        f"flow.{name}() takes keyword arguments only (got {handler!r}); "
        f"write @flow.{name} or @flow.{name}(depends_on=[...], ...)"
    )


def _options(arguments: dict[str, Any]) -> dict[str, Any]:
    """Pick the step options out of a decorator method's ``locals()``."""
    return {name: arguments[name] for name in OPTION_NAMES}
