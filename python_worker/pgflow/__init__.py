"""pgflow: a SQL-first durable workflow engine on PostgreSQL, with a Python worker.

The engine lives in the ``pgflow`` PostgreSQL schema (tables and functions; tasks travel on
pgmq queues). This package installs that schema and, in later releases, runs workers.
"""

from pgflow._version import __version__
from pgflow.errors import (
    ExtensionNotAvailable,
    InstallError,
    NoDatabaseConfigured,
    PgflowError,
    SchemaVersionMismatch,
)
from pgflow.install import InstallReport, install

__all__ = [
    "ExtensionNotAvailable",
    "InstallError",
    "InstallReport",
    "NoDatabaseConfigured",
    "PgflowError",
    "SchemaVersionMismatch",
    "__version__",
    "install",
]
