"""The dev cluster's operations: ``status``, ``up``, ``down``, ``destroy`` (``pgflow dev``).

Every operation that changes something holds the home directory's lock, so concurrent
callers (a worker and a CLI command starting the cluster on demand) are serialised.
:func:`status` only reads: library code (:func:`pgflow.dsn.resolve_dsn`) uses it to find a
running cluster without starting one.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from pgflow.dev import server
from pgflow.dev.database import dsn_for, ensure_database
from pgflow.dev.server import Echo
from pgflow.dev.state import STATE_FILE, home_dir, load_state, locked
from pgflow.errors import DevClusterError


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


def status() -> DevStatus:
    """Report whether the dev cluster exists and runs (starts nothing, writes nothing).

    Raises:
        DevClusterError: ``cluster.json`` is unreadable, or the cluster exists but the
            server binaries to ask it are missing.
    """
    home = home_dir()
    state = load_state(home)
    if state is None or not state.initialized:
        return DevStatus(home=home, initialized=False, running=False)
    return DevStatus(
        home=home,
        initialized=True,
        running=server.is_running(state.data_dir),
        data_dir=state.data_dir,
        log_file=state.log_file,
        port=state.port,
        dsn=dsn_for(state.port),
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
    with locked(home):
        state = load_state(home)
        if state is not None and not state.initialized:
            echo(f"pgflow dev: data directory {state.data_dir} is gone; creating a new one")
            state = None
        if state is None:
            state = server.init_cluster(home, echo)
        if not server.is_running(state.data_dir):
            state = server.start(home, state, echo)
        dsn = dsn_for(state.port)
        ensure_database(dsn, echo)
        return dsn


def ensure_running(echo: Echo = _stderr) -> str:
    """Return the DSN of the dev cluster, starting (or creating) it when needed.

    Same as :func:`up`, without taking the lock when the cluster already runs. The CLI's
    fallback when no DSN is configured (:func:`pgflow.cli.util.command_dsn`).
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
    with locked(home):
        state = load_state(home)
        if state is None or not server.is_running(state.data_dir):
            return False
        server.stop(state.data_dir)
        echo(f"pgflow dev: stopped the cluster in {state.data_dir}")
        return True


def destroy(echo: Echo = _stderr) -> None:
    """Stop the dev cluster and delete its data directory, log and state file.

    Raises:
        DevClusterError: stopping the server failed.
    """
    down(echo)
    home = home_dir()
    with locked(home):
        state = load_state(home)
        if state is not None:
            shutil.rmtree(state.base_dir, ignore_errors=True)
            (home / STATE_FILE).unlink(missing_ok=True)
            echo(f"pgflow dev: deleted {state.base_dir}")


def psql_command(dsn: str, args: tuple[str, ...] = ()) -> list[str]:
    """Return the argv that runs psql on ``dsn`` with extra ``args``.

    Raises:
        DevClusterError: no psql binary was found.
    """
    try:
        candidate: Path | None = Path(server.pg_config("--bindir")) / "psql"
    except DevClusterError:
        candidate = None
    psql = str(candidate) if candidate and candidate.exists() else shutil.which("psql")
    if psql is None:
        raise DevClusterError("psql not found (install the PostgreSQL client)")
    return [psql, dsn, *args]
