"""Signals of :class:`~pgflow.client.Client` (a mixin): send one, see what a run waits for.

A step defined with ``@flow.step(wait_for="approved", ...)`` or ``flow.wait("approved")``
waits until a signal of that name is sent to its run; ``send_signal`` sends it
(``pgflow.send_signal``, allowed to the ``pgflow_client`` and ``pgflow_operator`` roles).
``get_run_waits`` reads what the run's steps wait or waited for (``pgflow.get_run_waits``).
The plans are in :mod:`pgflow.client.signal_plans`.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from pgflow.client import signal_plans
from pgflow.client.plans import Plan
from pgflow.client.signal_records import RunWait, SignalResult

T = TypeVar("T")


class Signals:
    """``send_signal`` and ``get_run_waits`` of :class:`~pgflow.client.Client` (a mixin)."""

    def _run(self, plan: Plan[T]) -> T:
        raise NotImplementedError  # the client's

    def send_signal(
        self,
        run_id: str | uuid.UUID,
        name: str,
        payload: Any = None,
        *,
        idempotency_key: str | None = None,
        actor: str = "app",
        reason: str | None = None,
    ) -> SignalResult:
        r"""Send signal ``name`` with ``payload`` to a run (``pgflow.send_signal``).

        A step of the run waiting for that name (and whose ``signal_match`` the payload
        contains) takes it at once, in this call: its handler's task is queued (the
        handler gets it as ``ctx.signal``), or a ``flow.wait`` step completes with the
        payload. Otherwise the signal is stored ``pending`` and the next step that waits
        for it takes it, oldest first; a paused run takes it when resumed.

        Args:
            run_id: the run's uuid.
            name: the signal's name (1 to 128 characters, not blank, no control
                characters or surrounding spaces), e.g. ``"approved"``.
            payload: any JSON-serialisable value (None is stored as JSON null), or
                :class:`~pgflow.client.signal_records.RawJson` (``RawJson('{"amount": 1.10}')``)
                to send JSON text exactly as written: jsonb keeps its numbers as they are
                (``1.10``, ``1e400``, long decimals), which Python floats would not.
                The text is checked first: not JSON, ``NaN``/``Infinity``, ``\u0000`` or
                an unpaired surrogate is refused (nothing is sent).
            idempotency_key: makes a retry safe: when the run already has a signal with
                this key (at most 255 characters), nothing is stored or woken and that
                first signal is returned with ``duplicate=True``, whatever the run's
                status now. Blank counts as no key.
            actor: who sends it (not blank), recorded in the run's events.
            reason: why (may be None), recorded with the actor.

        Returns:
            The stored signal: ``status`` ``taken`` (``taken_by_step`` says by which step)
            or ``pending``, and ``duplicate``; its ``payload`` read back as a Python value
            (the stored jsonb keeps a RawJson's numbers exactly).

        Raises:
            RunStateError: the run is completed, failed or cancelled (``.status`` says
                which); nothing was stored.
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
            InvalidControlArgument: ``payload`` is not JSON-serialisable, or is a RawJson
                whose text PostgreSQL would refuse, or ``actor`` is blank (nothing is
                sent); or the database refused the name, the actor, a
                key over 255 characters or a payload over ``pgflow.max_payload_bytes``.
            PermissionDenied: the database role lacks ``pgflow_client`` and
                ``pgflow_operator``.
        """
        return self._run(
            signal_plans.send_signal(
                run_id,
                name,
                payload,
                idempotency_key=idempotency_key,
                actor=actor,
                reason=reason,
            )
        )

    def get_run_waits(self, run_id: str | uuid.UUID) -> list[RunWait]:
        """Return what a run's steps wait or waited for, in step order.

        One :class:`~pgflow.client.signal_records.RunWait` per step that waits or waited (for a
        signal, or a timer), with ``waited_seconds`` and ``seconds_left`` measured on the
        database clock. Reads only.

        Args:
            run_id: the run's uuid.

        Returns:
            The waits; empty for a run without waits, or an unknown run.

        Raises:
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return self._run(signal_plans.get_run_waits(run_id))
