"""The pgflow.testing plugin as a user meets it: its own cluster, and a fresh project.

- In a pytest of its own (pytester, no PGFLOW_TEST_DSN), the plugin starts a throwaway
  cluster, gives each test a fresh database from its template, and stops and deletes the
  cluster at the end.
- A new project (a temporary folder with its own venv, the wheel built from this checkout
  installed with its ``testing`` extra from the package index, one flow, one test file
  using only the documented fixtures) passes ``pytest``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest

from tests.unit.test_packaging import fresh_clone, pip_wheel

__all__ = ["fresh_clone"]  # a fixture, used by name below

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TWO_TESTS = """
from pathlib import Path

def test_one(pgflow_db, pgflow_dsn):
    Path("dsn.txt").write_text(pgflow_dsn)
    assert pgflow_db.execute("select pgflow.version()").fetchone()[0]
    pgflow_db.execute("create table public.left_behind (x int)")

def test_two(pgflow_db):
    assert pgflow_db.execute("select to_regclass('public.left_behind')").fetchone() == (None,)
"""


def test_the_plugin_runs_its_own_cluster_with_a_database_per_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGFLOW_TEST_DSN", raising=False)
    pytester.makepyfile(test_two=TWO_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "error")
    result.assert_outcomes(passed=2)
    dsn = (pytester.path / "dsn.txt").read_text()
    with pytest.raises(psycopg.OperationalError):  # the session's cluster is gone
        psycopg.connect(dsn, connect_timeout=3).close()


FLOW = """
from pgflow import Flow

flow = Flow("greet", base_delay=30)

@flow.array()
def names(input):
    return input["names"]

@flow.map(array="names")
def greet(name):
    return f"Hello, {name}!"
"""

TEST = """
from datetime import timedelta

from flows import flow

def test_greets_everyone(run_flow):
    run = run_flow(flow, {"names": ["Ada", "Bob"]})
    assert run.status == "completed"
    assert run.step("greet").output == ["Hello, Ada!", "Hello, Bob!"]

def test_a_retry_waits_its_backoff(run_flow, pgflow_clock):
    def flaky(name, ctx):
        if ctx.attempt == 1:
            raise TimeoutError("slow network")
        return name
    before = pgflow_clock.now()
    run = run_flow(flow, {"names": ["Ada"]}, overrides={"greet": flaky})
    assert run.step("greet").attempts == 2
    assert pgflow_clock.now() - before >= timedelta(seconds=60)

def test_the_client_starts_runs(pgflow_client, pgflow_db):
    pgflow_db.execute("select pgflow.create_flow('other')")
    pgflow_db.execute("select pgflow.add_step('other', 'only')")
    started = pgflow_client.start_flow("other", {})
    assert started.run_id
"""


def test_a_fresh_project_with_the_wheel_passes_its_tests(
    fresh_clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = pip_wheel(fresh_clone, tmp_path / "dist")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(project / ".venv")], check=True)
    python = str(project / ".venv" / "bin" / "python")
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[testing]"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    (project / "flows.py").write_text(textwrap.dedent(FLOW))
    (project / "test_flows.py").write_text(textwrap.dedent(TEST))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PGFLOW_TEST_DSN", "VIRTUAL_ENV", "PYTHONPATH"}
    }
    result = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout
