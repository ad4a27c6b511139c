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
from pgflow.client.records import RetryingTask, RunControlResult, RunEvent
from pgflow.client.signal_records import RunWait, SignalResult
from pgflow.client.start_records import RunDeadline, RunSlot, StartedRun
from pgflow.context import Context, Signal
from pgflow.dsl import Flow, Job, Step, Wait
from pgflow.errors import (
    ConcurrencyLimitReached,
    DevClusterError,
    DevClusterNotRunning,
    ExtensionNotAvailable,
    FlowDefinitionError,
    FlowNotFound,
    FlowShapeMismatch,
    InstallError,
    InvalidControlArgument,
    InvalidRunId,
    InvalidRunInput,
    InvalidStartOption,
    NoDatabaseConfigured,
    PermanentError,
    PermissionDenied,
    PgflowError,
    RunAlreadyExists,
    RunNotFound,
    RunStateError,
    RunTimeout,
    SchemaVersionMismatch,
    StepNotFound,
    WorkerStartupError,
    WrongIsolationLevel,
)
from pgflow.schema.check import SchemaReport, check_schema
from pgflow.schema.install import InstallReport, install
from pgflow.schema.migrate import MigrateReport, migrate
from pgflow.worker import Worker, WorkerConfig

__all__ = [
    "AsyncClient",
    "Client",
    "ConcurrencyLimitReached",
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
    "InvalidControlArgument",
    "InvalidRunId",
    "InvalidRunInput",
    "InvalidStartOption",
    "Job",
    "MigrateReport",
    "NoDatabaseConfigured",
    "PermanentError",
    "PermissionDenied",
    "PgflowError",
    "RetryingTask",
    "Run",
    "RunAlreadyExists",
    "RunControlResult",
    "RunDeadline",
    "RunEvent",
    "RunNotFound",
    "RunSlot",
    "RunState",
    "RunStateError",
    "RunTimeout",
    "RunWait",
    "SchemaReport",
    "SchemaVersionMismatch",
    "Signal",
    "SignalResult",
    "StartedRun",
    "Step",
    "StepNotFound",
    "StepState",
    "Wait",
    "Worker",
    "WorkerConfig",
    "WorkerStartupError",
    "WrongIsolationLevel",
    "__version__",
    "check_schema",
    "install",
    "migrate",
]
