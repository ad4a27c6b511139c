"""The run-control verbs in the model of the property tests: cancel, pause, resume, retry
and skip a step of the run that ``flow_model.Model`` holds.

Written from the verbs' documented contract (extension/sql/70*.sql, their COMMENTs):
each verb applies only in some run (and step) statuses, else it raises SQLSTATE 55000 and
changes nothing (:meth:`ControlledModel.legal`). cancel_run: a started or paused run is
cancelled with its unfinished work. pause_run: a started run starts no task any more (its
queued tasks lose their messages; ready steps wait), reports of started tasks still apply
and it completes when its last step does. resume_run: queued tasks get new messages and
ready steps start. retry_run: a failed run's failed and cancelled steps are created again
with new tasks, which go on with the attempt numbers of the old ones (attempts_count and
attempt_offset = the old attempts_count; the retry budget counts from attempt_offset).
skip_step: a created or waiting step (run started or paused) or the failed step of a
failed run is skipped as by a condition; a failed run left without a failed step is
reopened as by retry_run.
"""

from __future__ import annotations

from tests.integration.flow_model import Model


class ControlledModel(Model):
    """A run of the model that an operator controls too."""

    def legal(self, verb: str, slug: str | None = None) -> bool:
        """Whether ``verb`` applies to the run (and step ``slug``) as they are (else 55000)."""
        if verb == "skip_step":
            assert slug is not None
            step_status = self.states[slug].status
            return (
                self.status in ("started", "paused", "failed")
                and step_status in ("created", "waiting", "failed")
                and (self.status == "failed") == (step_status == "failed")
            )
        legal_statuses = {
            "cancel_run": ("started", "paused"),
            "pause_run": ("started",),
            "resume_run": ("paused",),
            "retry_run": ("failed",),
        }
        return self.status in legal_statuses[verb]

    def cancel_run(self) -> list[str]:
        self.status = "cancelled"
        self._cancel_unfinished_work()
        return []

    def pause_run(self) -> list[str]:
        self.status = "paused"
        self._park()
        return []

    def resume_run(self) -> list[str]:
        self.status = "started"
        for task in self.tasks.values():
            if task.status == "queued" and not task.live:
                task.msg, task.live = self._send(), True
        self._advance()
        return []

    def retry_run(self) -> list[str]:
        """Returns the steps created again (their tasks are new ones)."""
        return self._reopen(reset_failed_steps=True)

    def skip_step(self, slug: str) -> list[str]:
        """Returns the steps created again (when it reopened a failed run)."""
        failed_run = self.status == "failed"
        self._skip([slug], "skipped_by_operator")
        self._release_dependents([slug])
        if failed_run:
            return self._reopen(reset_failed_steps=False)
        self._advance()
        return []

    def _reopen(self, reset_failed_steps: bool) -> list[str]:
        """``_reopen_run``: a failed run goes on from where it failed."""
        if not reset_failed_steps and any(s.status == "failed" for s in self.states.values()):
            return []
        reset = [
            slug
            for slug, state in self.states.items()
            if state.status == "cancelled" or (reset_failed_steps and state.status == "failed")
        ]
        for slug in reset:
            state = self.states[slug]
            state.status, state.error_message, state.remaining_tasks = "created", None, None
        old_attempts = {
            k: t.attempts for k, t in self.tasks.items() if k[0] in reset and t.attempts > 0
        }
        self.tasks = {k: t for k, t in self.tasks.items() if k[0] not in reset}
        self.status = "started"
        self._advance()
        for key, attempts in old_attempts.items():
            task = self.tasks.get(key)
            if task is not None and task.status == "queued" and task.attempts == 0:
                task.attempts = task.attempt_offset = attempts
        return reset

    def apply(self, verb: str, slug: str | None = None) -> list[str]:
        """Apply a legal ``verb``; returns the steps created again (their tasks are new)."""
        if verb == "skip_step":
            assert slug is not None
            return self.skip_step(slug)
        result: list[str] = getattr(self, verb)()
        return result
