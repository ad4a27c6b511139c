"""Where the database is, for library code: a DSN given, configured, or a running dev cluster.

Order: an explicit DSN, then ``PGFLOW_DATABASE_URL``, then ``DATABASE_URL``, then the
embedded development cluster (:mod:`pgflow.dev`) **if it is already running**. Library
code never creates or starts the cluster (that is ``pgflow dev up``'s job; the commands
start it on demand through :func:`pgflow.cli.util.command_dsn`). Set
``PGFLOW_DEV_CLUSTER=off`` to leave the dev cluster out entirely.
"""

from __future__ import annotations

import os

from pgflow import dev
from pgflow.errors import DevClusterError, DevClusterNotRunning, NoDatabaseConfigured

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
    """Return the DSN to connect to, without starting anything.

    Args:
        explicit: a DSN given by the caller; empty strings count as not given.

    Returns:
        A libpq connection string or URL: ``explicit`` if set, else the first non-empty
        variable of :data:`DSN_ENV_VARS`, else the URL of the dev cluster when it runs.

    Raises:
        DevClusterNotRunning: none of the sources is set and the dev cluster is not
            running; the message says to run ``pgflow dev up`` or to pass a DSN.
        NoDatabaseConfigured: none of the sources is set and the dev cluster is disabled
            (``PGFLOW_DEV_CLUSTER=off``) or cannot be asked (the message says why).
    """
    dsn = configured_dsn(explicit)
    if dsn is not None:
        return dsn
    hint = "no database given: pass a DSN, or set PGFLOW_DATABASE_URL or DATABASE_URL"
    if not dev_cluster_enabled():
        raise NoDatabaseConfigured(f"{hint} (the dev cluster is off: {DEV_CLUSTER_ENV_VAR})")
    try:
        current = dev.status()
    except DevClusterError as exc:
        raise NoDatabaseConfigured(f"{hint}; the dev cluster cannot be asked: {exc}") from exc
    if current.running and current.dsn is not None:
        return current.dsn
    state = "stopped" if current.initialized else "not created"
    raise DevClusterNotRunning(
        f"{hint}, or start the dev cluster with `pgflow dev up` "
        f"(it is {state}; home {current.home})"
    )
