"""``pgflow dashboard``: options, environment, and the message when the extra is missing."""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from pgflow.cli import dashboard as command
from pgflow.cli.main import main


@pytest.fixture
def served(monkeypatch):
    """Capture what would be served (the app, the bound socket's address) instead of serving."""
    import uvicorn

    calls = []

    def fake_run(self, sockets=None):
        (sock,) = sockets
        host, port = sock.getsockname()[:2]
        calls.append((self.config.app, {"host": host, "port": port}))
        sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    return calls


def test_the_options_make_the_settings(served):
    result = CliRunner().invoke(
        main,
        [
            "dashboard",
            "--dsn",
            "postgresql:///x",
            "--port",
            "0",
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
    assert settings.redact and kw["host"] == "127.0.0.1" and kw["port"] > 0
    # --port 0 takes a free port, and the line says which.
    assert f"pgflow dashboard on http://127.0.0.1:{kw['port']}/ (actions allowed" in result.output


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


def test_the_host_allow_list_follows_the_listening_address():
    local = command.host_allow_list("127.0.0.1", None, ())
    assert local == ("127.0.0.1", "localhost", "::1")
    proxied = command.host_allow_list("127.0.0.1", "https://pgflow.example.com", ("ops.lan",))
    assert proxied == ("127.0.0.1", "localhost", "::1", "ops.lan", "pgflow.example.com")
    # Every interface: any Host, unless told which.
    assert command.host_allow_list("0.0.0.0", None, ()) == ("*",)
    assert command.host_allow_list("0.0.0.0", None, ("ops.lan",)) == ("ops.lan",)


def test_the_public_url_and_allowed_hosts_reach_the_settings(served):
    result = CliRunner().invoke(
        main,
        [
            "dashboard",
            "--dsn",
            "postgresql:///x",
            "--port",
            "0",
            "--public-url",
            "https://pgflow.example.com/some/path",
            "--allowed-host",
            "*.ops.lan",
        ],
    )
    assert result.exit_code == 0, result.output
    settings = served[0][0].state.dashboard.settings
    assert settings.public_url == "https://pgflow.example.com"
    assert set(settings.allowed_hosts) == {
        "127.0.0.1",
        "localhost",
        "::1",
        "*.ops.lan",
        "pgflow.example.com",
    }


@pytest.mark.parametrize("value", ["pgflow.example.com", "ftp://x", "https://"])
def test_a_public_url_must_be_an_http_url_with_a_host(served, value):
    result = CliRunner().invoke(
        main, ["dashboard", "--dsn", "postgresql:///x", "--public-url", value]
    )
    assert result.exit_code == 2 and "--public-url" in result.output
    assert served == []


def test_a_port_in_use_is_a_clear_error(served):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["dashboard", "--dsn", "postgresql:///x", "--port", str(port)]
        )
    assert result.exit_code == 1 and f"cannot listen on 127.0.0.1:{port}" in result.output
    assert served == []
