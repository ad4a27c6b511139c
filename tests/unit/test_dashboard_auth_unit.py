"""Credentials and CSRF tokens of the dashboard (pgflow.dashboard.auth), without a server."""

from __future__ import annotations

import base64

import pytest
from starlette.requests import Request

from pgflow.dashboard.auth import (
    SESSION_COOKIE,
    Identity,
    authenticate,
    csrf_problem,
    csrf_token,
    same_origin,
    session_cookie_value,
)
from pgflow.dashboard.settings import Settings


def request(headers: dict[str, str] | None = None, method: str = "GET") -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return Request({"type": "http", "method": method, "path": "/", "headers": raw})


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


BOTH = Settings(dsn="x", token="tok", basic_auth=("alice", "pw"))


def test_each_credential_gives_its_identity():
    assert authenticate(request({"Authorization": basic("alice", "pw")}), BOTH) == Identity(
        "alice", "basic"
    )
    assert authenticate(request({"Authorization": "Bearer tok"}), BOTH) == Identity(
        "token", "bearer"
    )
    cookie = f"{SESSION_COOKIE}={session_cookie_value(BOTH)}"
    assert authenticate(request({"Cookie": cookie}), BOTH) == Identity("token", "cookie")
    named = Settings(dsn="x", token="tok", token_user="ops")
    assert authenticate(request({"Authorization": "Bearer tok"}), named).actor == "dashboard:ops"


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": basic("alice", "nope")},
        {"Authorization": basic("bob", "pw")},
        {"Authorization": "Basic not-base64!"},
        {"Authorization": "Bearer tok2"},
        {"Authorization": "Bearer "},
        {"Cookie": f"{SESSION_COOKIE}=tok"},
    ],
)
def test_wrong_credentials_give_none(headers):
    assert authenticate(request(headers), BOTH) is None


def test_the_cookie_and_the_form_token_hold_no_secret_and_depend_on_it():
    assert "tok" not in session_cookie_value(BOTH)
    other = Settings(dsn="x", token="tok-2", basic_auth=("alice", "pw2"))
    for identity in (Identity("alice", "basic"), Identity("token", "cookie")):
        assert csrf_token(identity, BOTH) != csrf_token(identity, other)
    assert csrf_token(Identity("alice", "basic"), BOTH) != csrf_token(
        Identity("token", "cookie"), BOTH
    )
    with pytest.raises(ValueError):
        session_cookie_value(Settings(dsn="x"))


@pytest.mark.parametrize(
    ("headers", "same"),
    [
        ({"Host": "dash:8080", "Origin": "http://dash:8080"}, True),
        ({"Host": "dash:8080", "Origin": "http://dash:9090"}, False),
        ({"Host": "dash:8080", "Origin": "null"}, False),
        ({"Host": "dash:8080", "Referer": "http://dash:8080/runs/x"}, True),
        ({"Host": "dash:8080", "Referer": "http://evil/dash:8080"}, False),
        ({"Host": "dash:8080"}, False),
    ],
)
def test_same_origin(headers, same):
    assert same_origin(request(headers, "POST")) is same


def test_csrf_problem_spares_bearer_requests_only():
    identity = Identity("alice", "basic")
    good = {"Host": "h", "Origin": "http://h"}
    token = csrf_token(identity, BOTH)
    assert csrf_problem(request(good, "POST"), token, identity, BOTH) is None
    assert csrf_problem(request(good, "POST"), None, identity, BOTH) is not None
    assert csrf_problem(request({"Host": "h"}, "POST"), token, identity, BOTH) is not None
    assert csrf_problem(request({}, "POST"), None, Identity("token", "bearer"), BOTH) is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"token": ""},
        {"basic_auth": ("", "pw")},
        {"basic_auth": ("a:b", "pw")},
        {"basic_auth": ("a", "")},
        {"page_size": 0},
    ],
)
def test_settings_refuse_empty_secrets(kwargs):
    with pytest.raises(ValueError):
        Settings(dsn="x", **kwargs)
    assert not Settings(dsn="x").can_act
