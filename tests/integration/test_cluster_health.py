"""A test cluster that dies mid-run stops the suite at once, with the end of its server log.

The proof runs an inner pytest session with the fixtures of this suite (tests/conftest.py)
and a cluster of its own: one test uses the cluster, the next kills its postmaster, two more
would use it. The inner session must stop right after the kill, quoting the server log, and
never reach the last two tests. It runs under a generous subprocess timeout, so a hang fails
this test instead of stalling the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cluster_health import ClusterDied, check_running, log_tail, postmaster_pid

ROOT = Path(__file__).resolve().parents[2]

INNER_CONFTEST = """\
from tests.conftest import *  # noqa: F403 - the fixtures and hooks of the real suite
from tests.conftest import _cluster_alive, _no_dev_cluster  # noqa: F401
"""

INNER_TESTS = """\
import os
import signal
import time

from tests.cluster_health import postmaster_pid


def test_1_uses_the_cluster(pgflow_conn):
    assert pgflow_conn.execute("select 1").fetchone() == (1,)


def test_2_kills_it(pgflow_cluster):
    os.kill(postmaster_pid(pgflow_cluster.datadir), signal.SIGQUIT)
    for _ in range(600):  # until the postmaster is gone, at most about a minute
        if postmaster_pid(pgflow_cluster.datadir) is None:
            return
        time.sleep(0.1)
    raise AssertionError("the postmaster outlived SIGQUIT")


def test_3_would_use_it(pgflow_dsn):
    print("test 3 ran")


def test_4_would_use_it(pgflow_conn):
    print("test 4 ran")
"""


@pytest.mark.slow
def test_a_dead_cluster_stops_the_suite_with_its_log(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-v",
            "-rA",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tmp_path / 'inner'}",
            "test_inner.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = result.stdout + result.stderr

    assert result.returncode == 1, out
    assert "test_inner.py::test_1_uses_the_cluster PASSED" in out, out
    assert "test_inner.py::test_2_kills_it PASSED" in out, out
    assert "test_inner.py::test_2_kills_it ERROR" in out, out
    assert "the test cluster is not running any more" in out, out
    assert "the last lines of its server log" in out, out
    assert "received immediate shutdown request" in out, "the server log's own words"
    assert "the test cluster died" in out, "the session says why it stopped"
    assert "test_3" not in out and "test_4" not in out, "the suite stopped at once"


def test_a_stale_pid_file_is_no_running_postmaster(tmp_path: Path) -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    (tmp_path / "postmaster.pid").write_text(f"{child.pid}\n{tmp_path}\n")
    (tmp_path / "server.log").write_text("first\nLOG:  ready\nPANIC:  could not open file\n")

    assert postmaster_pid(tmp_path) is None
    with pytest.raises(ClusterDied, match=r"(?s)server log .*PANIC:  could not open file"):
        check_running(tmp_path, tmp_path / "server.log")


def test_a_running_process_counts_as_the_postmaster(tmp_path: Path) -> None:
    (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n")

    assert postmaster_pid(tmp_path) == os.getpid()
    check_running(tmp_path, tmp_path / "missing.log")


def test_without_a_pid_file_or_a_log_the_message_says_so(tmp_path: Path) -> None:
    assert postmaster_pid(tmp_path) is None
    assert log_tail(tmp_path / "missing.log").startswith("(no server log:")
    with pytest.raises(ClusterDied, match="no server log"):
        check_running(tmp_path, tmp_path / "missing.log")


def test_the_cluster_does_not_carry_mirakurus_kill_marker(pgflow_cluster) -> None:
    # mirakuru (pytest-postgresql's process library) SIGKILLs, when any process that loaded it
    # exits, every process whose mirakuru_uuid contains that process's pid as text: another
    # pytest run on the machine could kill our server (tools/pg_ctl_as_postgres.sh).
    pid = postmaster_pid(pgflow_cluster.datadir)
    assert pid is not None
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")

    assert any(entry.startswith(b"PATH=") for entry in environ), "the environment is readable"
    assert not [entry for entry in environ if entry.startswith(b"mirakuru_uuid=")]
