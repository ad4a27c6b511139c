"""The run-control verbs of :class:`~pgflow.client.Client` (a mixin).

Cancel, pause, resume, retry or rerun a run, skip or complete a step, read a run's audit
trail. A mixin over the client's ``_run`` (the plans of :mod:`pgflow.client.control_plans`). The
verbs call the SQL functions ``pgflow.cancel_run`` ... ``pgflow.complete_step``, which
need the ``pgflow_operator`` role (or the schema owner); the reads work under
``pgflow_client`` too.

Every verb takes ``actor`` (required, keyword-only: who acts, recorded in the run's audit
trail; there is no default, so the trail never says "someone"), ``reason`` (why, may be
None) and ``expected_status``: the run status the caller saw when it decided. When the run
has left that status by the time the call runs (a worker finished it, another operator
acted first), nothing is done and the result says so (``changed=False``): the verb is
safe to call from a screen that may be out of date, and a repeated call with the same
``expected_status`` does nothing the second time. Without ``expected_status`` the verb
acts on whatever status the run is in, and raises :class:`~pgflow.errors.RunStateError`
when the verb does not apply there (so a repeated ``cancel_run`` raises).
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from pgflow.client import control_plans
from pgflow.client.plans import Plan
from pgflow.client.records import RetryingTask, RunControlResult, RunEvent

T = TypeVar("T")


class RunControl:
    """The run-control verbs of :class:`~pgflow.client.Client` (a mixin)."""

    def _run(self, plan: Plan[T]) -> T:
        raise NotImplementedError  # the client's

    def cancel_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Cancel a started, paused or queued run for good (``pgflow.cancel_run``).

        Its unfinished steps and tasks are cancelled and their queue messages archived; a
        worker running one of its handlers learns it at its next check and its late report
        is ignored.

        Args:
            run_id: the run's uuid.
            actor: who cancels (not blank), e.g. ``"alice"`` or ``"dashboard:alice"``.
            reason: why; recorded with the actor in the run's events (may be None).
            expected_status: do nothing unless the run is still in this status
                (``started``, ``paused`` or ``queued``; see the module docstring).

        Returns:
            The run and its status after the call (``cancelled``), or ``changed=False``
            when it was no longer in ``expected_status``.

        Raises:
            RunStateError: the run is completed, failed, cancelled or expired (``.status`` says
                which); nothing was changed. A second cancel without ``expected_status``
                raises this.
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
            InvalidControlArgument: ``actor`` is blank or ``expected_status`` is not a run
                status (nothing is sent).
            PermissionDenied: the database role lacks ``pgflow_operator``.
        """
        return self._run(
            control_plans.run_verb(
                "cancel_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def pause_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Pause a started run (``pgflow.pause_run``): it starts no new task until resumed.

        Tasks already running finish and are recorded as usual; queued tasks (and retries
        queued meanwhile) wait for :meth:`resume_run`.

        Args:
            run_id: the run's uuid.
            actor: who pauses (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the run is still in this status.

        Returns:
            The run, ``paused``, or ``changed=False`` (run no longer in ``expected_status``).

        Raises:
            RunStateError: the run is not started (a second pause raises this).
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as for
                :meth:`cancel_run`.
        """
        return self._run(
            control_plans.run_verb(
                "pause_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def resume_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Resume a paused run where it stood (``pgflow.resume_run``).

        Its waiting tasks are queued again (at once when their delay fell due during the
        pause) and steps that became ready start; the run completes if nothing is left.

        Args:
            run_id: the run's uuid.
            actor: who resumes (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the run is still in this status.

        Returns:
            The run, ``started`` (or ``completed``), or ``changed=False``.

        Raises:
            RunStateError: the run is not paused (a second resume raises this).
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as for
                :meth:`cancel_run`.
        """
        return self._run(
            control_plans.run_verb(
                "resume_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def retry_run(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Retry a failed run from its failed steps (``pgflow.retry_run``).

        Failed steps, and the steps cancelled when the run failed, start again with fresh
        attempt budgets; completed steps keep their outputs and do not run again.

        Args:
            run_id: the run's uuid.
            actor: who retries (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the run is still in this status (pass
                ``"failed"`` so that a second, concurrent retry does nothing).

        Returns:
            The run, ``started`` (or already ``failed``/``completed`` when the flow
            decided at once), or ``changed=False``.

        Raises:
            RunStateError: the run is not failed (a second retry without
                ``expected_status`` raises this while the run is started).
            ConcurrencyLimitReached: the run has a concurrency key (it freed its slot when
                it failed) and every slot of the key is held now; nothing was changed.
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as for
                :meth:`cancel_run`.
        """
        return self._run(
            control_plans.run_verb(
                "retry_run", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def rerun(
        self,
        run_id: str | uuid.UUID,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Start a NEW run of the run's flow with the same input (``pgflow.rerun_flow``).

        The old run is left as it is, in any status; the new run's ``rerun_of`` names it.
        Each call starts another run (it is not idempotent) unless ``expected_status``
        stops it.

        Args:
            run_id: the uuid of the run to rerun.
            actor: who reruns (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the old run is still in this status.

        Returns:
            The NEW run's id and status; when nothing was done (``changed=False``), the
            old run's. The new run has the old one's concurrency key (it may be
            ``queued``).

        Raises:
            ConcurrencyLimitReached: the key's limit is reached and the flow's
                ``on_limit`` is ``reject``.
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as for
                :meth:`cancel_run`.
        """
        return self._run(
            control_plans.run_verb(
                "rerun_flow", run_id, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def skip_step(
        self,
        run_id: str | uuid.UUID,
        step_slug: str,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Skip one step by hand (``pgflow.skip_step``); the run moves on without it.

        A created step of a started or paused run, or a failed step of a failed run,
        becomes skipped (``skip_reason`` ``skipped_by_operator``); its dependents run
        without its output. Skipping the last failed step of a failed run starts the run
        again.

        Args:
            run_id: the run's uuid.
            step_slug: the step to skip.
            actor: who skips (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the RUN is still in this status.

        Returns:
            The run and its status after the call, or ``changed=False``.

        Raises:
            RunStateError: the run is completed or cancelled, or the step is in another
                status (``.step_status``; a second skip raises this).
            StepNotFound: the run has no such step.
            RunNotFound, InvalidRunId, InvalidControlArgument, PermissionDenied: as for
                :meth:`cancel_run`.
        """
        return self._run(
            control_plans.skip_step(
                run_id, step_slug, actor=actor, reason=reason, expected_status=expected_status
            )
        )

    def complete_step(
        self,
        run_id: str | uuid.UUID,
        step_slug: str,
        output: Any,
        *,
        actor: str,
        reason: str | None = None,
        expected_status: str | None = None,
    ) -> RunControlResult:
        """Complete one step by hand with an output (``pgflow.complete_step``).

        A started step of a started or paused run (e.g. a stuck task), or a failed step of
        a failed run, becomes completed with ``output``; its tasks are cancelled, its
        dependents receive the output, and the run moves on (completing the last failed
        step of a failed run starts the run again).

        Args:
            run_id: the run's uuid.
            step_slug: the step to complete.
            output: the step's output, any JSON-serialisable value (an array for a map
                step and for a step a map step depends on).
            actor: who completes it (not blank).
            reason: why (may be None).
            expected_status: do nothing unless the RUN is still in this status.

        Returns:
            The run and its status after the call, or ``changed=False``.

        Raises:
            RunStateError: the run is completed or cancelled, or the step is in another
                status (a second complete raises this: the step is completed).
            StepNotFound: the run has no such step.
            InvalidControlArgument: ``output`` is not JSON-serialisable (nothing is sent),
                not an array where one is needed, or over ``pgflow.max_payload_bytes``;
                or as for :meth:`cancel_run`.
            RunNotFound, InvalidRunId, PermissionDenied: as for :meth:`cancel_run`.
        """
        return self._run(
            control_plans.complete_step(
                run_id,
                step_slug,
                output,
                actor=actor,
                reason=reason,
                expected_status=expected_status,
            )
        )

    def events(self, run_id: str | uuid.UUID) -> list[RunEvent]:
        """Return a run's audit trail, oldest first (``pgflow.get_run_events``).

        Every status change of the run and its steps, every failed or requeued task
        attempt, and every run-control verb with its actor and reason. Reads only.

        Args:
            run_id: the run's uuid.

        Returns:
            The events; an empty list for an unknown run or one whose data was pruned.

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return self._run(control_plans.events(run_id))

    def retrying_tasks(self, run_id: str | uuid.UUID) -> list[RetryingTask]:
        """Return the tasks of a run waiting for another attempt after a failed one.

        Reads only; works under ``pgflow_client`` (the due time is derived from the run's
        events and the step's ``base_delay``, not read from the queue).

        Args:
            run_id: the run's uuid.

        Returns:
            The tasks in step order, with their last error and when they are due again
            (:class:`~pgflow.client.records.RetryingTask`); empty when none waits.

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return self._run(control_plans.retrying_tasks(run_id))
