"""extension/build.py: the built scripts are up to date and made of every source."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pgflow

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "extension" / "build.py"
BUILT = [
    ROOT / "extension" / f"pgflow--{pgflow.__version__}.sql",
    ROOT / "python_worker" / "pgflow" / "sql" / f"pgflow--{pgflow.__version__}.sql",
]


def test_built_files_are_up_to_date():
    result = subprocess.run(
        [sys.executable, str(BUILD), "--check"], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, f"run `make build`: {result.stderr}"


def test_built_file_contains_every_source_in_order():
    text = BUILT[0].read_text()
    sources = sorted((ROOT / "extension" / "sql").glob("*.sql"))

    assert sources, "no SQL sources found"
    position = 0
    for source in sources:
        body = source.read_text().replace("@PGFLOW_VERSION@", pgflow.__version__)
        found = text.find(body, position)
        assert found >= 0, f"{source.name} is missing from {BUILT[0].name} (or out of order)"
        position = found + len(body)


def test_both_built_copies_are_identical():
    assert BUILT[0].read_text() == BUILT[1].read_text()


def test_built_file_has_no_unreplaced_placeholders():
    assert "@PGFLOW_VERSION@" not in BUILT[0].read_text()


def test_versions_agree():
    control = (ROOT / "extension" / "pgflow.control").read_text()
    control_version = re.search(r"^default_version\s*=\s*'([^']+)'", control, re.M).group(1)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert pgflow.__version__ == control_version == project["version"]
