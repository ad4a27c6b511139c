"""The run-control verbs of :class:`~pgflow.client.AsyncClient`.

The same verbs, arguments, results and errors as :class:`~pgflow.client.Client`'s
(:mod:`pgflow.client.sync_control`, which documents them in full), sending the same
statements through the plans of :mod:`pgflow.client.control_plans`.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from pgflow.client import control_plans
from pgflow.client.plans import Plan
from pgflow.client.records import RetryingTask, RunControlResult, RunEvent

T = TypeVar("T")


class AsyncRunControl:
    """The run-control verbs of :class:`~pgflow.client.AsyncClient` (a mixin)."""

    async def _run(self, plan: Plan[T]) -> T:
        raise NotImplementedError  # the client's

    async def cancel_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Cancel a started, paused or queued run for good; see :meth:`pgflow.Client.cancel_run`.

        Raises:
            RunStateError: the run is completed, failed or cancelled; nothing changed.
            RunNotFound: no run has this id.
            InvalidRunId, InvalidControlArgument: bad arguments (nothing is sent).
            PermissionDenied: the database role lacks ``pgflow_operator``.
        """
        return await self._run(
            control_plans.run_verb(
                "cancel_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def pause_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Pause a started run; see :meth:`pgflow.Client.pause_run`.

        Raises:
            RunStateError: the run is not started. Others as :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.run_verb(
                "pause_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def resume_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Resume a paused run; see :meth:`pgflow.Client.resume_run`.

        Raises:
            RunStateError: the run is not paused. Others as :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.run_verb(
                "resume_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def retry_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Retry a failed run from its failed steps; see :meth:`pgflow.Client.retry_run`.

        Raises:
            RunStateError: the run is not failed. ConcurrencyLimitReached: its key has no
                free slot. Others as :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.run_verb(
                "retry_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def rerun(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Start a new run with the same input; see :meth:`pgflow.Client.rerun`.

        Returns:
            The NEW run's id and status (the old run's when nothing was done).

        Raises:
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as
                :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.run_verb(
                "rerun_flow", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def skip_step(
        self,
        run_id: str | uuid.UUID,
        step_slug: str,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Skip one step by hand; see :meth:`pgflow.Client.skip_step`.

        Raises:
            RunStateError: the run or the step is in a status the verb does not apply to.
            StepNotFound: the run has no such step. Others as :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.skip_step(
                run_id, step_slug, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    async def complete_step(
        self,
        run_id: str | uuid.UUID,
        step_slug: str,
        output: Any,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Complete one step by hand with ``output``; see :meth:`pgflow.Client.complete_step`.

        Raises:
            RunStateError: the run or the step is in a status the verb does not apply to.
            StepNotFound: the run has no such step.
            InvalidControlArgument: the output is not JSON, not an array where one is
                needed, or too large. Others as :meth:`cancel_run`.
        """
        return await self._run(
            control_plans.complete_step(
                run_id,
                step_slug,
                output,
                actor=actor,
                reason=reason,
                expected_status=expected_status,
            )
        )

    async def events(self, run_id: str | uuid.UUID) -> list[RunEvent]:
        """Return a run's audit trail, oldest first (empty for an unknown run).

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return await self._run(control_plans.events(run_id))

    async def retrying_tasks(self, run_id: str | uuid.UUID) -> list[RetryingTask]:
        """Return the tasks of a run waiting for another attempt (see Client's).

        As :meth:`pgflow.Client.retrying_tasks`.

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return await self._run(control_plans.retrying_tasks(run_id))
