"""``pgflow dashboard``: options, environment, and the message when the extra is missing."""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from pgflow.cli import dashboard as command
from pgflow.cli.main import main


@pytest.fixture
def served(monkeypatch):
    """Capture what would be served instead of starting uvicorn."""
    import uvicorn

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append((app, kw)))
    return calls


def test_the_options_make_the_settings(served):
    result = CliRunner().invoke(
        main,
        [
            "dashboard",
            "--dsn",
            "postgresql:///x",
            "--port",
            "9000",
            "--basic-auth",
            "al:pw",
            "--token",
            "t",
            "--token-user",
            "ops",
            "--redact",
        ],
    )
    assert result.exit_code == 0, result.output
    [(app, kw)] = served
    settings = app.state.dashboard.settings
    assert (settings.dsn, settings.basic_auth, settings.token, settings.token_user) == (
        "postgresql:///x",
        ("al", "pw"),
        "t",
        "ops",
    )
    assert settings.redact and kw == {"host": "127.0.0.1", "port": 9000, "log_level": "warning"}
    assert "actions allowed" in result.output


def test_secrets_come_from_the_environment(served):
    env = {"PGFLOW_DASHBOARD_TOKEN": "env-token", "PGFLOW_DASHBOARD_BASIC_AUTH": "bo:pw2"}
    result = CliRunner().invoke(main, ["dashboard", "--dsn", "postgresql:///x"], env=env)
    assert result.exit_code == 0, result.output
    settings = served[0][0].state.dashboard.settings
    assert (settings.token, settings.basic_auth) == ("env-token", ("bo", "pw2"))


def test_without_credentials_it_is_read_only(served):
    result = CliRunner().invoke(
        main,
        ["dashboard", "--dsn", "postgresql:///x"],
        env={"PGFLOW_DASHBOARD_TOKEN": None, "PGFLOW_DASHBOARD_BASIC_AUTH": None},
    )
    assert result.exit_code == 0
    assert "read-only" in result.output
    assert not served[0][0].state.dashboard.settings.can_act


@pytest.mark.parametrize("value", ["nocolon", ":pw", "user:"])
def test_a_malformed_basic_auth_is_a_usage_error(served, value):
    result = CliRunner().invoke(main, ["dashboard", "--dsn", "x", "--basic-auth", value])
    assert result.exit_code == 2
    assert served == []


def test_a_missing_extra_says_how_to_install_it(monkeypatch, served):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    result = CliRunner().invoke(main, ["dashboard", "--dsn", "x"])
    assert result.exit_code == 1
    assert "pip install 'pgflow[dashboard]'" in result.output
    assert "uvicorn" in result.output
    assert command.missing_modules() == ["uvicorn"]
    assert served == []
