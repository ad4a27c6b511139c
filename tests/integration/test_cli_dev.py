"""`pgflow dev ...` and the dev-cluster DSN fallback: a real embedded cluster (pgflow.dev)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from pgflow import AsyncClient, Client, DevClusterNotRunning, __version__, dev
from pgflow.cli.main import main


@pytest.fixture
def dev_home(tmp_path, monkeypatch):
    """A private PGFLOW_HOME; whatever cluster a test leaves there is destroyed after it."""
    home = tmp_path / "pgflow-home"
    monkeypatch.setenv("PGFLOW_HOME", str(home))
    for name in ("PGFLOW_DATABASE_URL", "DATABASE_URL", "PGFLOW_DEV_CLUSTER"):
        monkeypatch.delenv(name, raising=False)
    yield home
    dev.destroy(echo=lambda line: None)


@pytest.mark.slow
def test_dev_cluster_up_status_dsn_down_through_the_cli(dev_home):
    runner = CliRunner()

    up = runner.invoke(main, ["dev", "up"])
    assert up.exit_code == 0, up.output
    dsn = up.stdout.strip()
    assert dsn.startswith("postgresql://postgres@127.0.0.1:")
    assert dsn.endswith("/pgflow")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select pgflow.version()").fetchone() == (__version__,)
        assert conn.execute("show shared_preload_libraries").fetchone() == ("pg_cron",)
        assert conn.execute("select extname from pg_extension where extname = 'pg_cron'")

    again = runner.invoke(main, ["dev", "up"])
    status = runner.invoke(main, ["dev", "status"])
    printed = runner.invoke(main, ["dev", "dsn"])
    # No DSN configured: commands fall back to the running dev cluster.
    runs = runner.invoke(main, ["runs"])
    assert (again.exit_code, again.stdout.strip()) == (0, dsn)
    assert "created" not in again.stderr  # nothing to do the second time
    assert status.exit_code == 0
    assert status.stdout.startswith("running")
    assert printed.stdout.strip() == dsn
    assert runs.exit_code == 0, runs.output
    assert "no runs" in runs.stderr
    # Library code without a DSN uses the running cluster too.
    with Client() as client:
        assert client.list_runs() == []

    down = runner.invoke(main, ["dev", "down"])
    stopped = runner.invoke(main, ["dev", "status"])
    down_again = runner.invoke(main, ["dev", "down"])
    assert down.exit_code == 0, down.output
    assert stopped.exit_code == 3
    assert stopped.stdout.startswith("stopped")
    assert "not running" in down_again.stderr
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn, connect_timeout=2)
    # Stopped, library code says how to start it, and does not start it itself.
    with pytest.raises(DevClusterNotRunning, match="pgflow dev up"):
        Client()
    with pytest.raises(DevClusterNotRunning, match="it is stopped"):
        AsyncClient()
    assert runner.invoke(main, ["dev", "status"]).exit_code == 3

    destroyed = runner.invoke(main, ["dev", "destroy", "--yes"])
    assert destroyed.exit_code == 0, destroyed.output
    assert runner.invoke(main, ["dev", "status"]).exit_code == 3
    assert not (dev_home / dev.STATE_FILE).exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the data-directory fallback is for root")
def test_dev_cluster_data_goes_to_tmp_when_postgres_cannot_reach_home(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    (private / "home").mkdir()

    base = dev.choose_base_dir(private / "home")

    try:
        assert base.parent == Path(tempfile.gettempdir())
        assert base.name.startswith("pgflow-dev-")
        assert base.owner() == dev.ROOT_SERVER_USER
        assert not (private / "home" / "postgres").exists()
    finally:
        base.rmdir()


@pytest.mark.skipif(os.geteuid() != 0, reason="the data-directory fallback is for root")
def test_dev_cluster_data_stays_in_home_when_postgres_can_reach_it():
    with tempfile.TemporaryDirectory() as reachable:
        Path(reachable).chmod(0o755)
        home = Path(reachable) / "home"
        home.mkdir()

        base = dev.choose_base_dir(home)

        assert base == home / "postgres"
        assert base.owner() == dev.ROOT_SERVER_USER
