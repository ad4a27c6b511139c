"""Generate compat/manifest.json: the machine-readable pgflow contract.

Usage: ``python3 compat/generate_manifest.py [--dsn DSN] [--check]``

- Without ``--dsn``: rebuilds the packaged SQL if it is stale (``extension/build.py``),
  starts a throwaway PostgreSQL cluster (as the ``postgres`` OS user when run as root),
  installs pgmq and pgflow into it as plain SQL, reads the catalog and stops the cluster.
- With ``--dsn``: reads a database where pgmq and pgflow are already installed.

The manifest (sorted keys, stable order) is written to ``compat/manifest.json``, the one
committed copy; ``extension/build.py`` (run afterwards) copies it into the package for
``pgflow check-schema`` (``python_worker/pgflow/compat/manifest.json``, git-ignored; wheels
get it from the build). With ``--check`` nothing is written and the exit status is 1 when
``compat/manifest.json`` differs from what would be generated.

Run it after any change to the SQL contract (a new function, a column, a constraint);
tests/integration/test_manifest.py fails until the manifest matches the installed catalog.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

import pgflow
from pgflow.schema.catalog import dump_manifest, run_plan, snapshot

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "compat" / "manifest.json"

#: Upstream release we are compatible with (compat/UPSTREAM.md).
UPSTREAM = {
    "package": "@pgflow/core",
    "version": "0.14.1",
    "commit": "5c132f3cd0c220cb4213fe12ef6ac1799f219a77",
}
#: Oldest pgmq with everything below (message_record.headers arrived in 1.5).
PGMQ_MIN_VERSION = "1.5"
#: Fields of pgmq.message_record the worker reads (pgflow.read_and_start_tasks passes them
#: through; pgflow/worker/queries.py READ_AND_START_TASKS).
PGMQ_MESSAGE_FIELDS = ("msg_id", "read_ct", "enqueued_at", "vt", "message", "headers")
#: pgmq relations the pgflow SQL reads.
PGMQ_RELATIONS = ("meta",)
#: pgmq functions the worker calls but can do without (NOTIFY; it falls back to polling).
PGMQ_OPTIONAL_FUNCTIONS = ("enable_notify_insert",)
#: Where the pgmq functions pgflow calls are found (`pgmq.<name>(`).
PGMQ_CALLERS = ("extension/sql/*.sql", "python_worker/pgflow/worker/*.py")


def pgmq_functions() -> list[str]:
    """Names of the pgmq functions called by the pgflow SQL and the worker (required ones)."""
    names: set[str] = set()
    for pattern in PGMQ_CALLERS:
        for path in ROOT.glob(pattern):
            names.update(re.findall(r"\bpgmq\.([a-z_][a-z0-9_]*)\s*\(", path.read_text()))
    return sorted(names - set(PGMQ_OPTIONAL_FUNCTIONS))


def message_fields_plan() -> Any:
    """Catalog plan returning ``{field: type}`` of pgmq.message_record."""
    rows = yield (
        "select a.attname, format_type(a.atttypid, a.atttypmod) from pg_attribute as a "
        "where a.attrelid = (select t.typrelid from pg_type as t "
        "where t.oid = 'pgmq.message_record'::regtype) "
        "and a.attnum > 0 and not a.attisdropped order by a.attnum",
        (),
    )
    return dict(rows)


def generate(dsn: str) -> dict[str, Any]:
    """Read the contract from the database at ``dsn`` and return the manifest."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("select pgflow.version()").fetchone()
        version = str(row[0]) if row else ""
        fields = run_plan(conn, message_fields_plan())
    if version != pgflow.__version__:
        raise SystemExit(f"database has pgflow {version}, this checkout is {pgflow.__version__}")
    missing = [f for f in PGMQ_MESSAGE_FIELDS if f not in fields]
    if missing:
        raise SystemExit(f"pgmq.message_record lacks {missing}: install a pgmq >= 1.5")
    return {
        "format": 1,
        "generated_by": "compat/generate_manifest.py",
        "pgflow_version": version,
        "upstream": UPSTREAM,
        "pgmq": {
            "min_version": PGMQ_MIN_VERSION,
            "message_record_fields": [{"name": f, "type": fields[f]} for f in PGMQ_MESSAGE_FIELDS],
            "functions": pgmq_functions(),
            "optional_functions": sorted(PGMQ_OPTIONAL_FUNCTIONS),
            "relations": sorted(PGMQ_RELATIONS),
        },
        "contract": snapshot(dsn),
    }


# ---------------------------------------------------------------- throwaway cluster


def _server_tool(bindir: Path, tool: str, *args: str, check: bool = True) -> None:
    """Run a PostgreSQL server program, as the postgres OS user when we are root."""
    cmd = [str(bindir / tool), *args]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    subprocess.run(cmd, cwd="/", check=check, stdout=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a private cluster; yield the DSN of its postgres database; delete it on exit."""
    out = subprocess.run(["pg_config", "--bindir"], check=True, capture_output=True, text=True)
    bindir = Path(out.stdout.strip())
    base = Path(tempfile.mkdtemp(prefix="pgflow-manifest."))
    base.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
    data, port = base / "data", _free_port()
    try:
        _server_tool(bindir, "initdb", "-D", str(data), "-U", "postgres", "--auth=trust")
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{base}'\nfsync = off\n"
            )
        _server_tool(bindir, "pg_ctl", "-D", str(data), "-l", str(base / "log"), "-w", "start")
        yield make_conninfo(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    finally:
        _server_tool(bindir, "pg_ctl", "-D", str(data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(base, ignore_errors=True)


def _ensure_built() -> None:
    build = [sys.executable, str(ROOT / "extension" / "build.py")]
    if subprocess.run([*build, "--check"], capture_output=True, check=False).returncode:
        subprocess.run(build, check=True)


def main(argv: list[str] | None = None) -> int:
    """Generate (or with --check compare) the manifest files; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", help="database with pgmq and pgflow installed")
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)

    if args.dsn:
        manifest = generate(args.dsn)
    else:
        _ensure_built()
        with throwaway_cluster() as dsn:
            pgflow.install(dsn, method="sql")
            manifest = generate(dsn)
    text = dump_manifest(manifest)

    stale = not TARGET.exists() or TARGET.read_text() != text
    if args.check:
        if stale:
            print(
                "out of date: compat/manifest.json (run python3 compat/generate_manifest.py)",
                file=sys.stderr,
            )
        return 1 if stale else 0
    TARGET.write_text(text)
    _ensure_built()  # the package's copy
    print(
        f"wrote compat/manifest.json "
        f"(pgflow {manifest['pgflow_version']}, {len(manifest['contract']['functions'])} "
        f"functions, {len(manifest['contract']['tables'])} tables)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
