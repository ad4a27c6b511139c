"""The dev cluster's PostgreSQL server: initdb, pg_ctl, ports, and running as root.

PostgreSQL refuses to run as root. As root, every server tool runs as the ``postgres`` OS
user (via ``runuser``), which must be able to reach the data directory; when it cannot (a
project under ``/root``), the data goes to ``$TMPDIR/pgflow-dev-<hash of the home path>/``.
No ancestor directory's permissions are changed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from pgflow.dev.state import ClusterState, save_state
from pgflow.errors import DevClusterError

#: Database created in the cluster; also ``cron.database_name``.
DBNAME = "pgflow"
#: Superuser role created by initdb (trust authentication on 127.0.0.1).
ROLE = "postgres"
#: OS user that runs the server when pgflow runs as root.
ROOT_SERVER_USER = "postgres"
#: Seconds ``pg_ctl start`` may wait for the server to accept connections.
START_TIMEOUT_SECONDS = 60

#: Receives one line per action taken (``pgflow dev`` prints them to stderr).
Echo = Callable[[str], None]


def init_cluster(home: Path, echo: Echo) -> ClusterState:
    """Run initdb in a location the server user can reach; record and return the state.

    The server listens on 127.0.0.1 only (no Unix socket), with ``synchronous_commit =
    off``, and preloads pg_cron (``cron.database_name = pgflow``) when the server has it.

    Raises:
        DevClusterError: the server binaries are missing or initdb failed.
    """
    base = choose_base_dir(home)
    data_dir = base / "data"
    if data_dir.exists():  # leftovers of a failed initdb
        shutil.rmtree(data_dir)
    echo(f"pgflow dev: creating a PostgreSQL cluster in {data_dir}")
    run_server_tool(
        [
            str(bindir() / "initdb"),
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
    if (Path(pg_config("--pkglibdir")) / "pg_cron.so").exists():
        settings["shared_preload_libraries"] = "pg_cron"
        settings["cron.database_name"] = DBNAME
    else:
        echo("pgflow dev: pg_cron is not installed on this server; cron features are off")
    lines = "".join(f"{name} = '{value}'\n" for name, value in settings.items())
    with (data_dir / "postgresql.conf").open("a") as conf:
        conf.write(f"\n# pgflow dev cluster (pgflow.dev)\n{lines}")
    state = ClusterState(
        base_dir=base, data_dir=data_dir, log_file=base / "server.log", port=free_port()
    )
    save_state(home, state)
    return state


def choose_base_dir(home: Path) -> Path:
    """Return a directory the server user owns and can reach, for data and log."""
    local = home / "postgres"
    local.mkdir(mode=0o700, exist_ok=True)
    if not running_as_root():
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


def start(home: Path, state: ClusterState, echo: Echo) -> ClusterState:
    """Start the server, on a new free port if the recorded one is taken.

    Returns:
        The state, with the port the server listens on (recorded if it changed).

    Raises:
        DevClusterError: the server did not start (the message quotes its log).
    """
    if not port_is_free(state.port):
        state = state.with_port(free_port())
        save_state(home, state)
    log_file = state.log_file
    if running_as_root() and not log_file.exists():
        log_file.touch()
        shutil.chown(log_file, ROOT_SERVER_USER, ROOT_SERVER_USER)
    argv = ["start", "-D", str(state.data_dir), "-l", str(log_file), "-w"]
    timeout = ["-t", str(START_TIMEOUT_SECONDS)]
    try:
        pg_ctl([*argv, "-o", f"-p {state.port}", *timeout], what="start", log_file=log_file)
    except DevClusterError:
        if port_is_free(state.port):
            raise
        # Another process took the port between our check and the server's bind.
        state = state.with_port(free_port())
        save_state(home, state)
        pg_ctl([*argv, "-o", f"-p {state.port}", *timeout], what="start", log_file=log_file)
    echo(f"pgflow dev: started PostgreSQL on 127.0.0.1:{state.port} (log {log_file})")
    return state


def stop(data_dir: Path) -> None:
    """Stop the server (fast shutdown: open sessions are disconnected).

    Raises:
        DevClusterError: ``pg_ctl stop`` failed.
    """
    pg_ctl(["stop", "-D", str(data_dir), "-m", "fast", "-w"], what="stop")


def is_running(data_dir: Path) -> bool:
    """True when ``pg_ctl status`` finds a server running on ``data_dir``.

    Raises:
        DevClusterError: the server binaries are missing.
    """
    argv = [str(bindir() / "pg_ctl"), "status", "-D", str(data_dir)]
    if running_as_root():
        argv = ["runuser", "-u", ROOT_SERVER_USER, "--", *argv]
    result = subprocess.run(argv, cwd="/", capture_output=True, check=False)
    return result.returncode == 0


# ---------------------------------------------------------------- processes and ports


def running_as_root() -> bool:
    """True when this process runs as root (the server then runs as ``postgres``)."""
    return os.geteuid() == 0


def run_server_tool(
    argv: list[str], *, what: str, log_file: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL server tool, as the postgres OS user when we are root.

    Raises:
        DevClusterError: the tool is missing or exited non-zero (the message holds its
            output and the last lines of ``log_file``).
    """
    if running_as_root():
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


def pg_ctl(
    args: list[str], *, what: str, log_file: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``pg_ctl`` with ``args`` (see :func:`run_server_tool`)."""
    return run_server_tool([str(bindir() / "pg_ctl"), *args], what=what, log_file=log_file)


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    """True when ``port`` on 127.0.0.1 can be bound (TIME_WAIT connections allowed)."""
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


def pg_config(option: str) -> str:
    """Return ``pg_config <option>``.

    Raises:
        DevClusterError: pg_config is not installed.
    """
    try:
        result = subprocess.run(["pg_config", option], capture_output=True, text=True, check=True)
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        raise DevClusterError(
            "pg_config not found: the embedded dev cluster needs the PostgreSQL server "
            "installed (Debian: apt-get install postgresql)"
        ) from exc
    return result.stdout.strip()


def bindir() -> Path:
    """Return the server's binary directory.

    Raises:
        DevClusterError: pg_config or initdb is missing (only the client is installed).
    """
    path = Path(pg_config("--bindir"))
    if not (path / "initdb").exists():
        raise DevClusterError(
            f"initdb not found in {path}: the embedded dev cluster needs the PostgreSQL "
            "server binaries, not only the client"
        )
    return path
