"""pgflow.cli: DSN resolution and the install command's error handling (no database)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pgflow.cli import main, resolve_dsn
from pgflow.errors import NoDatabaseConfigured


@pytest.fixture
def no_dsn_env(monkeypatch):
    monkeypatch.delenv("PGFLOW_DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)


def test_explicit_dsn_wins(no_dsn_env, monkeypatch):
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "dbname=env")

    assert resolve_dsn("dbname=flag") == "dbname=flag"


def test_pgflow_database_url_comes_before_database_url(no_dsn_env, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "dbname=generic")
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "dbname=pgflow")

    assert resolve_dsn(None) == "dbname=pgflow"


def test_database_url_is_the_last_resort(no_dsn_env, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "dbname=generic")

    assert resolve_dsn(None) == "dbname=generic"


def test_no_dsn_anywhere_is_an_error(no_dsn_env):
    with pytest.raises(NoDatabaseConfigured):
        resolve_dsn(None)


def test_install_without_dsn_exits_nonzero_with_a_hint(no_dsn_env):
    result = CliRunner().invoke(main, ["install"])

    assert result.exit_code == 1
    assert "--dsn" in result.output


def test_install_rejects_unknown_method():
    result = CliRunner().invoke(main, ["install", "--dsn", "dbname=x", "--method", "copy"])

    assert result.exit_code == 2
    assert "copy" in result.output


def test_install_reports_connection_failure_cleanly(no_dsn_env):
    dsn = "host=127.0.0.1 port=1 dbname=nothing connect_timeout=2"

    result = CliRunner().invoke(main, ["install", "--dsn", dsn])

    assert result.exit_code == 1
    assert "Error:" in result.output
