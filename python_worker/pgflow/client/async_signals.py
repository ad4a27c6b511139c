"""Signals of :class:`~pgflow.client.AsyncClient` (a mixin).

The same verbs, arguments, results and errors as :class:`~pgflow.client.Client`'s
(:mod:`pgflow.client.sync_signals`, which documents them in full), sending the same
statements through the plans of :mod:`pgflow.client.signal_plans`.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from pgflow.client import signal_plans
from pgflow.client.plans import Plan
from pgflow.client.signal_records import RunWait, SignalResult

T = TypeVar("T")


class AsyncSignals:
    """``send_signal`` and ``get_run_waits`` of :class:`~pgflow.client.AsyncClient`."""

    async def _run(self, plan: Plan[T]) -> T:
        raise NotImplementedError  # the client's

    async def send_signal(
        self,
        run_id: str | uuid.UUID,
        name: str,
        payload: Any = None,
        *,
        idempotency_key: str | None = None,
        actor: str = "app",
        reason: str | None = None,
    ) -> SignalResult:
        """Send signal ``name`` to a run; see :meth:`pgflow.Client.send_signal`.

        ``payload`` is a JSON-serialisable value or a
        :class:`~pgflow.client.signal_records.RawJson`, JSON text sent exactly as written.

        Returns:
            The stored signal (``status`` taken or pending, ``duplicate``).

        Raises:
            RunStateError: the run is completed, failed or cancelled; nothing stored.
            RunNotFound: no run has this id.
            InvalidRunId, InvalidControlArgument: bad arguments.
            PermissionDenied: the role lacks ``pgflow_client`` and ``pgflow_operator``.
        """
        return await self._run(
            signal_plans.send_signal(
                run_id,
                name,
                payload,
                idempotency_key=idempotency_key,
                actor=actor,
                reason=reason,
            )
        )

    async def get_run_waits(self, run_id: str | uuid.UUID) -> list[RunWait]:
        """Return what a run's steps wait or waited for; see :meth:`pgflow.Client.get_run_waits`.

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return await self._run(signal_plans.get_run_waits(run_id))
