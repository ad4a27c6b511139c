"""Start runs and follow them from synchronous code: :class:`Client`.

The client only calls the SQL API (``pgflow.start_flow_with_states``, ``pgflow.start_flow``,
``pgflow.get_run_with_states``, ``pgflow.get_run_slot``) and reads ``pgflow.runs`` /
``pgflow.step_tasks``; workers do the work. It holds one autocommit psycopg connection,
opened on first use::

    from pgflow import Client

    with Client() as client:                     # DSN: PGFLOW_DATABASE_URL, ..., dev cluster
        run = client.start_flow("stdlib_analysis", {"limit": 100})
        final = client.wait_for_run(run.run_id, timeout_seconds=60)
        print(final.status, final.output)

It is meant for scripts, CLIs and threaded web handlers that start a run and look at it,
not for high-rate polling (use one client per thread). Async code uses
:class:`~pgflow.client.AsyncClient`, which sends the same statements. The run-control
verbs (``cancel_run``, ``pause_run``, ``resume_run``, ``retry_run``, ``rerun``,
``skip_step``, ``complete_step``) and ``events`` come from
:class:`~pgflow.client.sync_control.RunControl`; ``send_signal`` and ``get_run_waits``
from :class:`~pgflow.client.sync_signals.Signals`.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime
from typing import Any, TypeVar

import psycopg

from pgflow.client import plans
from pgflow.client.plans import HasSlug, Plan
from pgflow.client.records import Run, RunState
from pgflow.client.start_options import Deadline
from pgflow.client.start_records import RunDeadline, RunSlot, StartedRun
from pgflow.client.sync_control import RunControl
from pgflow.client.sync_signals import Signals
from pgflow.dsn import resolve_dsn

T = TypeVar("T")


class Client(RunControl, Signals):
    """Start pgflow runs and read their state through one database connection.

    Args:
        dsn: libpq connection string or URL; None takes ``PGFLOW_DATABASE_URL``, then
            ``DATABASE_URL``, then the dev cluster if it is running (it is never started
            from here: run ``pgflow dev up``).
        connection: an open psycopg connection to use instead of ``dsn`` (autocommit is
            recommended; the client does not close it).

    Raises:
        DevClusterNotRunning: ``dsn`` is None, none is configured, and the dev cluster is
            not running.
        NoDatabaseConfigured: ``dsn`` is None, none is configured, and the dev cluster is
            turned off (``PGFLOW_DEV_CLUSTER=off``) or cannot be asked.
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
        """Close the connection, if the client opened it (a later call opens a new one)."""
        if self._owns_connection and self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _run(self, plan: Plan[T]) -> T:
        statement = plans.first_statement(plan)  # argument errors before connecting
        return plans.run(self._connection(), plan, statement)

    # ------------------------------------------------------------------ verbs
    def start_flow(
        self,
        flow: str | HasSlug,
        input: Any,
        run_id: str | uuid.UUID | None = None,
        *,
        idempotency_key: str | None = None,
        concurrency_key: str | None = None,
        deadline: Deadline | None = None,
    ) -> StartedRun:
        """Start a run of a flow and return its state right after the start.

        Root steps are queued at once; the run may already be completed when the flow
        needs no task (e.g. a root map over an empty array), or ``queued`` when its
        concurrency key has no free slot.

        Args:
            flow: the flow slug, or an object with a ``slug`` such as a
                :class:`pgflow.dsl.Flow` (it must already exist in the database: a worker
                serving the flow creates it when it starts).
            input: the run input, any JSON-serialisable value (an array for flows whose
                root step is a map).
            run_id: a uuid of your choice for the run (a :class:`uuid.UUID` or its text);
                random when None.
            idempotency_key: at most one run of the flow per key (a non-blank text of up
                to 255 characters): the first start creates it; every later or concurrent
                start with the key returns that run, whatever its status, with
                ``duplicate`` True and nothing written (even if its input differs). The
                key lives as long as its run.
            concurrency_key: the key whose slots the run takes (same rules): when the flow
                has a ``concurrency_limit``, at most that many of its runs with the key are
                started or paused at once; over it, the run is created ``queued`` (it
                starts, in start order, when a slot frees) or, with the flow's
                ``on_limit="reject"``, refused. Without a limit the key is only recorded.
            deadline: when the run expires (status ``expired``, its unfinished work
                cancelled) if still unfinished: an aware :class:`datetime.datetime`, or a
                :class:`datetime.timedelta` or a number of seconds from the engine's time
                (``pgflow._now()``, never Python's clock). None: the flow's ``run_timeout``, if any.

        Returns:
            The run with its step states (a :class:`RunState`), and ``duplicate``: True
            when an earlier start with the same ``idempotency_key`` created it.

        Raises:
            FlowNotFound: the database has no such flow.
            RunAlreadyExists: ``run_id`` is taken.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent to the database).
            InvalidRunInput: ``input`` is not JSON-serialisable (a set, an object, NaN...;
                nothing is sent), holds a NUL character (which jsonb cannot store), is larger
                than the database's ``pgflow.max_payload_bytes`` (16 MiB by default), or
                is not an array for a flow with a root map step. Nothing is written.
            InvalidStartOption: a key is blank, longer than 255 characters or not a text,
                or the deadline is naive, not positive or in the past (database clock).
                Keys and relative deadlines are checked before connecting.
            ConcurrencyLimitReached: the flow's limit for ``concurrency_key`` is reached
                and its ``on_limit`` is ``reject``; ``holders`` names the runs holding the
                slots. Nothing is written.
            WrongIsolationLevel: a ``concurrency_key`` of a limited flow on a connection
                in a transaction that is not READ COMMITTED.
        """
        return self._run(
            plans.start_flow(
                flow,
                input,
                run_id,
                idempotency_key=idempotency_key,
                concurrency_key=concurrency_key,
                deadline=deadline,
            )
        )

    def get_run(self, run_id: str | uuid.UUID) -> RunState:
        """Return a run and the state of each of its steps.

        Args:
            run_id: the run's uuid.

        Returns:
            The run's current state.

        Raises:
            RunNotFound: no run has this id (or it is not a uuid).
        """
        return self._run(plans.get_run(run_id))

    def get_run_slot(self, run_id: str | uuid.UUID) -> RunSlot | None:
        """Return where a run with a concurrency key stands (``pgflow.get_run_slot``).

        Args:
            run_id: the run's uuid.

        Returns:
            The run's key, its flow's limit and ``on_limit``, its place in the key's queue
            (``queue_position``, 1 = next; None unless queued) and the runs holding the
            key's slots (``holders``, oldest first); None for a run without key.

        Raises:
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return self._run(plans.get_run_slot(run_id))

    def engine_time(self) -> datetime:
        """Return the engine's time: ``pgflow._now()``, an aware datetime.

        The database's ``now()``, or in a test database the time the test clock was moved
        to: measure the age of a run's times against it, never against Python's clock.
        """
        return self._run(plans.engine_time())

    def get_run_deadline(self, run_id: str | uuid.UUID) -> RunDeadline | None:
        """Return a run's deadline and the seconds left to it on the database clock.

        Args:
            run_id: the run's uuid.

        Returns:
            ``deadline``, ``seconds_left`` (from the engine's time, ``pgflow._now()``, read in
            the same statement; <= 0 once passed) and ``expired_at``; None for a run without
            deadline.

        Raises:
            RunNotFound: no run has this id.
            InvalidRunId: ``run_id`` is not a uuid (nothing is sent).
        """
        return self._run(plans.get_run_deadline(run_id))

    def wait_for_run(
        self,
        run_id: str | uuid.UUID,
        timeout_seconds: float = 60.0,
        *,
        poll_interval_seconds: float = 0.2,
    ) -> RunState:
        """Poll a run until it is finished, and return its final state.

        A ``queued`` run is not finished: it is waited for like a started one.

        Args:
            run_id: the run's uuid.
            timeout_seconds: how long to wait, in seconds (default 60).
            poll_interval_seconds: pause between two reads of the run (default 0.2 s).

        Returns:
            The final state: ``status`` is ``completed`` (``output`` holds the leaf steps'
            outputs), ``failed`` (:attr:`RunState.failed_step` says where and why),
            ``cancelled`` or ``expired`` (its deadline passed).

        Raises:
            RunTimeout: the run was still ``queued``, ``started`` or ``paused`` after
                ``timeout_seconds``.
            RunNotFound: no run has this id.
        """
        deadline = time.monotonic() + timeout_seconds
        while True:
            state = self.get_run(run_id)
            pause = plans.next_poll(state, deadline, timeout_seconds, poll_interval_seconds)
            if pause is None:
                return state
            time.sleep(pause)

    def task_counts(self, run_id: str | uuid.UUID) -> dict[str, dict[str, int]]:
        """Return the number of tasks per step and task status of a run.

        Args:
            run_id: the run's uuid.

        Returns:
            ``{step_slug: {task status: count}}`` with statuses ``queued``, ``started``,
            ``completed``, ``failed``; steps without tasks yet are absent.
        """
        return self._run(plans.task_counts(run_id))

    def list_runs(
        self,
        *,
        flow_slug: str | None = None,
        status: str | None = None,
        limit: int = 20,
        step_slug: str | None = None,
        error_contains: str | None = None,
    ) -> list[Run]:
        """Return the latest runs, newest first.

        Args:
            flow_slug: only runs of this flow.
            status: only runs in this status (one of
                :data:`~pgflow.client.records.RUN_STATUSES`: ``queued``, ``started``,
                ``paused``, ``completed``, ``failed``, ``cancelled``, ``expired``).
            limit: at most this many runs.
            step_slug: only runs whose step ``step_slug`` failed or has a task with a
                failed attempt.
            error_contains: only runs with such an error (of ``step_slug``, if given)
                whose message contains this text (case-insensitive).

        Returns:
            The runs, without their step states.
        """
        return self._run(plans.list_runs(flow_slug, status, limit, step_slug, error_contains))
