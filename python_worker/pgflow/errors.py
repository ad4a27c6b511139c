"""Exceptions raised by the pgflow package; all derive from PgflowError."""

from __future__ import annotations


class PgflowError(Exception):
    """Base class of every error raised by the pgflow package."""


class NoDatabaseConfigured(PgflowError):
    """No DSN was given (--dsn, PGFLOW_DATABASE_URL or DATABASE_URL)."""


class InstallError(PgflowError):
    """Installing pgmq or pgflow into a database failed."""


class ExtensionNotAvailable(InstallError):
    """method="extension" was asked for but the server lacks the extension's control files."""


class SchemaVersionMismatch(InstallError):
    """The database holds a pgflow schema of another version than this package ships."""


class DevClusterError(PgflowError):
    """The embedded development cluster (``pgflow dev``) could not be created or started."""


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
