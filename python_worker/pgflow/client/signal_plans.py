"""The plans of ``send_signal`` and ``get_run_waits``, written once for both clients.

Plans as in :mod:`pgflow.client.plans`. Arguments are checked before anything is sent (a
run id that is not a uuid, a blank actor, a payload that is not JSON); database errors
become pgflow errors as for the run-control verbs (:func:`pgflow.client.control_plans.translate`):
SQLSTATE 55000 :class:`~pgflow.errors.RunStateError`, P0002
:class:`~pgflow.errors.RunNotFound`, 22023 and 54000
:class:`~pgflow.errors.InvalidControlArgument`, 42501
:class:`~pgflow.errors.PermissionDenied`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg

from pgflow.client import queries
from pgflow.client.control_plans import check_actor, translate
from pgflow.client.plans import Plan, canonical_run_id
from pgflow.client.records import RunWait, SignalResult
from pgflow.errors import InvalidControlArgument, PermissionDenied


def encode_signal_payload(value: Any) -> str | None:
    """Serialise a signal payload as JSON text (None stays None: stored as JSON null).

    Raises:
        InvalidControlArgument: the value is not JSON-serialisable (a set, an object, NaN).
    """
    if value is None:
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidControlArgument(
            f"signal payload is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def _check_text(what: str, value: object, optional: bool = False) -> Any:
    if not isinstance(value, str) and not (optional and value is None):
        raise InvalidControlArgument(f"{what} must be a str, got {value!r}")
    return value


def send_signal(
    run_id: str | uuid.UUID,
    name: str,
    payload: Any = None,
    *,
    idempotency_key: str | None = None,
    actor: str = "app",
    reason: str | None = None,
) -> Plan[SignalResult]:
    """Plan of ``send_signal`` (see :meth:`pgflow.client.Client.send_signal`)."""
    params = {
        "run_id": canonical_run_id(run_id),
        "signal_name": _check_text("signal name", name),
        "payload": encode_signal_payload(payload),
        "idempotency_key": _check_text("idempotency_key", idempotency_key, optional=True),
        "actor": check_actor(actor),
        "reason": reason,
    }
    try:
        rows = yield queries.SEND_SIGNAL, params
    except psycopg.errors.InsufficientPrivilege as exc:
        raise PermissionDenied(
            f"{exc.diag.message_primary or exc}: send_signal needs the pgflow_client or "
            "pgflow_operator role (or the schema owner)"
        ) from exc
    except psycopg.Error as exc:
        error = translate("send_signal", exc)
        if error is exc:
            raise
        raise error from exc
    return SignalResult.from_row(rows[0])


def get_run_waits(run_id: str | uuid.UUID) -> Plan[list[RunWait]]:
    """Plan of ``get_run_waits`` (see :meth:`pgflow.client.Client.get_run_waits`)."""
    rows = yield queries.GET_RUN_WAITS, {"run_id": canonical_run_id(run_id)}
    return [RunWait.from_row(row) for row in rows]
