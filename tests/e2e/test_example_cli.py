"""The stdlib-analysis example end to end through the CLI: a `pgflow-worker` subprocess
and `pgflow start ... --wait`, on small real directories; the report is checked against a
direct computation.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def console_script(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"console script {name} not installed (pip install -e .)")
    return found


@pytest.fixture
def env():
    clean = {
        k: v for k, v in os.environ.items() if k not in ("PGFLOW_DATABASE_URL", "DATABASE_URL")
    }
    clean["PGFLOW_DEV_CLUSTER"] = "off"
    return clean


@pytest.fixture
def worker(pgflow_dsn, env, tmp_path):
    log_path = tmp_path / "worker.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                console_script("pgflow-worker"),
                "examples.stdlib_analysis:flow",
                "--dsn",
                pgflow_dsn,
                "--max-concurrency",
                "4",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    wait_for_flow(pgflow_dsn, process, log_path)
    yield process
    process.send_signal(signal.SIGTERM)
    try:
        assert process.wait(timeout=30) == 0, log_path.read_text()[-3000:]
    except subprocess.TimeoutExpired:
        process.kill()
        raise


def wait_for_flow(dsn: str, process: subprocess.Popen, log_path: Path) -> None:
    """Wait until the worker has compiled the flow into the database."""
    deadline = time.monotonic() + 30
    with psycopg.connect(dsn, autocommit=True) as conn:
        while not conn.execute(
            "select 1 from pgflow.flows where flow_slug = 'stdlib_analysis'"
        ).fetchone():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"worker did not compile the flow:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.05)


def start_and_wait(dsn: str, env: dict[str, str], run_input: dict) -> dict:
    result = subprocess.run(
        [
            console_script("pgflow"),
            "start",
            "stdlib_analysis",
            "--input",
            json.dumps(run_input),
            "--wait",
            "--timeout",
            "120",
            "--dsn",
            dsn,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["report"]


def direct_totals(root: Path) -> dict[str, int]:
    """Count what the report totals count, independently of the example's code."""
    files = [p for p in root.rglob("*.py") if "site-packages" not in p.parts]
    totals = {"files": len(files), "lines": 0, "functions": 0, "classes": 0, "parse_errors": 0}
    for path in files:
        source = path.read_bytes()
        totals["lines"] += len(source.splitlines())
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            totals["parse_errors"] += 1
            continue
        nodes = list(ast.walk(tree))
        totals["functions"] += sum(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in nodes
        )
        totals["classes"] += sum(isinstance(n, ast.ClassDef) for n in nodes)
    return totals


@pytest.fixture
def project(tmp_path) -> Path:
    """A small tree: a package with relative imports, a broken file, a skipped dir."""
    root = tmp_path / "project"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "site-packages").mkdir()
    files = {
        "main.py": "import os\nimport sys\nfrom pkg import tools\n\n\ndef main():\n    pass\n",
        "pkg/__init__.py": "from . import tools\n",
        "pkg/tools.py": (
            "import os\nfrom .sub import deep\n\n\nclass Tool:\n"
            "    def run(self):\n        async def inner():\n            pass\n"
        ),
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": "from .. import tools\nimport os.path\n",
        "broken.py": "def oops(:\n    pass\n",
        "site-packages/ignored.py": "import ignored\n",
        "notes.txt": "not python\n",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_example_reports_a_small_tree_through_the_cli(pgflow_dsn, env, worker, project):
    report = start_and_wait(pgflow_dsn, env, {"root": str(project)})

    assert report["totals"] == {
        **direct_totals(project),
        "parsed": 5,
        "distinct_imports": 5,
    }
    assert report["totals"]["files"] == 6
    assert report["totals"]["functions"] == 3
    assert report["totals"]["classes"] == 1
    assert report["largest_modules"][0] == {"module": "pkg.tools", "lines": 8}
    # pkg: main (from pkg import tools), pkg/__init__ (from . import tools),
    # pkg/sub/deep (from .. import tools); pkg.sub: pkg/tools (from .sub import deep)
    assert report["most_imported"] == [
        {"module": "pkg", "files": 3},
        {"module": "os", "files": 2},
        {"module": "os.path", "files": 1},
        {"module": "pkg.sub", "files": 1},
        {"module": "sys", "files": 1},
    ]
    assert [e["path"] for e in report["parse_errors"]] == ["broken.py"]
    assert report["parse_errors"][0]["error"].startswith("SyntaxError")


def test_example_matches_a_direct_count_of_a_stdlib_package(pgflow_dsn, env, worker):
    json_dir = Path(sysconfig.get_paths()["stdlib"]) / "json"

    report = start_and_wait(pgflow_dsn, env, {"root": str(json_dir)})

    direct = direct_totals(json_dir)
    assert {k: report["totals"][k] for k in direct} == direct
    assert report["totals"]["parse_errors"] == 0
    biggest = max(json_dir.rglob("*.py"), key=lambda p: len(p.read_bytes().splitlines()))
    assert report["largest_modules"][0]["lines"] == len(biggest.read_bytes().splitlines())
