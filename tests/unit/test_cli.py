"""pgflow.cli without a database: the commands' DSN resolution order, argument handling."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pgflow import dev
from pgflow.cli.main import _duration, main
from pgflow.cli.util import command_dsn
from pgflow.cli.util import table as _table
from pgflow.errors import DevClusterError, NoDatabaseConfigured


@pytest.fixture
def no_dsn_env(monkeypatch):
    monkeypatch.delenv("PGFLOW_DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("PGFLOW_DEV_CLUSTER", "off")


@pytest.fixture
def fake_dev_cluster(no_dsn_env, monkeypatch):
    """Turn the dev-cluster fallback on, with a fake that records calls."""
    calls = []

    def ensure_running(echo=None):
        calls.append("ensure_running")
        return "postgresql://postgres@127.0.0.1:1/pgflow"

    monkeypatch.delenv("PGFLOW_DEV_CLUSTER")
    monkeypatch.setattr(dev, "ensure_running", ensure_running)
    return calls


# ---------------------------------------------------------------- DSN resolution order (commands)


def test_explicit_dsn_wins(no_dsn_env, monkeypatch):
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "dbname=env")

    assert command_dsn("dbname=flag") == "dbname=flag"


def test_pgflow_database_url_comes_before_database_url(no_dsn_env, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "dbname=generic")
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "dbname=pgflow")

    assert command_dsn(None) == "dbname=pgflow"


def test_database_url_comes_before_the_dev_cluster(fake_dev_cluster, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "dbname=generic")

    assert command_dsn(None) == "dbname=generic"
    assert fake_dev_cluster == []


def test_dev_cluster_is_the_last_resort(fake_dev_cluster):
    assert command_dsn("") == "postgresql://postgres@127.0.0.1:1/pgflow"
    assert fake_dev_cluster == ["ensure_running"]


def test_empty_environment_values_count_as_unset(fake_dev_cluster, monkeypatch):
    monkeypatch.setenv("PGFLOW_DATABASE_URL", "")
    monkeypatch.setenv("DATABASE_URL", "")

    assert command_dsn(None).endswith("/pgflow")
    assert fake_dev_cluster == ["ensure_running"]


def test_no_dsn_with_dev_cluster_off_is_an_error(no_dsn_env):
    with pytest.raises(NoDatabaseConfigured, match="PGFLOW_DEV_CLUSTER"):
        command_dsn(None)


def test_dev_cluster_failure_becomes_no_database_configured(no_dsn_env, monkeypatch):
    def broken(echo=None):
        raise DevClusterError("initdb not found")

    monkeypatch.delenv("PGFLOW_DEV_CLUSTER")
    monkeypatch.setattr(dev, "ensure_running", broken)

    with pytest.raises(NoDatabaseConfigured, match="initdb not found"):
        command_dsn(None)


# ---------------------------------------------------------------- install


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


# ---------------------------------------------------------------- runs commands


def test_start_rejects_input_that_is_not_json():
    result = CliRunner().invoke(main, ["start", "f", "--input", "{oops", "--dsn", "dbname=x"])

    assert result.exit_code == 2
    assert "not JSON" in result.output


def test_start_reports_an_unreadable_input_file(tmp_path):
    missing = tmp_path / "nope.json"

    result = CliRunner().invoke(main, ["start", "f", "--input", f"@{missing}", "--dsn", "x=y"])

    assert result.exit_code == 2
    assert "cannot read" in result.output


def test_start_without_database_is_a_clean_error(no_dsn_env):
    result = CliRunner().invoke(main, ["start", "f", "--input", "{}"])

    assert result.exit_code == 1
    assert "no database given" in result.output


def test_runs_rejects_an_unknown_status():
    result = CliRunner().invoke(main, ["runs", "--status", "done", "--dsn", "dbname=x"])

    assert result.exit_code == 2


def test_runs_rejects_a_zero_limit():
    result = CliRunner().invoke(main, ["runs", "--limit", "0", "--dsn", "dbname=x"])

    assert result.exit_code == 2


# ---------------------------------------------------------------- dev commands


def test_dev_status_of_a_missing_cluster_exits_3(tmp_path, monkeypatch):
    monkeypatch.setenv("PGFLOW_HOME", str(tmp_path / "home"))

    result = CliRunner().invoke(main, ["dev", "status"])

    assert result.exit_code == 3
    assert "not created" in result.output


def test_dev_psql_execs_psql_on_the_cluster_dsn(monkeypatch):
    execs = []
    monkeypatch.setattr(dev, "ensure_running", lambda: "postgresql://h/pgflow")
    monkeypatch.setattr("os.execv", lambda path, argv: execs.append(argv))

    result = CliRunner().invoke(main, ["dev", "psql", "-c", "select 1"])

    assert result.exit_code == 0, result.output
    assert execs[0][0].endswith("psql")
    assert execs[0][1:] == ["postgresql://h/pgflow", "-c", "select 1"]


def test_dev_destroy_asks_for_confirmation(monkeypatch):
    destroyed = []
    monkeypatch.setattr(dev, "destroy", lambda: destroyed.append(True))

    result = CliRunner().invoke(main, ["dev", "destroy"], input="n\n")

    assert result.exit_code == 1
    assert destroyed == []


# ---------------------------------------------------------------- formatting


def test_table_pads_columns_to_the_widest_cell():
    text = _table(["A", "BB"], [["long value", "x"], ["y", "zzz"]])

    assert text.splitlines() == ["A           BB", "long value  x", "y           zzz"]


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(None, "-"), (0.04, "0.0 s"), (12.34, "12.3 s"), (61, "1 min 1 s"), (7260, "2 h 1 min")],
)
def test_duration_reads_as_units(seconds, shown):
    assert _duration(seconds) == shown


def test_start_rejects_nan_which_python_would_parse():
    result = CliRunner().invoke(main, ["start", "f", "--input", '{"n": NaN}', "--dsn", "x=y"])

    assert result.exit_code == 2
    assert "not JSON: NaN is not a JSON value" in result.output


@pytest.mark.parametrize("run_id", ["", "   ", "not-a-uuid"])
def test_start_rejects_a_run_id_that_is_not_a_uuid(run_id):
    result = CliRunner().invoke(main, ["start", "f", "--run-id", run_id, "--dsn", "x=y"])

    assert result.exit_code == 2
    assert "is not a valid UUID" in result.output
