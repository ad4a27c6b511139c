"""Where the database is: the DSN resolution shared by every pgflow command and the worker.

Order: an explicit DSN (``--dsn``), then ``PGFLOW_DATABASE_URL``, then ``DATABASE_URL``,
then the embedded development cluster (:mod:`pgflow.devdb`, under ``.pgflow/`` or
``$PGFLOW_HOME``), which is created or started on demand. Set ``PGFLOW_DEV_CLUSTER=off``
to turn that last fallback off (then a missing DSN is an error).
"""

from __future__ import annotations

import os

from pgflow import devdb
from pgflow.errors import DevClusterError, NoDatabaseConfigured

#: Environment variables consulted, in order, when no DSN is given explicitly.
DSN_ENV_VARS: tuple[str, ...] = ("PGFLOW_DATABASE_URL", "DATABASE_URL")
#: Set to ``off`` (or ``0``, ``false``, ``no``) to disable the dev-cluster fallback.
DEV_CLUSTER_ENV_VAR = "PGFLOW_DEV_CLUSTER"


def configured_dsn(explicit: str | None) -> str | None:
    """Return ``explicit`` or the first non-empty DSN environment variable, else None.

    Args:
        explicit: a DSN given on the command line (``--dsn``) or by the caller; empty
            strings count as not given.
    """
    if explicit:
        return explicit
    for name in DSN_ENV_VARS:
        value = os.environ.get(name)
        if value:
            return value
    return None


def dev_cluster_enabled() -> bool:
    """True unless ``$PGFLOW_DEV_CLUSTER`` is ``off``, ``0``, ``false`` or ``no``."""
    value = os.environ.get(DEV_CLUSTER_ENV_VAR, "").strip().lower()
    return value not in {"off", "0", "false", "no"}


def resolve_dsn(explicit: str | None) -> str:
    """Return the DSN to connect to.

    Args:
        explicit: a DSN given on the command line (``--dsn``) or by the caller; empty
            strings count as not given.

    Returns:
        A libpq connection string or URL: ``explicit`` if set, else the first non-empty
        variable of :data:`DSN_ENV_VARS`, else the URL of the embedded dev cluster, which
        is created and started first when needed (a note goes to stderr).

    Raises:
        NoDatabaseConfigured: none of the sources is set and the dev cluster is disabled
            (``PGFLOW_DEV_CLUSTER=off``) or cannot be started here (the message says why).
    """
    dsn = configured_dsn(explicit)
    if dsn is not None:
        return dsn
    hint = "no database given: pass --dsn or set PGFLOW_DATABASE_URL or DATABASE_URL"
    if not dev_cluster_enabled():
        raise NoDatabaseConfigured(f"{hint} (the dev cluster is off: {DEV_CLUSTER_ENV_VAR})")
    try:
        return devdb.ensure_running()
    except DevClusterError as exc:
        raise NoDatabaseConfigured(f"{hint}; the embedded dev cluster failed: {exc}") from exc
