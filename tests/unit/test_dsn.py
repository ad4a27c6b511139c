"""pgflow.dsn (library code): the dev cluster is used only while it runs, never started."""

from __future__ import annotations

from pathlib import Path

import pytest

from pgflow import AsyncClient, Client, dev
from pgflow.dsn import resolve_dsn
from pgflow.errors import DevClusterError, DevClusterNotRunning, NoDatabaseConfigured

RUNNING_DSN = "postgresql://postgres@127.0.0.1:1/pgflow"


@pytest.fixture
def no_dsn_env(tmp_path, monkeypatch):
    """No DSN configured, the dev cluster enabled, an empty PGFLOW_HOME; starting fails."""
    for name in ("PGFLOW_DATABASE_URL", "DATABASE_URL", "PGFLOW_DEV_CLUSTER"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("PGFLOW_HOME", str(home))

    def must_not_start(*args, **kwargs):
        raise AssertionError("library code started the dev cluster")

    monkeypatch.setattr(dev, "up", must_not_start)
    monkeypatch.setattr(dev, "ensure_running", must_not_start)
    return home


def fake_status(monkeypatch, home: Path, *, initialized: bool, running: bool) -> None:
    status = dev.DevStatus(
        home=home,
        initialized=initialized,
        running=running,
        port=1 if initialized else None,
        dsn=RUNNING_DSN if initialized else None,
    )
    monkeypatch.setattr(dev, "status", lambda: status)


def test_a_configured_dsn_comes_first(no_dsn_env, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "dbname=generic")

    assert resolve_dsn("dbname=given") == "dbname=given"
    assert resolve_dsn(None) == "dbname=generic"


def test_a_running_dev_cluster_is_used(no_dsn_env, monkeypatch):
    fake_status(monkeypatch, no_dsn_env, initialized=True, running=True)

    assert resolve_dsn(None) == RUNNING_DSN
    assert resolve_dsn("") == RUNNING_DSN


def test_a_missing_dev_cluster_is_not_created(no_dsn_env):
    with pytest.raises(DevClusterNotRunning, match=r"`pgflow dev up`.*not created") as caught:
        resolve_dsn(None)

    assert "pass a DSN" in str(caught.value)
    assert isinstance(caught.value, NoDatabaseConfigured)
    assert not no_dsn_env.exists(), "asking wrote into PGFLOW_HOME"


def test_a_stopped_dev_cluster_is_not_started(no_dsn_env, monkeypatch):
    fake_status(monkeypatch, no_dsn_env, initialized=True, running=False)

    with pytest.raises(DevClusterNotRunning, match=r"`pgflow dev up` \(it is stopped"):
        resolve_dsn(None)


def test_with_the_dev_cluster_off_it_is_not_asked(no_dsn_env, monkeypatch):
    monkeypatch.setenv("PGFLOW_DEV_CLUSTER", "off")

    def must_not_ask():
        raise AssertionError("status asked with the dev cluster off")

    monkeypatch.setattr(dev, "status", must_not_ask)

    with pytest.raises(NoDatabaseConfigured, match="PGFLOW_DEV_CLUSTER") as caught:
        resolve_dsn(None)
    assert not isinstance(caught.value, DevClusterNotRunning)


def test_a_dev_cluster_that_cannot_be_asked_is_no_database(no_dsn_env, monkeypatch):
    def broken():
        raise DevClusterError("pg_config not found")

    monkeypatch.setattr(dev, "status", broken)

    with pytest.raises(NoDatabaseConfigured, match="pg_config not found"):
        resolve_dsn(None)


def test_clients_without_a_dsn_need_a_running_dev_cluster(no_dsn_env):
    with pytest.raises(DevClusterNotRunning, match="pgflow dev up"):
        Client()
    with pytest.raises(DevClusterNotRunning, match="pgflow dev up"):
        AsyncClient()


def test_clients_without_a_dsn_use_the_running_dev_cluster(no_dsn_env, monkeypatch):
    fake_status(monkeypatch, no_dsn_env, initialized=True, running=True)

    assert Client()._dsn == RUNNING_DSN
    assert AsyncClient()._dsn == RUNNING_DSN
