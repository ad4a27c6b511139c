"""Start runs and follow them from any Python process: :class:`Client`.

The client only calls the SQL API (``pgflow.start_flow_with_states``,
``pgflow.get_run_with_states``) and reads ``pgflow.runs`` / ``pgflow.step_tasks``; workers
do the work. It holds one autocommit psycopg connection, opened on first use::

    from pgflow import Client

    with Client() as client:                     # DSN: PGFLOW_DATABASE_URL, ..., dev cluster
        run = client.start_flow("stdlib_analysis", {"limit": 100})
        final = client.wait_for_run(run.run_id, timeout_seconds=60)
        print(final.status, final.output)

The client is synchronous; it is meant for scripts, CLIs and web handlers that start a run
and look at it, not for high-rate polling (use one client per thread).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, LiteralString, Protocol

import psycopg
from psycopg.rows import dict_row

from pgflow.dsn import resolve_dsn
from pgflow.errors import (
    FlowNotFound,
    InvalidRunId,
    InvalidRunInput,
    RunAlreadyExists,
    RunNotFound,
    RunTimeout,
)

# ---------------------------------------------------------------- SQL sent by the client

#: Start a run; returns {"run": <runs row>, "steps": [<step_states rows>]}. The input is
#: JSON text (serialised and checked by the client), the run id a canonical uuid or NULL.
START_FLOW: Final[LiteralString] = (
    "select pgflow.start_flow_with_states(%(flow_slug)s, %(input)s::jsonb, %(run_id)s::uuid)"
    " as state"
)
#: One run and its step states, or NULL for an unknown run.
GET_RUN: Final[LiteralString] = "select pgflow.get_run_with_states(%(run_id)s) as state"
#: Task counts of a run by step and task status.
TASK_COUNTS: Final[LiteralString] = (
    "select step_slug, status, count(*)::int as n from pgflow.step_tasks"
    " where run_id = %(run_id)s group by step_slug, status"
)
#: Latest runs, optionally of one flow and/or one status.
LIST_RUNS: Final[LiteralString] = (
    "select to_jsonb(r) as run from pgflow.runs as r"
    " where (%(flow_slug)s::text is null or r.flow_slug = %(flow_slug)s)"
    " and (%(status)s::text is null or r.status = %(status)s)"
    " order by r.started_at desc, r.run_id limit %(limit)s"
)

#: Run statuses after which nothing changes.
TERMINAL_RUN_STATUSES: Final = frozenset({"completed", "failed"})


class HasSlug(Protocol):
    """Anything with a flow slug, such as :class:`pgflow.dsl.Flow`."""

    @property
    def slug(self) -> str:
        """The flow slug."""
        ...


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class StepState:
    """One step of a run (a ``pgflow.step_states`` row).

    Attributes:
        step_slug: the step.
        status: ``created``, ``started``, ``completed``, ``failed`` or ``skipped``.
        initial_tasks: number of tasks (None until known, for dependent maps).
        remaining_tasks: tasks not yet completed (None before the step starts).
        remaining_deps: dependencies not yet completed.
        output: the step output once completed (map: array of task outputs).
        error_message: why the step failed.
        skip_reason: why the step was skipped.
        created_at: when the run created the step.
        started_at: when its tasks were queued.
        completed_at: when it completed.
        failed_at: when it failed.
        skipped_at: when it was skipped.
    """

    step_slug: str
    status: str
    initial_tasks: int | None
    remaining_tasks: int | None
    remaining_deps: int
    output: Any
    error_message: str | None
    skip_reason: str | None
    created_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None
    skipped_at: datetime | None

    @property
    def completed_tasks(self) -> int:
        """Tasks completed so far (0 while the task count is unknown)."""
        if self.initial_tasks is None:
            return 0
        if self.remaining_tasks is None:
            return self.initial_tasks if self.status == "completed" else 0
        return self.initial_tasks - self.remaining_tasks

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StepState:
        """Build from a ``to_jsonb(step_states)`` object."""
        return cls(
            step_slug=row["step_slug"],
            status=row["status"],
            initial_tasks=row.get("initial_tasks"),
            remaining_tasks=row.get("remaining_tasks"),
            remaining_deps=row.get("remaining_deps", 0),
            output=row.get("output"),
            error_message=row.get("error_message"),
            skip_reason=row.get("skip_reason"),
            created_at=_timestamp(row.get("created_at")),
            started_at=_timestamp(row.get("started_at")),
            completed_at=_timestamp(row.get("completed_at")),
            failed_at=_timestamp(row.get("failed_at")),
            skipped_at=_timestamp(row.get("skipped_at")),
        )


@dataclass(frozen=True)
class Run:
    """One run (a ``pgflow.runs`` row), without its steps.

    Attributes:
        run_id: the run's uuid, as text.
        flow_slug: the flow it runs.
        status: ``started``, ``completed`` or ``failed``.
        input: the run input (JSON value).
        output: once completed, an object of the leaf steps' outputs by step slug.
        remaining_steps: steps not yet completed or skipped.
        started_at: when the run started.
        completed_at: when it completed.
        failed_at: when it failed.
    """

    run_id: str
    flow_slug: str
    status: str
    input: Any
    output: Any
    remaining_steps: int
    started_at: datetime | None
    completed_at: datetime | None
    failed_at: datetime | None

    @property
    def finished(self) -> bool:
        """True once the run is completed or failed."""
        return self.status in TERMINAL_RUN_STATUSES

    @property
    def duration_seconds(self) -> float | None:
        """Seconds from start to completion or failure; None while running."""
        end = self.completed_at or self.failed_at
        if end is None or self.started_at is None:
            return None
        return (end - self.started_at).total_seconds()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Run:
        """Build from a ``to_jsonb(runs)`` object."""
        return cls(**_run_fields(row))


@dataclass(frozen=True)
class RunState(Run):
    """A run with the state of each of its steps (``pgflow.get_run_with_states``).

    Attributes:
        steps: the step states in the flow's step order.
    """

    steps: tuple[StepState, ...] = ()

    @property
    def failed_step(self) -> StepState | None:
        """The first failed step, if any (it carries the error message)."""
        return next((step for step in self.steps if step.status == "failed"), None)

    def step(self, step_slug: str) -> StepState:
        """Return the state of step ``step_slug``.

        Raises:
            KeyError: the run has no such step.
        """
        for step in self.steps:
            if step.step_slug == step_slug:
                return step
        raise KeyError(f"run {self.run_id} has no step {step_slug!r}")

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> RunState:
        """Build from ``{"run": <runs row>, "steps": [<step_states rows>]}``."""
        steps = tuple(StepState.from_row(row) for row in state.get("steps") or ())
        return cls(**_run_fields(state["run"]), steps=steps)


def _run_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "run_id": str(row["run_id"]),
        "flow_slug": row["flow_slug"],
        "status": row["status"],
        "input": row.get("input"),
        "output": row.get("output"),
        "remaining_steps": row.get("remaining_steps", 0),
        "started_at": _timestamp(row.get("started_at")),
        "completed_at": _timestamp(row.get("completed_at")),
        "failed_at": _timestamp(row.get("failed_at")),
    }


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


def _timestamp(value: Any) -> datetime | None:
    """Parse a jsonb timestamptz (ISO 8601 text) into an aware datetime."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


# ---------------------------------------------------------------- the client


class Client:
    """Start pgflow runs and read their state through one database connection.

    Args:
        dsn: libpq connection string or URL; None resolves it like the CLI does
            (``PGFLOW_DATABASE_URL``, ``DATABASE_URL``, then the embedded dev cluster).
        connection: an open psycopg connection to use instead of ``dsn`` (autocommit is
            recommended; the client does not close it).

    Raises:
        NoDatabaseConfigured: ``dsn`` is None and no database could be found.
    """

    def __init__(
        self, dsn: str | None = None, *, connection: psycopg.Connection[Any] | None = None
    ) -> None:
        self._conn = connection
        self._owns_connection = connection is None
        self._dsn = None if connection is not None else resolve_dsn(dsn)

    # ------------------------------------------------------------------ connection
    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            assert self._dsn is not None
            self._conn = psycopg.connect(self._dsn, autocommit=True)
        return self._conn

    def close(self) -> None:
        """Close the connection, if the client opened it."""
        if self._owns_connection and self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _fetch_one(self, query: LiteralString, params: Mapping[str, Any]) -> Any:
        with self._connection().cursor(row_factory=dict_row) as cur:
            cur.execute(query, params)
            row = cur.fetchone()
        return None if row is None else next(iter(row.values()))

    # ------------------------------------------------------------------ verbs
    def start_flow(
        self, flow: str | HasSlug, input: Any, run_id: str | uuid.UUID | None = None
    ) -> RunState:
        """Start a run of a flow and return its state right after the start.

        Root steps are queued at once; the run may already be completed when the flow
        needs no task (e.g. a root map over an empty array).

        Args:
            flow: the flow slug, or an object with a ``slug`` such as a
                :class:`pgflow.dsl.Flow` (it must already exist in the database: a worker
                serving the flow creates it when it starts).
            input: the run input, any JSON-serialisable value (an array for flows whose
                root step is a map).
            run_id: a uuid of your choice for the run (a :class:`uuid.UUID` or its text);
                random when None.

        Returns:
            The new run with its step states.

        Raises:
            FlowNotFound: the database has no such flow.
            RunAlreadyExists: ``run_id`` is taken.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent to the database).
            InvalidRunInput: ``input`` is not JSON-serialisable (a set, an object, NaN...;
                nothing is sent), holds a NUL character (which jsonb cannot store), is larger
                than the database's ``pgflow.max_payload_bytes`` (16 MiB by default), or
                is not an array for a flow with a root map step. Nothing is written.
        """
        slug = flow if isinstance(flow, str) else flow.slug
        params = {
            "flow_slug": slug,
            "input": encode_run_input(input),
            "run_id": None if run_id is None else canonical_run_id(run_id),
        }
        try:
            state = self._fetch_one(START_FLOW, params)
        except psycopg.errors.ForeignKeyViolation as exc:
            raise FlowNotFound(
                f"flow {slug!r} is not defined in the database; start a worker for it "
                "(`pgflow-worker module:flow`) or create it with the SQL function "
                "pgflow.create_flow"
            ) from exc
        except psycopg.errors.UniqueViolation as exc:
            raise RunAlreadyExists(f"a run with run_id {run_id} already exists") from exc
        except (
            psycopg.errors.ProgramLimitExceeded,  # over pgflow.max_payload_bytes
            psycopg.errors.UntranslatableCharacter,  # \u0000
            psycopg.errors.InvalidTextRepresentation,  # JSON text jsonb refuses (surrogates)
        ) as exc:
            raise InvalidRunInput(f"run input rejected for flow {slug!r}: {_message(exc)}") from exc
        except psycopg.errors.InvalidParameterValue as exc:
            if "root map" not in _message(exc):  # e.g. an invalid pgflow.max_payload_bytes
                raise
            raise InvalidRunInput(_message(exc)) from exc
        return RunState.from_json(state)

    def get_run(self, run_id: str | uuid.UUID) -> RunState:
        """Return a run and the state of each of its steps.

        Args:
            run_id: the run's uuid.

        Returns:
            The run's current state.

        Raises:
            RunNotFound: no run has this id (or it is not a uuid).
        """
        try:
            state = self._fetch_one(GET_RUN, {"run_id": str(run_id)})
        except psycopg.errors.InvalidTextRepresentation as exc:
            raise RunNotFound(f"{run_id!r} is not a run id (a uuid)") from exc
        if state is None:
            raise RunNotFound(f"no run with run_id {run_id}")
        return RunState.from_json(state)

    def wait_for_run(
        self,
        run_id: str | uuid.UUID,
        timeout_seconds: float = 60.0,
        *,
        poll_interval_seconds: float = 0.2,
    ) -> RunState:
        """Poll a run until it is completed or failed, and return its final state.

        Args:
            run_id: the run's uuid.
            timeout_seconds: how long to wait, in seconds (default 60).
            poll_interval_seconds: pause between two reads of the run (default 0.2 s).

        Returns:
            The final state: ``status`` is ``completed`` (``output`` holds the leaf steps'
            outputs) or ``failed`` (:attr:`RunState.failed_step` says where and why).

        Raises:
            RunTimeout: the run was still ``started`` after ``timeout_seconds``.
            RunNotFound: no run has this id.
        """
        deadline = time.monotonic() + timeout_seconds
        while True:
            state = self.get_run(run_id)
            if state.finished:
                return state
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RunTimeout(
                    f"run {state.run_id} of flow {state.flow_slug} is still {state.status} "
                    f"after {timeout_seconds:g} s ({state.remaining_steps} steps remaining)"
                )
            time.sleep(min(poll_interval_seconds, remaining))

    def task_counts(self, run_id: str | uuid.UUID) -> dict[str, dict[str, int]]:
        """Return the number of tasks per step and task status of a run.

        Args:
            run_id: the run's uuid.

        Returns:
            ``{step_slug: {task status: count}}`` with statuses ``queued``, ``started``,
            ``completed``, ``failed``; steps without tasks yet are absent.
        """
        counts: dict[str, dict[str, int]] = {}
        with self._connection().cursor() as cur:
            cur.execute(TASK_COUNTS, {"run_id": str(run_id)})
            for step_slug, status, n in cur.fetchall():
                counts.setdefault(step_slug, {})[status] = n
        return counts

    def list_runs(
        self, *, flow_slug: str | None = None, status: str | None = None, limit: int = 20
    ) -> list[Run]:
        """Return the latest runs, newest first.

        Args:
            flow_slug: only runs of this flow.
            status: only runs in this status (``started``, ``completed``, ``failed``).
            limit: at most this many runs.

        Returns:
            The runs, without their step states.
        """
        params = {"flow_slug": flow_slug, "status": status, "limit": limit}
        with self._connection().cursor() as cur:
            cur.execute(LIST_RUNS, params)
            return [Run.from_row(row[0]) for row in cur.fetchall()]
