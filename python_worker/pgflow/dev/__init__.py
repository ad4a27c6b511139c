"""The embedded development cluster: a local PostgreSQL that pgflow manages for you.

``pgflow dev up`` (and any ``pgflow`` / ``pgflow-worker`` command run without a DSN)
creates and starts it; ``pgflow dev down`` stops it. Library code never starts it:
:class:`pgflow.Client` without a DSN uses it only while it runs. Everything needed to find
the cluster again lives in the *home* directory: ``.pgflow/`` in the current directory, or
``$PGFLOW_HOME``.

- ``<home>/cluster.json`` records where the data directory is and the port.
- The data directory and the server log live in ``<home>/postgres/`` (``data/``,
  ``server.log``).
- PostgreSQL refuses to run as root. As root, the server runs as the ``postgres`` OS user
  (via ``runuser``), which must be able to reach the data directory. When it cannot (an
  ancestor of the home directory is not traversable by ``postgres``, e.g. a project under
  ``/root``), the data goes to ``$TMPDIR/pgflow-dev-<hash of the home path>/`` instead, and
  ``cluster.json`` points there. No ancestor directory's permissions are changed.
- The server listens on 127.0.0.1 only, on a free port chosen at first start (and again if
  that port is taken later), with ``trust`` authentication for the ``postgres`` role: a
  local development database, not a place for secrets.
- ``pg_cron`` is preloaded (when the server has it) with ``cron.database_name = pgflow``;
  database ``pgflow`` holds pg_cron, pgmq and pgflow (installed by :func:`pgflow.install`,
  as extensions when the server has their files, else as plain SQL).
- A dev database made by an older pgflow is upgraded on ``up`` (:func:`pgflow.migrate`).
- Durability: defaults (fsync on), except ``synchronous_commit = off``, which may lose the
  last few hundred milliseconds of commits on an OS crash but never corrupts data.

Modules: ``cluster`` (the operations below), ``state`` (home directory, ``cluster.json``,
lock), ``server`` (initdb, pg_ctl, ports, root), ``database`` (database ``pgflow``).
"""

from pgflow.dev.cluster import (
    DevStatus,
    destroy,
    down,
    ensure_running,
    psql_command,
    status,
    up,
)
from pgflow.dev.database import dsn_for
from pgflow.dev.server import DBNAME, ROLE, ROOT_SERVER_USER, choose_base_dir
from pgflow.dev.state import HOME_ENV_VAR, STATE_FILE, ClusterState, home_dir

__all__ = [
    "DBNAME",
    "HOME_ENV_VAR",
    "ROLE",
    "ROOT_SERVER_USER",
    "STATE_FILE",
    "ClusterState",
    "DevStatus",
    "choose_base_dir",
    "destroy",
    "down",
    "dsn_for",
    "ensure_running",
    "home_dir",
    "psql_command",
    "status",
    "up",
]
