"""Install pgmq and the pgflow schema into a database (``pgflow install``).

Two ways to get each one in:

- ``extension``: ``CREATE EXTENSION`` when the server has the control file and script
  (``make install-extension`` writes them into ``$(pg_config --sharedir)/extension``);
- ``sql``: the same script run as plain SQL, for servers that take no custom extensions
  (managed PostgreSQL). pgmq's script is the one bundled in the PyPI ``pgmq`` package,
  pgflow's is shipped inside this package (``pgflow/sql/pgflow--<version>.sql``).

Both ways give the same catalog (tests/integration/test_install.py proves it), and the
schema records which way was used in ``pgflow.installed_versions``.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from psycopg import sql

from pgflow._version import __version__
from pgflow.errors import ExtensionNotAvailable, InstallError, SchemaVersionMismatch
from pgflow.schema.upstream import adopt, find_upstream

Method = Literal["auto", "extension", "sql"]
Action = Literal["present", "extension", "sql", "adopted"]
METHODS: tuple[Method, ...] = ("auto", "extension", "sql")

# Key of the transaction-level advisory lock that serialises concurrent installers
# (the bytes of "pgflow").
INSTALL_LOCK_KEY = 0x7067666C6F77

#: The group roles the install creates and grants (extension/sql/900_setup_security.sql).
ROLES = ("pgflow_worker", "pgflow_client", "pgflow_operator", "pgflow_upstream_worker")
_MISSING_ROLES = (
    "select array(select r from unnest(%s::text[]) as r where pg_catalog.to_regrole(r) is null)"
)

_DESCRIBE: dict[Action, str] = {
    "present": "already installed",
    "extension": "installed with CREATE EXTENSION",
    "sql": "installed as plain SQL",
    "adopted": "adopted in place from upstream pgflow 0.14 (flows, runs and tasks kept)",
}


@dataclass(frozen=True)
class InstallReport:
    """What :func:`install` found or did.

    Attributes:
        pgmq: ``"present"`` (found, left alone), ``"extension"`` (created with
            ``CREATE EXTENSION``) or ``"sql"`` (bundled script run as plain SQL).
        pgflow: the same, for the pgflow schema, or ``"adopted"``: an upstream pgflow 0.14
            schema was turned into this version's in place (:mod:`pgflow.schema.upstream`).
        pgflow_version: the pgflow schema version installed afterwards.
        missing_roles: the group roles (``pgflow_worker``, ``pgflow_client``,
            ``pgflow_upstream_worker``) that do not exist (the installing role could not
            create them): until an administrator creates them and the owner runs
            ``select pgflow.setup_security()``, only the owner can use pgflow (README
            "Security").
    """

    pgmq: Action
    pgflow: Action
    pgflow_version: str
    missing_roles: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when this call installed anything."""
        return self.pgmq != "present" or self.pgflow != "present"

    def __str__(self) -> str:
        text = (
            f"pgmq: {_DESCRIBE[self.pgmq]}\npgflow {self.pgflow_version}: {_DESCRIBE[self.pgflow]}"
        )
        if self.missing_roles:
            roles = ", ".join(self.missing_roles)
            text += (
                f"\nroles missing: {roles} (this role may not create roles); as an "
                f"administrator create them (CREATE ROLE <name> NOLOGIN), then run "
                f"`select pgflow.setup_security()` as the owner of schema pgflow"
            )
        return text


def install(conn_or_dsn: psycopg.Connection | str, method: Method = "auto") -> InstallReport:
    """Install pgmq (when absent) and then pgflow into one database.

    Runs in one transaction under an advisory lock, so concurrent calls and failures leave
    either everything or nothing installed. If ``conn_or_dsn`` is a connection already
    inside a transaction, the install joins it (as a savepoint) and commits with it.
    Idempotent: components already present are left alone. A schema that upstream pgflow
    0.14.x installed (its tables, no pgflow-py version) is adopted in place: its flows,
    runs, tasks, workers and queues are kept and runs in flight go on.

    Args:
        conn_or_dsn: a psycopg connection (superuser, for ``CREATE EXTENSION pgmq``), or a
            DSN to open one.
        method: ``"extension"`` to require ``CREATE EXTENSION``, ``"sql"`` to run the
            scripts as plain SQL, ``"auto"`` (default) to use extensions when the server
            has their files and plain SQL otherwise. pgflow is only created as an
            extension on top of a pgmq extension.

    Returns:
        An :class:`InstallReport` saying, per component, what was found or done.

    Raises:
        ValueError: ``method`` is not one of ``auto``, ``extension``, ``sql``.
        ExtensionNotAvailable: ``method="extension"`` but the server lacks the files of
            the pgmq or pgflow extension (of this package's version).
        SchemaVersionMismatch: pgflow is installed at a version other than this package's.
        InstallError: pgflow would need ``CREATE EXTENSION`` over a plain-SQL pgmq, the
            packaged SQL is missing, the schema is an upstream pgflow older than 0.14 (or
            ``method="extension"`` on an upstream schema, which is adopted as plain SQL),
            or a statement of the install failed.
        psycopg.OperationalError: the DSN could not be connected to.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if isinstance(conn_or_dsn, str):
        with psycopg.connect(conn_or_dsn, autocommit=True) as conn:
            return _install(conn, method)
    return _install(conn_or_dsn, method)


def _install(conn: psycopg.Connection, method: Method) -> InstallReport:
    try:
        with conn.transaction():
            conn.execute("select pg_catalog.pg_advisory_xact_lock(%s)", (INSTALL_LOCK_KEY,))
            pgmq = _install_pgmq(conn, method)
            pgflow = _install_pgflow(conn, method)
            version = _pgflow_version(conn)
            missing = _scalar(conn, _MISSING_ROLES, (list(ROLES),))
    except psycopg.Error as exc:
        raise InstallError(f"install failed: {exc}") from exc
    assert version is not None
    return InstallReport(
        pgmq=pgmq, pgflow=pgflow, pgflow_version=version, missing_roles=tuple(missing)
    )


def _install_pgmq(conn: psycopg.Connection, method: Method) -> Action:
    if _scalar(conn, "select pg_catalog.to_regclass('pgmq.meta') is not null"):
        return "present"
    if _choose(conn, "pgmq", None, method) == "extension":
        conn.execute("create extension pgmq")
        return "extension"
    conn.execute(_read_pgmq_sql())
    return "sql"


def _install_pgflow(conn: psycopg.Connection, method: Method) -> Action:
    installed = _pgflow_version(conn)
    if installed == __version__:
        return "present"
    if installed is not None:
        raise SchemaVersionMismatch(
            f"pgflow {installed} is installed; this package ships {__version__} "
            "(run `pgflow migrate` to upgrade)"
        )
    found = find_upstream(conn)
    if found is not None:  # upstream's migrations installed it: adopt it, keep its runs
        if method == "extension":
            raise InstallError(
                "this database holds upstream pgflow, which is adopted in place as plain SQL "
                "(it cannot become an extension): use method 'auto' or 'sql'"
            )
        adopt(conn, found)
        return "adopted"
    choice = _choose(conn, "pgflow", __version__, method)
    if choice == "extension" and not _is_extension(conn, "pgmq"):
        if method == "extension":
            raise InstallError(
                "CREATE EXTENSION pgflow needs pgmq installed as an extension, but pgmq here "
                "was installed as plain SQL; use method='sql'"
            )
        choice = "sql"
    if choice == "extension":
        conn.execute(sql.SQL("create extension pgflow version {}").format(sql.Literal(__version__)))
    else:
        conn.execute(_read_pgflow_sql())
    return choice


def _choose(
    conn: psycopg.Connection, name: str, version: str | None, method: Method
) -> Literal["extension", "sql"]:
    """Pick the install path of one extension for ``method``."""
    if method == "sql":
        return "sql"
    available = _scalar(
        conn,
        "select exists (select 1 from pg_catalog.pg_available_extension_versions"
        " where name = %s and (%s::text is null or version = %s))",
        (name, version, version),
    )
    if available:
        return "extension"
    if method == "extension":
        wanted = f"{name} {version}" if version else name
        raise ExtensionNotAvailable(
            f"the server has no extension files for {wanted}; write them with "
            "`make install-extension` on the server, or install with method='sql'"
        )
    return "sql"


def _pgflow_version(conn: psycopg.Connection) -> str | None:
    """Return the installed pgflow schema version, or None when pgflow is absent."""
    if not _scalar(conn, "select pg_catalog.to_regclass('pgflow.installed_versions') is not null"):
        return None
    return str(_scalar(conn, "select pgflow.version()"))


def _is_extension(conn: psycopg.Connection, name: str) -> bool:
    query = "select exists (select 1 from pg_catalog.pg_extension where extname = %s)"
    return bool(_scalar(conn, query, (name,)))


def _scalar(conn: psycopg.Connection, query: str, params: tuple[object, ...] = ()) -> Any:
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def _read_pgmq_sql() -> str:
    return (importlib.resources.files("pgmq") / "sql" / "pgmq.sql").read_text()


def _read_pgflow_sql() -> str:
    """Return the packaged pgflow script (built by extension/build.py)."""
    path = importlib.resources.files("pgflow") / "sql" / f"pgflow--{__version__}.sql"
    try:
        return path.read_text()
    except FileNotFoundError as exc:
        raise InstallError(
            f"packaged SQL {path} is missing: in a source checkout (editable install) run "
            "`make build`, which generates it; wheels carry it"
        ) from exc
