"""The embedded development cluster: a local PostgreSQL that pgflow manages for you.

``pgflow dev up`` (and any command run without a DSN) creates and starts it; ``pgflow dev
down`` stops it. Everything it needs to find the cluster again lives in the *home*
directory: ``.pgflow/`` in the current directory, or ``$PGFLOW_HOME``.

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
- A dev database made by an older pgflow is upgraded on ``up`` (:func:`pgflow.migrate.migrate`).
- Durability: defaults (fsync on), except ``synchronous_commit = off``, which may lose the
  last few hundred milliseconds of commits on an OS crash but never corrupts data.

Concurrent callers (a worker and a CLI command starting the cluster on demand) are
serialised by a lock file in the home directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from pgflow.errors import DevClusterError, InstallError, SchemaVersionMismatch
from pgflow.install import install
from pgflow.migrate import migrate

#: Environment variable overriding the home directory (default ``./.pgflow``).
HOME_ENV_VAR = "PGFLOW_HOME"
#: Database created in the cluster; also ``cron.database_name``.
DBNAME = "pgflow"
#: Superuser role created by initdb (trust authentication on 127.0.0.1).
ROLE = "postgres"
#: OS user that runs the server when pgflow runs as root.
ROOT_SERVER_USER = "postgres"
STATE_FILE = "cluster.json"
START_TIMEOUT_SECONDS = 60

Echo = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class DevStatus:
    """What :func:`status` found.

    Attributes:
        home: the home directory (``.pgflow`` or ``$PGFLOW_HOME``).
        initialized: a data directory exists (``pgflow dev up`` ran before).
        running: the server is running.
        data_dir: the data directory, when initialized.
        log_file: the server log, when initialized.
        port: the TCP port on 127.0.0.1 (the last one used when stopped).
        dsn: the connection URL, when initialized.
    """

    home: Path
    initialized: bool
    running: bool
    data_dir: Path | None = None
    log_file: Path | None = None
    port: int | None = None
    dsn: str | None = None

    def __str__(self) -> str:
        if not self.initialized:
            return f"not created (home {self.home}); `pgflow dev up` creates it"
        state = "running" if self.running else "stopped"
        return (
            f"{state}\n  dsn:  {self.dsn}\n  data: {self.data_dir}\n  log:  {self.log_file}\n"
            f"  home: {self.home}"
        )


def home_dir() -> Path:
    """Return the home directory: ``$PGFLOW_HOME`` or ``./.pgflow`` (absolute)."""
    return Path(os.environ.get(HOME_ENV_VAR) or ".pgflow").absolute()


def dsn_for(port: int) -> str:
    """Return the connection URL of the dev cluster listening on ``port``."""
    return f"postgresql://{ROLE}@127.0.0.1:{port}/{DBNAME}"


# ---------------------------------------------------------------- public operations


def status() -> DevStatus:
    """Report whether the dev cluster exists and runs (starts nothing)."""
    home = home_dir()
    state = _load_state(home)
    if state is None or not (Path(state["data_dir"]) / "PG_VERSION").exists():
        return DevStatus(home=home, initialized=False, running=False)
    data_dir = Path(state["data_dir"])
    port = int(state["port"])
    return DevStatus(
        home=home,
        initialized=True,
        running=_is_running(data_dir),
        data_dir=data_dir,
        log_file=Path(state["log_file"]),
        port=port,
        dsn=dsn_for(port),
    )


def up(echo: Echo = _stderr) -> str:
    """Create the dev cluster if needed, start it if stopped, and return its DSN.

    Idempotent: a running cluster is left alone. First use runs initdb, starts the
    server, creates database ``pgflow`` and installs pg_cron, pgmq and pgflow into it.

    Args:
        echo: receives one line per action taken (default: print to stderr).

    Returns:
        The connection URL, ``postgresql://postgres@127.0.0.1:<port>/pgflow``.

    Raises:
        DevClusterError: the PostgreSQL server binaries are missing, initdb or the server
            start failed (the message quotes the server log), or installing failed.
    """
    home = home_dir()
    with _locked(home):
        state = _load_state(home)
        if state is not None and not (Path(state["data_dir"]) / "PG_VERSION").exists():
            echo(f"pgflow dev: data directory {state['data_dir']} is gone; creating a new one")
            state = None
        if state is None:
            state = _init_cluster(home, echo)
        data_dir = Path(state["data_dir"])
        if not _is_running(data_dir):
            state = _start(home, state, echo)
        dsn = dsn_for(int(state["port"]))
        _ensure_database(dsn, echo)
        return dsn


def ensure_running(echo: Echo = _stderr) -> str:
    """Return the DSN of the dev cluster, starting (or creating) it when needed.

    Same as :func:`up`; this is the fallback of :func:`pgflow.dsn.resolve_dsn`.
    """
    current = status()
    if current.running and current.dsn is not None:
        return current.dsn
    return up(echo)


def down(echo: Echo = _stderr) -> bool:
    """Stop the dev cluster (fast shutdown: open sessions are disconnected).

    Args:
        echo: receives one line per action taken.

    Returns:
        True when a running server was stopped, False when none was running.

    Raises:
        DevClusterError: ``pg_ctl stop`` failed.
    """
    home = home_dir()
    with _locked(home):
        state = _load_state(home)
        if state is None or not _is_running(Path(state["data_dir"])):
            return False
        _pg_ctl(["stop", "-D", state["data_dir"], "-m", "fast", "-w"], what="stop")
        echo(f"pgflow dev: stopped the cluster in {state['data_dir']}")
        return True


def destroy(echo: Echo = _stderr) -> None:
    """Stop the dev cluster and delete its data directory, log and state file.

    Raises:
        DevClusterError: stopping the server failed.
    """
    down(echo)
    home = home_dir()
    with _locked(home):
        state = _load_state(home)
        if state is not None:
            base = Path(state["base_dir"])
            shutil.rmtree(base, ignore_errors=True)
            (home / STATE_FILE).unlink(missing_ok=True)
            echo(f"pgflow dev: deleted {base}")


def psql_command(dsn: str, args: tuple[str, ...] = ()) -> list[str]:
    """Return the argv that runs psql on ``dsn`` with extra ``args``.

    Raises:
        DevClusterError: no psql binary was found.
    """
    try:
        candidate: Path | None = Path(_pg_config("--bindir")) / "psql"
    except DevClusterError:
        candidate = None
    psql = str(candidate) if candidate and candidate.exists() else shutil.which("psql")
    if psql is None:
        raise DevClusterError("psql not found (install the PostgreSQL client)")
    return [psql, dsn, *args]


# ---------------------------------------------------------------- cluster creation


def _init_cluster(home: Path, echo: Echo) -> dict[str, str]:
    """Run initdb in a location the server user can reach; return the new state."""
    base = _choose_base_dir(home)
    data_dir = base / "data"
    if data_dir.exists():  # leftovers of a failed initdb
        shutil.rmtree(data_dir)
    echo(f"pgflow dev: creating a PostgreSQL cluster in {data_dir}")
    _run_server_tool(
        [
            str(_bindir() / "initdb"),
            "-D",
            str(data_dir),
            "-U",
            ROLE,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-instructions",
        ],
        what="initdb",
    )
    settings = {
        "listen_addresses": "127.0.0.1",
        "unix_socket_directories": "",
        "synchronous_commit": "off",
    }
    if (Path(_pg_config("--pkglibdir")) / "pg_cron.so").exists():
        settings["shared_preload_libraries"] = "pg_cron"
        settings["cron.database_name"] = DBNAME
    else:
        echo("pgflow dev: pg_cron is not installed on this server; cron features are off")
    lines = "".join(f"{name} = '{value}'\n" for name, value in settings.items())
    with (data_dir / "postgresql.conf").open("a") as conf:
        conf.write(f"\n# pgflow dev cluster (pgflow.devdb)\n{lines}")
    state = {
        "base_dir": str(base),
        "data_dir": str(data_dir),
        "log_file": str(base / "server.log"),
        "port": str(_free_port()),
    }
    _save_state(home, state)
    return state


def _choose_base_dir(home: Path) -> Path:
    """Return a directory the server user owns and can reach, for data and log."""
    local = home / "postgres"
    local.mkdir(mode=0o700, exist_ok=True)
    if not _running_as_root():
        return local
    shutil.chown(local, ROOT_SERVER_USER, ROOT_SERVER_USER)
    reachable = subprocess.run(
        ["runuser", "-u", ROOT_SERVER_USER, "--", "test", "-w", str(local), "-a", "-x", str(local)],
        cwd="/",
        check=False,
    )
    if reachable.returncode == 0:
        return local
    local.rmdir()
    digest = hashlib.sha256(str(home).encode()).hexdigest()[:12]
    fallback = Path(tempfile.gettempdir()) / f"pgflow-dev-{digest}"
    fallback.mkdir(mode=0o700, exist_ok=True)
    shutil.chown(fallback, ROOT_SERVER_USER, ROOT_SERVER_USER)
    return fallback


def _start(home: Path, state: dict[str, str], echo: Echo) -> dict[str, str]:
    """Start the server, on a new free port if the recorded one is taken."""
    if not _port_is_free(int(state["port"])):
        state = {**state, "port": str(_free_port())}
        _save_state(home, state)
    log_file = Path(state["log_file"])
    if _running_as_root() and not log_file.exists():
        log_file.touch()
        shutil.chown(log_file, ROOT_SERVER_USER, ROOT_SERVER_USER)
    argv = ["start", "-D", state["data_dir"], "-l", str(log_file), "-w"]
    timeout = ["-t", str(START_TIMEOUT_SECONDS)]
    try:
        _pg_ctl([*argv, "-o", f"-p {state['port']}", *timeout], what="start", log_file=log_file)
    except DevClusterError:
        if _port_is_free(int(state["port"])):
            raise
        # Another process took the port between our check and the server's bind.
        state = {**state, "port": str(_free_port())}
        _save_state(home, state)
        _pg_ctl([*argv, "-o", f"-p {state['port']}", *timeout], what="start", log_file=log_file)
    echo(f"pgflow dev: started PostgreSQL on 127.0.0.1:{state['port']} (log {log_file})")
    return state


def _ensure_database(dsn: str, echo: Echo) -> None:
    """Create database pgflow if absent and install pg_cron, pgmq and pgflow into it."""
    admin = dsn.rsplit("/", 1)[0] + "/postgres"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
            exists = conn.execute(
                "select 1 from pg_catalog.pg_database where datname = %s", (DBNAME,)
            ).fetchone()
            if exists is None:
                conn.execute(sql.SQL("create database {}").format(sql.Identifier(DBNAME)))
                echo(f"pgflow dev: created database {DBNAME}")
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            preloaded = conn.execute("show shared_preload_libraries").fetchone()
            if preloaded is not None and "pg_cron" in str(preloaded[0]):
                conn.execute("create extension if not exists pg_cron")
            try:
                report = install(conn)
            except SchemaVersionMismatch:
                _migrate_dev_database(conn, echo)
                return
    except psycopg.Error as exc:
        raise DevClusterError(f"preparing database {DBNAME} failed: {exc}") from exc
    if report.changed:
        echo(f"pgflow dev: {report}".replace("\n", "; "))


def _migrate_dev_database(conn: psycopg.Connection, echo: Echo) -> None:
    """Upgrade a dev database created by an older pgflow; warn (do not fail) if impossible."""
    try:
        echo(f"pgflow dev: {migrate(conn)}")
    except InstallError as exc:
        echo(
            f"pgflow dev: warning: {exc}; the cluster runs, but with another pgflow version "
            "(`pgflow dev destroy` then `pgflow dev up` starts afresh)"
        )


# ---------------------------------------------------------------- state and locking


def _load_state(home: Path) -> dict[str, str] | None:
    try:
        data = json.loads((home / STATE_FILE).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise DevClusterError(f"cannot read {home / STATE_FILE}: {exc}") from exc
    return {key: str(value) for key, value in data.items()}


def _save_state(home: Path, state: dict[str, str]) -> None:
    path = home / STATE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(path)


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<home>/lock`` (creating the home directory)."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---------------------------------------------------------------- processes and ports


def _running_as_root() -> bool:
    return os.geteuid() == 0


def _run_server_tool(
    argv: list[str], *, what: str, log_file: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL server tool, as the postgres OS user when we are root."""
    if _running_as_root():
        argv = ["runuser", "-u", ROOT_SERVER_USER, "--", *argv]
    try:
        result = subprocess.run(argv, cwd="/", capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise DevClusterError(f"{what}: {exc.filename} not found") from exc
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip()
        if log_file is not None and log_file.exists():
            tail = "\n".join(log_file.read_text(errors="replace").splitlines()[-15:])
            detail += f"\n--- {log_file} (last lines) ---\n{tail}"
        raise DevClusterError(f"{what} failed (exit {result.returncode}): {detail}")
    return result


def _pg_ctl(
    args: list[str], *, what: str, log_file: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return _run_server_tool([str(_bindir() / "pg_ctl"), *args], what=what, log_file=log_file)


def _is_running(data_dir: Path) -> bool:
    """True when ``pg_ctl status`` finds a server running on ``data_dir``."""
    argv = [str(_bindir() / "pg_ctl"), "status", "-D", str(data_dir)]
    if _running_as_root():
        argv = ["runuser", "-u", ROOT_SERVER_USER, "--", *argv]
    result = subprocess.run(argv, cwd="/", capture_output=True, check=False)
    return result.returncode == 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the server does: a port with connections in TIME_WAIT is still usable.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return False
            raise
        return True


def _pg_config(option: str) -> str:
    try:
        result = subprocess.run(["pg_config", option], capture_output=True, text=True, check=True)
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        raise DevClusterError(
            "pg_config not found: the embedded dev cluster needs the PostgreSQL server "
            "installed (Debian: apt-get install postgresql)"
        ) from exc
    return result.stdout.strip()


def _bindir() -> Path:
    bindir = Path(_pg_config("--bindir"))
    if not (bindir / "initdb").exists():
        raise DevClusterError(
            f"initdb not found in {bindir}: the embedded dev cluster needs the PostgreSQL "
            "server binaries, not only the client"
        )
    return bindir
