"""pgflow: a SQL-first durable workflow engine on PostgreSQL, with a Python worker.

The engine lives in the ``pgflow`` PostgreSQL schema (tables and functions; tasks travel on
pgmq queues). This package installs that schema (:func:`install`, :func:`migrate`,
:func:`check_schema`: :mod:`pgflow.schema`), defines flows (:class:`Flow`, :class:`Job`:
:mod:`pgflow.dsl`), starts and follows runs (:class:`Client`, :class:`AsyncClient`:
:mod:`pgflow.client`), and runs workers (:class:`Worker`: :mod:`pgflow.worker`). The
``pgflow`` and ``pgflow-worker`` commands live in :mod:`pgflow.cli`, the embedded dev
cluster in :mod:`pgflow.dev`, every exception in :mod:`pgflow.errors`.
"""

from pgflow._version import __version__
from pgflow.client import AsyncClient, Client, Run, RunState, StepState
from pgflow.context import Context
from pgflow.dsl import Flow, Job, Step
from pgflow.errors import (
    DevClusterError,
    DevClusterNotRunning,
    ExtensionNotAvailable,
    FlowDefinitionError,
    FlowNotFound,
    FlowShapeMismatch,
    InstallError,
    InvalidRunId,
    InvalidRunInput,
    NoDatabaseConfigured,
    PgflowError,
    RunAlreadyExists,
    RunNotFound,
    RunTimeout,
    SchemaVersionMismatch,
    WorkerStartupError,
)
from pgflow.schema.check import SchemaReport, check_schema
from pgflow.schema.install import InstallReport, install
from pgflow.schema.migrate import MigrateReport, migrate
from pgflow.worker import Worker, WorkerConfig

__all__ = [
    "AsyncClient",
    "Client",
    "Context",
    "DevClusterError",
    "DevClusterNotRunning",
    "ExtensionNotAvailable",
    "Flow",
    "FlowDefinitionError",
    "FlowNotFound",
    "FlowShapeMismatch",
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
    "WorkerStartupError",
    "__version__",
    "check_schema",
    "install",
    "migrate",
]
