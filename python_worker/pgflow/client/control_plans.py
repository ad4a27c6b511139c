"""The plans of the run-control verbs and of the audit trail, written once for both clients.

Plans as in :mod:`pgflow.client.plans` (generators yielding statements of
:mod:`pgflow.client.queries`). Arguments are checked before anything is sent (a blank
actor, an unknown ``expected_status``, a run id that is not a uuid, an output that is not
JSON); database errors become pgflow errors: SQLSTATE 55000 :class:`RunStateError`, P0002
:class:`RunNotFound` / :class:`StepNotFound`, 22023 and 54000
:class:`InvalidControlArgument`, 42501 :class:`PermissionDenied`, 53400
:class:`ConcurrencyLimitReached` (``retry_run`` or ``rerun_flow`` of a run whose
concurrency key has no free slot), 25000 :class:`WrongIsolationLevel`.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any, Final, LiteralString

import psycopg

from pgflow.client import queries
from pgflow.client.plans import Plan, canonical_run_id
from pgflow.client.records import RUN_STATUSES, RetryingTask, RunControlResult, RunEvent
from pgflow.client.start_options import limit_reached
from pgflow.errors import (
    InvalidControlArgument,
    PermissionDenied,
    RunNotFound,
    RunStateError,
    StepNotFound,
    WrongIsolationLevel,
)

#: The verbs that act on a whole run, by SQL function name, with their statement.
RUN_VERBS: Final[Mapping[str, LiteralString]] = {
    "cancel_run": queries.CANCEL_RUN,
    "pause_run": queries.PAUSE_RUN,
    "resume_run": queries.RESUME_RUN,
    "retry_run": queries.RETRY_RUN,
    "rerun_flow": queries.RERUN_FLOW,
}

#: The run statuses in which each verb applies (as the SQL functions check them).
LEGAL_STATUSES: Final[Mapping[str, tuple[str, ...]]] = {
    "cancel_run": ("started", "paused", "queued"),
    "pause_run": ("started",),
    "resume_run": ("paused",),
    "retry_run": ("failed",),
    "rerun_flow": tuple(s for s in RUN_STATUSES if s != "queued"),  # a queued run has not run
    "skip_step": ("started", "paused", "failed"),
    "complete_step": ("started", "paused", "failed"),
}

# "<verb>: run <id> is <status>" and "<verb>: step '<slug>' of run <id> is <status> (the
# run is <status>)": the 55000 messages of _lock_run_for_control / _lock_step_for_control.
_RUN_STATE = re.compile(r"^(?P<verb>\w+): run (?P<run_id>[0-9a-f-]{36}) is (?P<status>\w+)$")
#: A failed run past its deadline is not reopened (retry_run, skip_step, complete_step).
_PAST_DEADLINE = re.compile(
    r"^a failed run cannot start again: the deadline of run (?P<run_id>[0-9a-f-]{36}) "
)
_STEP_STATE = re.compile(
    r"^(?P<verb>\w+): step '(?P<step>[^']*)' of run (?P<run_id>[0-9a-f-]{36})"
    r" is (?P<step_status>\w+) \(the run is (?P<status>\w+)\)$"
)


# ---------------------------------------------------------------- arguments


def check_actor(actor: str) -> str:
    """Return ``actor`` if it names who acts.

    Raises:
        InvalidControlArgument: it is not a string, or empty or whitespace only.
    """
    if not isinstance(actor, str) or not actor.strip():
        raise InvalidControlArgument(
            f"actor must name who acts (got {actor!r}), e.g. 'alice' or 'dashboard:alice'"
        )
    return actor


def check_expected_status(expected_status: str | None) -> str | None:
    """Return ``expected_status`` if it is None or a run status.

    Raises:
        InvalidControlArgument: it is not one of :data:`~pgflow.client.records.RUN_STATUSES`.
    """
    if expected_status is not None and expected_status not in RUN_STATUSES:
        raise InvalidControlArgument(
            f"expected_status {expected_status!r} is not a run status ({', '.join(RUN_STATUSES)})"
        )
    return expected_status


def encode_step_output(value: Any) -> str:
    """Serialise a ``complete_step`` output as JSON text.

    Raises:
        InvalidControlArgument: the value is not JSON-serialisable (a set, an object, NaN).
    """
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidControlArgument(
            f"step output is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def _params(
    run_id: str | uuid.UUID, actor: str, reason: str | None, expected_status: str | None
) -> dict[str, Any]:
    return {
        "run_id": canonical_run_id(run_id),
        "actor": check_actor(actor),
        "reason": reason,
        "expected_status": check_expected_status(expected_status),
    }


# ---------------------------------------------------------------- errors


def state_error(message: str, verb: str | None = None) -> RunStateError:
    """Build a :class:`RunStateError` from a 55000 message, with what it names.

    Args:
        message: the error's primary message.
        verb: the verb that was called (for messages that do not name it).
    """
    past = _PAST_DEADLINE.match(message)
    if past is not None:
        return RunStateError(message, verb=verb, run_id=past["run_id"], status="failed")
    found = _STEP_STATE.match(message) or _RUN_STATE.match(message)
    if found is None:
        return RunStateError(message)
    fields = found.groupdict()
    return RunStateError(
        message,
        verb=fields["verb"],
        run_id=fields["run_id"],
        status=fields["status"],
        step_slug=fields.get("step"),
        step_status=fields.get("step_status"),
    )


def translate(verb: str, exc: psycopg.Error) -> Exception:
    """The pgflow error for a database error of a run-control verb (``exc`` if none fits)."""
    message = exc.diag.message_primary or str(exc)
    if isinstance(exc, psycopg.errors.ObjectNotInPrerequisiteState):
        return state_error(message, verb)
    if isinstance(exc, psycopg.errors.NoDataFound):
        return StepNotFound(message) if " has no step " in message else RunNotFound(message)
    if isinstance(
        exc,
        psycopg.errors.InvalidParameterValue  # blank actor, output of the wrong shape
        | psycopg.errors.ProgramLimitExceeded  # output over pgflow.max_payload_bytes
        | psycopg.errors.UntranslatableCharacter  # \u0000 in the output
        | psycopg.errors.InvalidTextRepresentation,  # JSON text jsonb refuses
    ):
        return InvalidControlArgument(message)
    if isinstance(exc, psycopg.errors.ConfigurationLimitExceeded):
        return limit_reached(exc)  # retry_run / rerun_flow of a keyed run, no free slot
    if isinstance(exc, psycopg.errors.InvalidTransactionState):
        return WrongIsolationLevel(message)
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return PermissionDenied(
            f"{message}: {verb} needs the pgflow_operator role (or the schema owner); "
            "pgflow_client may only start and read runs"
        )
    return exc


def _verb_result(
    verb: str, statement: LiteralString, params: dict[str, Any]
) -> Plan[RunControlResult]:
    try:
        rows = yield statement, params
    except psycopg.Error as exc:
        error = translate(verb, exc)
        if error is exc:
            raise
        raise error from exc
    return RunControlResult.from_row(rows[0])


# ---------------------------------------------------------------- the verbs


def run_verb(
    verb: str,
    run_id: str | uuid.UUID,
    *,
    actor: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> Plan[RunControlResult]:
    """Plan of a verb on a whole run, one of :data:`RUN_VERBS`.

    ``cancel_run``, ``pause_run``, ``resume_run``, ``retry_run`` or ``rerun_flow`` (see
    :meth:`pgflow.client.Client.cancel_run` ...).

    Raises:
        ValueError: ``verb`` is not one of :data:`RUN_VERBS` (a programming error).
    """
    if verb not in RUN_VERBS:
        raise ValueError(f"{verb!r} is not a run verb ({', '.join(RUN_VERBS)})")
    params = _params(run_id, actor, reason, expected_status)
    return (yield from _verb_result(verb, RUN_VERBS[verb], params))


def skip_step(
    run_id: str | uuid.UUID,
    step_slug: str,
    *,
    actor: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> Plan[RunControlResult]:
    """Plan of ``skip_step`` (see :meth:`pgflow.client.Client.skip_step`)."""
    params = _params(run_id, actor, reason, expected_status)
    params["step_slug"] = step_slug
    return (yield from _verb_result("skip_step", queries.SKIP_STEP, params))


def complete_step(
    run_id: str | uuid.UUID,
    step_slug: str,
    output: Any,
    *,
    actor: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> Plan[RunControlResult]:
    """Plan of ``complete_step`` (see :meth:`pgflow.client.Client.complete_step`)."""
    params = _params(run_id, actor, reason, expected_status)
    params["step_slug"] = step_slug
    params["output"] = encode_step_output(output)
    return (yield from _verb_result("complete_step", queries.COMPLETE_STEP, params))


def events(run_id: str | uuid.UUID) -> Plan[list[RunEvent]]:
    """Plan of ``events`` (see :meth:`pgflow.client.Client.events`)."""
    rows = yield queries.GET_RUN_EVENTS, {"run_id": canonical_run_id(run_id)}
    return [RunEvent.from_row(row) for row in rows]


def retrying_tasks(run_id: str | uuid.UUID) -> Plan[list[RetryingTask]]:
    """Plan of ``retrying_tasks`` (see :meth:`pgflow.client.Client.retrying_tasks`)."""
    rows = yield queries.RETRYING_TASKS, {"run_id": canonical_run_id(run_id)}
    return [RetryingTask.from_row(row) for row in rows]
