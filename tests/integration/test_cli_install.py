"""`pgflow install` against a real database."""

from __future__ import annotations

import psycopg
from click.testing import CliRunner
from psycopg.conninfo import make_conninfo

from pgflow.cli.main import main


def test_cli_installs_from_environment_dsn(pg_admin_dsn, monkeypatch):
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute("create database pgflow_cli_env template template0")
    try:
        monkeypatch.delenv("DATABASE_URL", raising=False)
        dsn = make_conninfo(pg_admin_dsn, dbname="pgflow_cli_env")
        monkeypatch.setenv("PGFLOW_DATABASE_URL", dsn)

        first = CliRunner().invoke(main, ["install", "--method", "sql"])
        second = CliRunner().invoke(main, ["install"])

        assert first.exit_code == 0, first.output
        assert "installed as plain SQL" in first.output
        assert second.exit_code == 0, second.output
        assert second.output.count("already installed") == 2
    finally:
        with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
            conn.execute("drop database if exists pgflow_cli_env with (force)")
