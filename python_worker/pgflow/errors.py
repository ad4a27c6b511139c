"""Every public exception of the pgflow package; all derive from :class:`PgflowError`.

Each is also exported as ``pgflow.<Name>``. Grouped by who raises them: finding the
database, installing the schema, the dev cluster, the client, flow definitions, the worker.
"""

from __future__ import annotations


class PgflowError(Exception):
    """Base class of every error raised by the pgflow package."""


# ---------------------------------------------------------------- finding the database


class NoDatabaseConfigured(PgflowError):
    """No DSN was given (argument, --dsn, PGFLOW_DATABASE_URL or DATABASE_URL)."""


class DevClusterNotRunning(NoDatabaseConfigured):
    """No DSN was given and the dev cluster is not running (start it with `pgflow dev up`)."""


# ---------------------------------------------------------------- install and upgrade


class InstallError(PgflowError):
    """Installing or upgrading pgmq or pgflow in a database failed."""


class ExtensionNotAvailable(InstallError):
    """method="extension" was asked for but the server lacks the extension's control files."""


class SchemaVersionMismatch(InstallError):
    """The database holds a pgflow schema of another version than this package ships."""


# ---------------------------------------------------------------- dev cluster


class DevClusterError(PgflowError):
    """The embedded development cluster (``pgflow dev``) could not be created or started."""


# ---------------------------------------------------------------- client


class FlowNotFound(PgflowError):
    """The flow slug is not defined in the database (no worker has compiled it yet)."""


class RunNotFound(PgflowError):
    """No run has the given run_id."""


class RunAlreadyExists(PgflowError):
    """``start_flow`` was given a run_id that another run already has."""


class RunTimeout(PgflowError):
    """``wait_for_run`` gave up: the run was still in progress after the timeout."""


class InvalidRunInput(PgflowError, ValueError):
    """A run input was rejected: not JSON, not storable as jsonb, too large or not an array."""


class InvalidRunId(PgflowError, ValueError):
    """A run_id that is not a uuid (such as ``""`` or ``"   "``)."""


class InvalidStartOption(PgflowError, ValueError):
    """A ``start_flow`` option was refused; nothing was written.

    A blank (empty or whitespace-only) or over-255-character ``idempotency_key`` or
    ``concurrency_key``, a key that is not a string, or a ``deadline`` that is not in the
    future (database clock), naive, or not a datetime, timedelta or number of seconds.
    """


class ConcurrencyLimitReached(PgflowError):
    """The flow's concurrency limit for the key is reached and its ``on_limit`` is reject.

    Raised for SQLSTATE 53400 (configuration_limit_exceeded) by ``start_flow`` with a
    ``concurrency_key`` (flow option ``on_limit="reject"``), and by ``retry_run`` of a
    failed keyed run whose key's slots are all held meanwhile. Nothing was written: retry
    when one of the holders has finished.

    Attributes:
        concurrency_key: the key whose slots are all held (None when unknown).
        holders: the run ids (text) holding the key's slots, oldest first.
        flow_slug: the flow (None when the message did not name it).
    """

    def __init__(
        self,
        message: str,
        *,
        concurrency_key: str | None = None,
        holders: list[str] | None = None,
        flow_slug: str | None = None,
    ) -> None:
        super().__init__(message)
        self.concurrency_key = concurrency_key
        self.holders = list(holders or [])
        self.flow_slug = flow_slug


class WrongIsolationLevel(PgflowError):
    """A limited concurrency key was used outside READ COMMITTED; nothing was written.

    SQLSTATE 25000 (invalid_transaction_state), raised when a run with a concurrency key
    of a flow with a ``concurrency_limit`` is started or retried in a REPEATABLE READ or
    SERIALIZABLE transaction. Counting a key's slots needs a fresh snapshot: use
    autocommit (as the clients' own connections do) or a READ COMMITTED transaction.
    """


class StepNotFound(PgflowError):
    """The run has no step with the given slug (``skip_step``, ``complete_step``)."""


class RunStateError(PgflowError):
    """A run-control verb does not apply to the run (or step) in its current status.

    Raised for SQLSTATE 55000 (object_not_in_prerequisite_state), e.g. ``cancel_run`` of a
    completed run or ``retry_run`` of a started one; nothing was changed. A call given an
    ``expected_status`` the run has left does not raise: it returns ``changed=False``.

    Attributes:
        verb: the SQL verb that refused (``cancel_run``, ``skip_step``, ...), or None.
        run_id: the run, as text, or None when the message did not name it.
        status: the run's status the verb found, or None when the message did not name it.
        step_slug: for ``skip_step`` / ``complete_step``, the step; else None.
        step_status: the step's status the verb found (step verbs), else None.
    """

    def __init__(
        self,
        message: str,
        *,
        verb: str | None = None,
        run_id: str | None = None,
        status: str | None = None,
        step_slug: str | None = None,
        step_status: str | None = None,
    ) -> None:
        super().__init__(message)
        self.verb = verb
        self.run_id = run_id
        self.status = status
        self.step_slug = step_slug
        self.step_status = step_status


class InvalidControlArgument(PgflowError, ValueError):
    """A run-control verb refused its arguments; nothing was changed.

    A blank actor, an ``expected_status`` that is not a run status, or a ``complete_step``
    output that is not JSON-serialisable, not an array where the step's dependents need
    one, or larger than ``pgflow.max_payload_bytes``.
    """


class PermissionDenied(PgflowError, PermissionError):
    """The database role may not do this (SQLSTATE 42501, insufficient_privilege).

    The run-control verbs need the ``pgflow_operator`` role (or the schema owner); the
    ``pgflow_client`` role may start and read runs only.
    """


# ---------------------------------------------------------------- flow definitions


class FlowDefinitionError(PgflowError, ValueError):
    """A flow definition breaks a rule (slug, dependency, option, condition or handler).

    Attributes:
        flow_slug: Slug of the flow being defined.
        step_slug: Slug of the offending step, or None for a flow-level problem.
        rule: Short identifier of the broken rule, e.g. ``"unknown_dependency"``.
        detail: Explanation of what is wrong and how to fix it.
    """

    def __init__(self, flow_slug: str, step_slug: str | None, rule: str, detail: str) -> None:
        self.flow_slug = flow_slug
        self.step_slug = step_slug
        self.rule = rule
        self.detail = detail
        where = f"flow {flow_slug!r}"
        if step_slug is not None:
            where += f", step {step_slug!r}"
        super().__init__(f"Invalid {where} (rule {rule}): {detail}")


# ---------------------------------------------------------------- worker


class WorkerStartupError(PgflowError):
    """The worker cannot start (schema missing, invalid flow, ...); exit code 2.

    Attributes:
        exit_code: the exit status of ``pgflow-worker`` for this error.
    """

    exit_code = 2


class PermanentError(PgflowError):
    """Raised by a step handler for a failure no retry can cure: the task fails at once.

    The worker reports the task failed with ``permanent`` set (``pgflow.fail_tasks``), so
    the remaining attempts are not spent: the step's ``when_exhausted`` applies right away
    (fail the run, skip the step, or skip it with its dependents). The stored error text is
    ``"<ExceptionType>: <message>"``, as for any handler error. Subclass it to name your
    own permanent failures; every other exception is retried while attempts remain.

    A handler returning a value that is not JSON-serialisable fails its task at once in the
    same way. In upstream mode (a database with upstream pgflow's SQL only) the permanence
    is lost: the failure is retried as an ordinary one.

    Example::

        @flow.step()
        def charge(input):
            if input["amount"] < 0:
                raise PermanentError(f"negative amount {input['amount']}")
            ...
    """


class FlowShapeMismatch(WorkerStartupError):
    """A flow stored in the database differs from the worker's definition; exit code 1.

    Attributes:
        flow_slug: the flow.
        differences: one readable line per difference, as ``ensure_flow_compiled`` lists them.
    """

    exit_code = 1

    def __init__(self, flow_slug: str, differences: list[str]) -> None:
        self.flow_slug = flow_slug
        self.differences = differences
        lines = "\n".join(f"  - {d}" for d in differences)
        super().__init__(
            f"flow {flow_slug!r} in the database differs from this worker's definition:\n"
            f"{lines}\n"
            "Use a new flow slug (e.g. a version suffix), or --allow-data-loss to drop and "
            "recreate the flow with ALL its runs."
        )


# ---------------------------------------------------------------- testing


class RunStalled(PgflowError, RuntimeError):
    """``pgflow.testing.run_flow`` gave up on a run that ran away or made no progress.

    Raised after ``max_handler_calls`` handler calls (a retry loop, a huge map), or after
    1,000 moves of the test clock in a row that made nothing claimable (report it: the run
    had something due that no claim could take).
    """
