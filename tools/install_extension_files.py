"""Write the pgmq and pgflow extension files into the server's extension directory.

Usage: ``python tools/install_extension_files.py [--pg-config PATH]``

- pgmq: PostgreSQL has no Debian package for it; its SQL ships in the PyPI ``pgmq``
  package (``pgmq/sql/pgmq.sql``). We write ``pgmq.control`` and ``pgmq--<v>.sql``.
- pgflow: ``extension/pgflow.control`` and every script the package ships (the released
  ones, the current one and the upgrades into it, as ``extension/build.py`` makes them).
Both scripts get the usual guard line so that running them through psql fails loudly.
Needs write access to ``$(pg_config --sharedir)/extension`` (root on a dev machine).
"""

from __future__ import annotations

import argparse
import importlib.resources
import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def extension_dir(pg_config: str) -> Path:
    out = subprocess.run([pg_config, "--sharedir"], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip()) / "extension"


def guard(name: str) -> str:
    return f'\\echo Use "CREATE EXTENSION {name}" to load this file. \\quit\n'


def write_pgmq(target: Path) -> str:
    sql_dir = importlib.resources.files("pgmq") / "sql"
    version = (sql_dir / "VERSION").read_text().strip()
    (target / "pgmq.control").write_text(
        "comment = 'A lightweight message queue. Like AWS SQS and RSMQ but on Postgres.'\n"
        f"default_version = '{version}'\n"
        "schema = 'pgmq'\n"
        "relocatable = false\n"
        "superuser = true\n"
    )
    (target / f"pgmq--{version}.sql").write_text(guard("pgmq") + (sql_dir / "pgmq.sql").read_text())
    return version


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgflow_build", ROOT / "extension" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_pgflow(target: Path) -> str:
    build = load_build()
    (target / "pgflow.control").write_text((ROOT / "extension" / "pgflow.control").read_text())
    for name, text in build.scripts().items():
        (target / name).write_text(guard("pgflow") + text)
    return build.version()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-config", default="pg_config")
    args = parser.parse_args()
    target = extension_dir(args.pg_config)
    pgmq_version = write_pgmq(target)
    pgflow_version = write_pgflow(target)
    print(f"installed pgmq {pgmq_version} and pgflow {pgflow_version} into {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
