"""The flow-wide options of a Flow: checked once, then read-only (a Flow mixin)."""

from __future__ import annotations

from typing import Any

from pgflow.dsl._rules import (
    FLOW_OPTION_MINIMUMS,
    check_cron,
    check_cron_input,
    check_on_limit,
    check_option,
)


class FlowOptions:
    """The flow-wide options of :class:`~pgflow.dsl.Flow`, checked once and then read-only.

    Options left as None are not sent to the database, which applies its defaults (3
    attempts, a 5-second base delay, a 60-second timeout, no concurrency limit, on_limit
    ``"queue"``, no run timeout).
    """

    _max_attempts: int | None
    _base_delay: int | None
    _timeout: int | None
    _concurrency_limit: int | None
    _on_limit: str | None
    _run_timeout: int | None
    _cron: str | None
    _cron_input: Any

    def _init_options(
        self,
        *,
        max_attempts: object,
        base_delay: object,
        timeout: object,
        concurrency_limit: object,
        on_limit: object,
        run_timeout: object,
        cron: object,
        cron_input: object,
    ) -> None:
        """Check the options as given to ``Flow(...)`` and store them.

        Raises:
            RuleViolation: ``option_type`` / ``option_range`` for an integer option that is
                not an int or is out of range (see ``FLOW_OPTION_MINIMUMS``), ``on_limit``
                for an on_limit other than queue or reject,
                ``on_limit_without_concurrency_limit`` for an on_limit without a
                concurrency_limit, ``cron`` / ``cron_input`` for a bad schedule.
        """
        ints = {
            name: check_option(name, value, FLOW_OPTION_MINIMUMS[name])
            for name, value in (
                ("max_attempts", max_attempts),
                ("base_delay", base_delay),
                ("timeout", timeout),
                ("concurrency_limit", concurrency_limit),
                ("run_timeout", run_timeout),
            )
        }
        self._max_attempts = ints["max_attempts"]
        self._base_delay = ints["base_delay"]
        self._timeout = ints["timeout"]
        self._concurrency_limit = ints["concurrency_limit"]
        self._run_timeout = ints["run_timeout"]
        self._on_limit = check_on_limit(on_limit, self._concurrency_limit)
        self._cron = check_cron(cron)
        self._cron_input = check_cron_input(cron_input)

    @property
    def max_attempts(self) -> int | None:
        """Attempts per task, first try included; None leaves the SQL default (3)."""
        return self._max_attempts

    @property
    def base_delay(self) -> int | None:
        """Retry backoff base in seconds; None leaves the SQL default (5)."""
        return self._base_delay

    @property
    def timeout(self) -> int | None:
        """Task timeout in seconds; None leaves the SQL default (60)."""
        return self._timeout

    @property
    def concurrency_limit(self) -> int | None:
        """Most runs per concurrency key holding a slot (started or paused) at once.

        Only runs started with a ``concurrency_key`` are limited. None: no limit.
        """
        return self._concurrency_limit

    @property
    def on_limit(self) -> str | None:
        """What a start over the concurrency limit does: ``"queue"`` or ``"reject"``.

        ``"queue"``: the run waits in status ``queued`` and starts, in start order, when a
        slot frees; ``"reject"``: ``start_flow`` raises (SQLSTATE 53400). None leaves the
        SQL default (``"queue"``).
        """
        return self._on_limit

    @property
    def run_timeout(self) -> int | None:
        """Seconds a run may take: its default deadline is its start plus this; None: none.

        A run past its deadline expires (status ``expired``, unfinished work cancelled).
        """
        return self._run_timeout

    @property
    def cron(self) -> str | None:
        """The schedule on which pg_cron starts runs, or None for no schedule."""
        return self._cron

    @property
    def cron_input(self) -> Any:
        """The JSON input of scheduled runs ({} unless given)."""
        return self._cron_input
