"""What each client verb sends and how it reads the answer, written once for both clients.

A *plan* is a generator: it checks its arguments, yields ``(statement, params)`` with a
statement of :mod:`pgflow.client.queries`, receives the statement's rows (tuples), and
returns the verb's result. A database error is thrown into the plan at its ``yield``, so
the plan turns it into a pgflow error. :class:`~pgflow.client.Client` runs plans with
:func:`run`, :class:`~pgflow.client.AsyncClient` with :func:`run_async`; both call
:func:`first_statement` before they take a connection, so bad arguments fail without one.
"""

from __future__ import annotations

import dataclasses
import json
import time
import uuid
from collections.abc import Generator, Mapping
from datetime import datetime
from typing import Any, LiteralString, Protocol, TypeAlias, TypeVar

import psycopg
from psycopg.rows import tuple_row

from pgflow.client import queries
from pgflow.client.records import Run, RunState
from pgflow.client.start_options import (
    Deadline,
    check_run_key,
    deadline_params,
    translate_start_error,
)
from pgflow.client.start_records import RunDeadline, RunSlot, StartedRun
from pgflow.errors import (
    FlowNotFound,
    InvalidRunId,
    InvalidRunInput,
    RunAlreadyExists,
    RunNotFound,
    RunTimeout,
)

T = TypeVar("T")

#: A statement of :mod:`pgflow.client.queries` and its parameters.
Statement: TypeAlias = tuple[LiteralString, Mapping[str, Any]]
#: The rows a statement returned.
Rows: TypeAlias = list[tuple[Any, ...]]
#: A verb: yields statements, receives their rows, returns the result.
Plan: TypeAlias = Generator[Statement, Rows, T]


class HasSlug(Protocol):
    """Anything with a flow slug, such as :class:`pgflow.dsl.Flow`."""

    @property
    def slug(self) -> str:
        """The flow slug."""
        ...


# ---------------------------------------------------------------- arguments


def encode_run_input(value: Any) -> str:
    """Serialise a run input as JSON text for ``pgflow.start_flow``.

    Raises:
        InvalidRunInput: the value is not JSON-serialisable (a set, an arbitrary object,
            NaN or Infinity, a cycle).
    """
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidRunInput(
            f"run input is not JSON-serialisable ({type(value).__name__}): {exc}"
        ) from exc


def canonical_run_id(run_id: str | uuid.UUID) -> str:
    """Return ``run_id`` as canonical uuid text.

    Raises:
        InvalidRunId: it is not a uuid (``""``, ``"   "``, ``"not-a-uuid"``...).
    """
    if isinstance(run_id, uuid.UUID):
        return str(run_id)
    try:
        return str(uuid.UUID(str(run_id)))
    except ValueError:
        raise InvalidRunId(f"run_id {run_id!r} is not a uuid") from None


def _message(exc: psycopg.Error) -> str:
    """The primary message of a database error (without context lines)."""
    return exc.diag.message_primary or str(exc)


# ---------------------------------------------------------------- the verbs


def start_flow(
    flow: str | HasSlug,
    input: Any,
    run_id: str | uuid.UUID | None = None,
    *,
    idempotency_key: str | None = None,
    concurrency_key: str | None = None,
    deadline: Deadline | None = None,
) -> Plan[StartedRun]:
    """Plan of ``start_flow`` (see :meth:`pgflow.client.Client.start_flow`).

    Without options: one statement, ``pgflow.start_flow_with_states`` (as upstream's
    client). With any: ``pgflow.start_flow`` with its trailing arguments, then
    ``pgflow.get_run_with_states`` in a second statement (a STABLE function in the first
    would not see the run it inserts).
    """
    slug = flow if isinstance(flow, str) else flow.slug
    params: dict[str, Any] = {
        "flow_slug": slug,
        "input": encode_run_input(input),
        "run_id": None if run_id is None else canonical_run_id(run_id),
    }
    keyed = idempotency_key is not None or concurrency_key is not None or deadline is not None
    if keyed:
        params["idempotency_key"] = check_run_key("idempotency_key", idempotency_key)
        params["concurrency_key"] = check_run_key("concurrency_key", concurrency_key)
        params.update(deadline_params(deadline))
    try:
        rows = yield (queries.START_FLOW_KEYED if keyed else queries.START_FLOW), params
    except psycopg.Error as exc:
        error = _start_error(exc, slug, run_id, concurrency_key)
        if error is exc:
            raise
        raise error from exc
    if not keyed:
        return StartedRun.from_json(rows[0][0])
    new_run_id, duplicate = rows[0]
    rows = yield queries.GET_RUN, {"run_id": str(new_run_id)}
    state = rows[0][0] if rows else None
    if state is None:  # deleted between the two statements (delete_flow_and_data, prune)
        raise RunNotFound(f"run {new_run_id} was started but is gone already")
    return dataclasses.replace(StartedRun.from_json(state), duplicate=bool(duplicate))


def _start_error(
    exc: psycopg.Error, slug: str, run_id: str | uuid.UUID | None, concurrency_key: str | None
) -> Exception:
    """The pgflow error for a database error of ``start_flow`` (``exc`` if none fits)."""
    if isinstance(exc, psycopg.errors.ForeignKeyViolation):
        return FlowNotFound(
            f"flow {slug!r} is not defined in the database; start a worker for it "
            "(`pgflow-worker module:flow`) or create it with the SQL function "
            "pgflow.create_flow"
        )
    if isinstance(exc, psycopg.errors.UniqueViolation):
        return RunAlreadyExists(f"a run with run_id {run_id} already exists")
    if isinstance(
        exc,
        psycopg.errors.ProgramLimitExceeded  # over pgflow.max_payload_bytes
        | psycopg.errors.UntranslatableCharacter  # \u0000
        | psycopg.errors.InvalidTextRepresentation,  # JSON text jsonb refuses (surrogates)
    ):
        return InvalidRunInput(f"run input rejected for flow {slug!r}: {_message(exc)}")
    if isinstance(exc, psycopg.errors.InvalidParameterValue) and "root map" in _message(exc):
        return InvalidRunInput(_message(exc))
    # Keys, deadline, limits; anything else (an invalid pgflow.max_payload_bytes) as it is.
    return translate_start_error(exc, concurrency_key) or exc


def get_run(run_id: str | uuid.UUID) -> Plan[RunState]:
    """Plan of ``get_run`` (see :meth:`pgflow.client.Client.get_run`)."""
    try:
        rows = yield queries.GET_RUN, {"run_id": str(run_id)}
    except psycopg.errors.InvalidTextRepresentation as exc:
        raise RunNotFound(f"{run_id!r} is not a run id (a uuid)") from exc
    state = rows[0][0] if rows else None
    if state is None:
        raise RunNotFound(f"no run with run_id {run_id}")
    return RunState.from_json(state)


def get_run_slot(run_id: str | uuid.UUID) -> Plan[RunSlot | None]:
    """Plan of ``get_run_slot`` (see :meth:`pgflow.client.Client.get_run_slot`)."""
    try:
        rows = yield queries.GET_RUN_SLOT, {"run_id": canonical_run_id(run_id)}
    except psycopg.errors.NoDataFound as exc:
        raise RunNotFound(f"no run with run_id {run_id}") from exc
    return RunSlot.from_row(rows[0]) if rows else None


def engine_time() -> Plan[datetime]:
    """Plan of ``engine_time`` (see :meth:`pgflow.client.Client.engine_time`)."""
    rows = yield queries.ENGINE_TIME, {}
    now: datetime = rows[0][0]
    return now


def get_run_deadline(run_id: str | uuid.UUID) -> Plan[RunDeadline | None]:
    """Plan of ``get_run_deadline`` (see :meth:`pgflow.client.Client.get_run_deadline`)."""
    rows = yield queries.GET_RUN_DEADLINE, {"run_id": canonical_run_id(run_id)}
    if not rows:
        raise RunNotFound(f"no run with run_id {run_id}")
    deadline, seconds_left, expired_at = rows[0]
    if deadline is None:
        return None
    return RunDeadline(deadline, float(seconds_left), expired_at)


def task_counts(run_id: str | uuid.UUID) -> Plan[dict[str, dict[str, int]]]:
    """Plan of ``task_counts`` (see :meth:`pgflow.client.Client.task_counts`)."""
    rows = yield queries.TASK_COUNTS, {"run_id": str(run_id)}
    counts: dict[str, dict[str, int]] = {}
    for step_slug, status, n in rows:
        counts.setdefault(step_slug, {})[status] = n
    return counts


def list_runs(
    flow_slug: str | None,
    status: str | None,
    limit: int,
    step_slug: str | None = None,
    error_contains: str | None = None,
) -> Plan[list[Run]]:
    """Plan of ``list_runs`` (see :meth:`pgflow.client.Client.list_runs`)."""
    params = {
        "flow_slug": flow_slug,
        "status": status,
        "limit": limit,
        "step_slug": step_slug,
        "error_contains": error_contains,
    }
    rows = yield queries.LIST_RUNS, params
    return [Run.from_row(row[0]) for row in rows]


def next_poll(
    state: RunState, deadline: float, timeout_seconds: float, poll_interval_seconds: float
) -> float | None:
    """One round of ``wait_for_run``: None once ``state`` is final, else seconds to pause.

    Args:
        state: the run as just read.
        deadline: ``time.monotonic()`` value at which waiting ends.
        timeout_seconds: the whole wait, for the message.
        poll_interval_seconds: the pause between two reads.

    Raises:
        RunTimeout: the run is not finished and the deadline has passed.
    """
    if state.finished:
        return None
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise RunTimeout(
            f"run {state.run_id} of flow {state.flow_slug} is still {state.status} "
            f"after {timeout_seconds:g} s ({state.remaining_steps} "
            f"{'step' if state.remaining_steps == 1 else 'steps'} remaining)"
        )
    return min(poll_interval_seconds, remaining)


# ---------------------------------------------------------------- running plans


def first_statement(plan: Plan[T]) -> Statement:
    """Advance ``plan`` to its first statement (every plan sends at least one).

    Raises:
        PgflowError: the plan's argument checks (e.g. InvalidRunInput), before any SQL.
    """
    return next(plan)


def run(conn: psycopg.Connection[Any], plan: Plan[T], statement: Statement) -> T:
    """Run ``plan`` on a connection from ``statement`` (its first) and return its result."""
    while True:
        try:
            with conn.cursor(row_factory=tuple_row) as cur:
                cur.execute(*statement)
                rows = cur.fetchall()
        except psycopg.Error as exc:
            error: psycopg.Error | None = exc
        else:
            error = None
        try:
            statement = plan.send(rows) if error is None else plan.throw(error)
        except StopIteration as stop:
            result: T = stop.value
            return result


async def run_async(conn: psycopg.AsyncConnection[Any], plan: Plan[T], statement: Statement) -> T:
    """Run ``plan`` on an async connection; see :func:`run`."""
    while True:
        try:
            async with conn.cursor(row_factory=tuple_row) as cur:
                await cur.execute(*statement)
                rows = await cur.fetchall()
        except psycopg.Error as exc:
            error: psycopg.Error | None = exc
        else:
            error = None
        try:
            statement = plan.send(rows) if error is None else plan.throw(error)
        except StopIteration as stop:
            result: T = stop.value
            return result
