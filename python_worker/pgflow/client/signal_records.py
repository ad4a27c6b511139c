"""What the client's signal calls return, as frozen records.

:class:`SignalResult` and :class:`RunWait` are built from the rows of their statements;
:class:`RawJson` goes the other way: JSON text a caller sends as it is (a signal payload).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class RawJson:
    """JSON text to send exactly as written, in place of a Python value.

    ``Client.send_signal(run_id, "approved", RawJson('{"amount": 1.10}'))`` stores the
    text as it is: jsonb keeps numbers exactly (``1.10``, ``1e400``, 30-digit decimals),
    which a Python value would not (``json.loads`` makes floats of them). The text is
    checked before anything is sent (see :func:`pgflow.client.signal_plans.check_json_text`).

    Attributes:
        text: the JSON text (any JSON value; surrounding whitespace allowed).
    """

    text: str


@dataclass(frozen=True)
class SignalResult:
    """A signal sent to a run, as ``send_signal`` stored it (a ``pgflow.signal_result`` row).

    Attributes:
        signal_id: the signal's number.
        run_id: the run, as text.
        signal_name: its name.
        payload: the JSON value sent (None when none was sent: stored as JSON null).
        idempotency_key: the key given, else None.
        status: ``taken`` when a waiting step took it (at once, in the sending call, or
            earlier for a duplicate), ``pending`` while no step has (it waits for one).
        received_at: when the database stored it.
        taken_at: when a step took it, else None.
        taken_by_step: the step that took it, else None.
        actor: who sent it.
        reason: why, else None.
        duplicate: True when the run already had a signal with this ``idempotency_key``:
            nothing new was stored and this is that first signal.
    """

    signal_id: int
    run_id: str
    signal_name: str
    payload: Any
    idempotency_key: str | None
    status: str
    received_at: datetime
    taken_at: datetime | None
    taken_by_step: str | None
    actor: str
    reason: str | None
    duplicate: bool

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> SignalResult:
        """Build from a ``pgflow.signal_result`` row, columns in type order."""
        values = list(row)
        values[1] = str(values[1])
        values[11] = bool(values[11])
        return cls(*values)


@dataclass(frozen=True)
class RunWait:
    """The wait of one step of a run (a ``pgflow.get_run_waits`` row).

    Attributes:
        step_slug: the step that waits or waited.
        kind: ``signal`` (for a signal named ``signal_name``) or ``timer``.
        signal_name: the awaited signal, None for a timer.
        waiting_since: when the step started waiting.
        deadline: when a signal wait times out or a timer is due; None: no timeout.
        resolved_at: when the wait ended, None while it waits.
        outcome: how it ended: ``signal``, ``timed_out``, ``due``, ``unreadable`` (a timer
            whose time could not be read) or ``abandoned`` (the step stopped waiting
            another way); None while it waits.
        waited_seconds: seconds waited, until it ended or until now (database clock).
        seconds_left: seconds until the deadline (database clock); None once resolved or
            without deadline; negative when the deadline passed and no tick fired it yet.
    """

    step_slug: str
    kind: str
    signal_name: str | None
    waiting_since: datetime
    deadline: datetime | None
    resolved_at: datetime | None
    outcome: str | None
    waited_seconds: float
    seconds_left: float | None

    @property
    def waiting(self) -> bool:
        """True while the step still waits (the wait has not ended)."""
        return self.resolved_at is None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RunWait:
        """Build from a ``pgflow.get_run_waits`` row, columns in table order."""
        return cls(*row)
