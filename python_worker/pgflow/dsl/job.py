"""Job: a flow of one step, defined by decorating its handler."""

from __future__ import annotations

import functools
from typing import Any

from pgflow.dsl._build import OPTION_NAMES
from pgflow.dsl.flow import Flow
from pgflow.dsl.step import Handler
from pgflow.errors import FlowDefinitionError


class Job(Flow):
    """A flow with a single root step, defined by decorating its handler.

    ``@Job("send_email", max_attempts=5)`` above ``def send_email(input, ctx)`` registers
    the function as the one step, whose slug is the job's slug, and binds the name
    ``send_email`` to the Job: a :class:`Flow` to hand to the worker or to
    ``start_flow``, which is still callable like the function (calls go to the handler)
    and exposes it as :attr:`handler`. The options are flow options (the step inherits
    them). ``step``, ``array``, ``map``, ``wait`` and ``sleep`` are not available on a Job.

    Args:
        slug: The job slug (flow slug and step slug), as for :class:`Flow`.
        max_attempts: As for :class:`Flow`.
        base_delay: As for :class:`Flow`.
        timeout: As for :class:`Flow`.
        cron: As for :class:`Flow`: a schedule on which pg_cron starts the job.
        cron_input: As for :class:`Flow`.
        concurrency_limit: As for :class:`Flow`.
        on_limit: As for :class:`Flow`.
        run_timeout: As for :class:`Flow`.

    Raises:
        FlowDefinitionError: The slug or an option breaks a rule.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Register the handler (first call, as a decorator), later call the handler.

        Raises:
            FlowDefinitionError: The first call is not given exactly one callable.
        """
        if self._steps:
            return self.handler(*args, **kwargs)
        if len(args) != 1 or kwargs:
            raise FlowDefinitionError(
                self._slug,
                self._slug,
                "handler_callable",
                "a Job is a decorator: put @Job(slug, ...) above the handler function",
            )
        handler = args[0]
        self._add_step(handler, "single", False, self._slug, None, dict.fromkeys(OPTION_NAMES))
        functools.update_wrapper(self, handler, updated=())
        return self

    @property
    def handler(self) -> Handler:
        """The job's handler.

        Raises:
            FlowDefinitionError: No handler has been registered yet.
        """
        if not self._steps:
            raise FlowDefinitionError(
                self._slug, None, "job_single_step", "the Job has no handler yet"
            )
        handler = self.steps[0].handler
        if handler is None:  # never: a Job's one step is its decorated handler
            raise FlowDefinitionError(self._slug, None, "job_single_step", "the Job has no handler")
        return handler

    def step(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: a Job has exactly one step."""
        raise self._single_step_error()

    def array(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: a Job has exactly one step."""
        raise self._single_step_error()

    def map(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: a Job has exactly one step."""
        raise self._single_step_error()

    def wait(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: a Job has exactly one step; use Flow for steps that wait."""
        raise self._single_step_error()

    def sleep(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: a Job has exactly one step."""
        raise self._single_step_error()

    def _single_step_error(self) -> FlowDefinitionError:
        return FlowDefinitionError(
            self._slug,
            None,
            "job_single_step",
            "a Job has exactly one step, its decorated handler; use Flow for several steps",
        )
