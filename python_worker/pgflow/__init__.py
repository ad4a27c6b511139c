"""pgflow: a SQL-first durable workflow engine on PostgreSQL, with a Python worker.

The engine lives in the ``pgflow`` PostgreSQL schema (tables and functions; tasks travel on
pgmq queues). This package installs that schema, starts and follows runs (:class:`Client`), and
runs workers (``pgflow-worker``).
"""

from pgflow._version import __version__
from pgflow.client import Client, Run, RunState, StepState
from pgflow.context import Context
from pgflow.dsl import Flow, FlowDefinitionError, Job, Step
from pgflow.errors import (
    DevClusterError,
    ExtensionNotAvailable,
    FlowNotFound,
    InstallError,
    InvalidRunId,
    InvalidRunInput,
    NoDatabaseConfigured,
    PgflowError,
    RunAlreadyExists,
    RunNotFound,
    RunTimeout,
    SchemaVersionMismatch,
)
from pgflow.install import InstallReport, install
from pgflow.migrate import MigrateReport, migrate
from pgflow.schema_check import SchemaReport, check_schema
from pgflow.worker import Worker, WorkerConfig

__all__ = [
    "Client",
    "Context",
    "DevClusterError",
    "ExtensionNotAvailable",
    "Flow",
    "FlowDefinitionError",
    "FlowNotFound",
    "InstallError",
    "InstallReport",
    "InvalidRunId",
    "InvalidRunInput",
    "Job",
    "MigrateReport",
    "NoDatabaseConfigured",
    "PgflowError",
    "Run",
    "RunAlreadyExists",
    "RunNotFound",
    "RunState",
    "RunTimeout",
    "SchemaReport",
    "SchemaVersionMismatch",
    "Step",
    "StepState",
    "Worker",
    "WorkerConfig",
    "__version__",
    "check_schema",
    "install",
    "migrate",
]
