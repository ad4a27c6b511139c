"""The dashboard answers only the hosts it is told, accepts POSTs from its public URL, and
reports an unreachable database at /metrics quickly.

No database is reachable here (the DSN names a closed port): the checks run before any
query, and /metrics answers ``pgflow_up 0``.
"""

from __future__ import annotations

import warnings

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.requests import Request

from pgflow.dashboard import Settings, create_app
from pgflow.dashboard.auth import same_origin

NOWHERE = "postgresql://postgres@127.0.0.1:1/none?connect_timeout=1"


def client_of(settings: Settings):
    with warnings.catch_warnings():
        # Starlette 1.x prefers the httpx2 package for its TestClient; httpx works the same.
        warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
        from starlette.testclient import TestClient

    return TestClient(create_app(settings), base_url="http://127.0.0.1:8080")


def request_with(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "method": "POST", "path": "/", "headers": raw})


def test_a_host_not_allowed_gets_400_before_anything_is_read():
    settings = Settings(dsn=NOWHERE, allowed_hosts=("127.0.0.1", "localhost"))
    with client_of(settings) as client:
        rebinding = client.get("/static/dashboard.css", headers={"Host": "attacker.example:8080"})
        own = client.get("/static/dashboard.css")
    assert rebinding.status_code == 400
    assert own.status_code == 200


def test_any_host_is_answered_when_allowed_hosts_is_a_wildcard():
    with client_of(Settings(dsn=NOWHERE)) as client:
        answer = client.get("/static/dashboard.css", headers={"Host": "anything.example"})
    assert answer.status_code == 200


@pytest.mark.parametrize(
    ("headers", "public_url", "accepted"),
    [
        ({"host": "127.0.0.1:8080", "origin": "http://127.0.0.1:8080"}, None, True),
        # Behind a proxy that rewrites Host: refused unless the public URL says so.
        ({"host": "127.0.0.1:8080", "origin": "https://pgflow.example.com"}, None, False),
        (
            {"host": "127.0.0.1:8080", "origin": "https://pgflow.example.com"},
            "https://pgflow.example.com",
            True,
        ),
        # Same host, other scheme or port: another origin.
        (
            {"host": "127.0.0.1:8080", "origin": "http://pgflow.example.com"},
            "https://pgflow.example.com",
            False,
        ),
        (
            {"host": "127.0.0.1:8080", "referer": "https://pgflow.example.com/runs/x"},
            "https://pgflow.example.com",
            True,
        ),
        ({"host": "127.0.0.1:8080", "origin": "null"}, "https://pgflow.example.com", False),
        ({"host": "127.0.0.1:8080"}, "https://pgflow.example.com", False),
    ],
)
def test_same_origin_accepts_the_public_url(headers, public_url, accepted):
    assert same_origin(request_with(headers), public_url) is accepted


def test_metrics_answer_pgflow_up_0_when_the_database_cannot_be_reached():
    settings = Settings(dsn=NOWHERE, metrics_timeout=0.5)
    with client_of(settings) as client:
        answer = client.get("/metrics")
    assert answer.status_code == 200
    families = {f.name: f for f in text_string_to_metric_families(answer.text)}
    assert [s.value for s in families["pgflow_up"].samples] == [0.0]
    assert set(families) == {"pgflow_up"}


def test_a_scrape_answers_pgflow_up_0_at_its_deadline_when_the_database_hangs():
    # A frozen server holds a query forever: the scrape must still answer.
    import threading
    from contextlib import contextmanager

    from pgflow.dashboard.scrape import scrape
    from pgflow.dashboard.web import Dashboard

    released = threading.Event()

    class Hanging(Dashboard):
        @contextmanager
        def scrape_connection(self):
            released.wait(30)  # the database "answers" only when the test ends
            raise psycopg.OperationalError("released at the end of the test")
            yield

    dash = Hanging(settings=Settings(dsn=NOWHERE, metrics_deadline=0.3), pool=None, templates=None)
    try:
        text = scrape(dash).decode()
    finally:
        released.set()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert set(families) == {"pgflow_up"}
    assert [s.value for s in families["pgflow_up"].samples] == [0.0]
