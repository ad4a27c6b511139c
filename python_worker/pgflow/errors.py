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
