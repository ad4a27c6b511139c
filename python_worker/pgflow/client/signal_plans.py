"""The plans of ``send_signal`` and ``get_run_waits``, written once for both clients.

Plans as in :mod:`pgflow.client.plans`. Arguments are checked before anything is sent (a
run id that is not a uuid, a blank actor, a payload that is not JSON, JSON text given as
:class:`~pgflow.client.signal_records.RawJson` that PostgreSQL would refuse); database errors
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
from pgflow.client.signal_records import RawJson, RunWait, SignalResult
from pgflow.errors import InvalidControlArgument, PermissionDenied


def encode_signal_payload(value: Any) -> str | None:
    """The JSON text of a signal payload (None stays None: stored as JSON null).

    A :class:`~pgflow.client.signal_records.RawJson` is checked (:func:`check_json_text`) and its
    text sent as it is, so the stored numbers are exactly the ones written; any other
    value is serialised with ``json.dumps``.

    Raises:
        InvalidControlArgument: the value is not JSON-serialisable (a set, an object, NaN),
            or the RawJson text is not JSON that PostgreSQL accepts.
    """
    if value is None:
        return None
    if isinstance(value, RawJson):
        try:
            return check_json_text(value.text)
        except InvalidControlArgument as exc:
            raise InvalidControlArgument(f"signal payload is not JSON: {exc}") from exc
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidControlArgument(
            f"signal payload is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def check_json_text(text: object) -> str:
    r"""Check that ``text`` is JSON PostgreSQL's jsonb accepts; return it unchanged.

    Stricter than ``json.loads`` where PostgreSQL is: ``NaN``, ``Infinity`` and
    ``-Infinity`` are refused, and so are the string escapes jsonb cannot store (``\u0000``,
    an unpaired surrogate such as ``\ud800``). Numbers are not converted (any size or
    precision passes; jsonb keeps them exactly).

    Args:
        text: the JSON text.

    Returns:
        ``text``, unchanged.

    Raises:
        InvalidControlArgument: ``text`` is not a str, or not such JSON; the message says
            why, without prefix (e.g. ``Expecting value: line 1 column 2 (char 1)``).
    """
    if not isinstance(text, str):
        raise InvalidControlArgument(f"JSON text must be a str, got {type(text).__name__}")
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_int=_number, parse_float=_number
        )
    except RecursionError as exc:
        raise InvalidControlArgument("JSON text is nested too deeply") from exc
    except ValueError as exc:
        raise InvalidControlArgument(str(exc)) from exc
    _check_strings(value)
    return text


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _number(text: str) -> int:
    return 0  # only the syntax matters: no int/float conversion, no digit limit


def _check_strings(value: Any) -> None:
    """Refuse the strings (values and keys) jsonb cannot store: NUL, unpaired surrogates."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and any(
            char == "\x00" or "\ud800" <= char <= "\udfff" for char in item
        ):
            raise InvalidControlArgument(
                "a string holds \\u0000 or an unpaired surrogate (\\ud800 to \\udfff), "
                "which PostgreSQL's jsonb cannot store"
            )


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
