"""Dashboard authentication (basic, bearer token, login cookie) and CSRF refusals."""

from __future__ import annotations

import base64
import re

import pytest

from tests.integration.test_dashboard_runs import dashboard_client, define_flows, start

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def run_status(conn, run_id: str) -> str:
    return conn.execute("select status from pgflow.runs where run_id = %s", (run_id,)).fetchone()[0]


def cancel_events(conn, run_id: str) -> list[tuple]:
    return conn.execute(
        "select actor, reason from pgflow.run_events where run_id = %s and event = 'run:cancelled'",
        (run_id,),
    ).fetchall()


@pytest.fixture
def run_id(pgflow_conn) -> str:
    define_flows(pgflow_conn)
    return start(pgflow_conn, "batch", [1])


def test_basic_auth_lets_the_right_user_in_and_no_one_else(pgflow_dsn, run_id):
    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        anonymous = client.get("/")
        wrong_password = client.get("/", headers=basic("alice", "nope"))
        wrong_user = client.get("/", headers=basic("mallory", "s3cret"))
        garbage = client.get("/", headers={"Authorization": "Basic %%%"})
        page = client.get(f"/runs/{run_id}", headers=basic("alice", "s3cret"))
        metrics_css = client.get("/static/dashboard.css")

    for refused in (anonymous, wrong_password, wrong_user, garbage):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Basic ")
    assert page.status_code == 200
    assert "dashboard:alice" in page.text
    assert 'action="/runs/' + run_id + '/cancel"' in page.text
    assert CSRF.search(page.text)
    assert metrics_css.status_code == 200


def test_a_bearer_token_acts_without_a_form_token_as_dashboard_token(
    pgflow_dsn, pgflow_conn, run_id
):
    with dashboard_client(pgflow_dsn, token="t0ken") as client:
        wrong = client.get("/", headers={"Authorization": "Bearer nope"})
        page = client.get("/", headers={"Authorization": "Bearer t0ken"})
        done = client.post(
            f"/runs/{run_id}/cancel",
            data={"reason": "from a script", "expected_status": "started"},
            headers={"Authorization": "Bearer t0ken", "Origin": "https://elsewhere.example"},
        )

    assert wrong.status_code == 303 and wrong.headers["location"] == "/login?next=%2F"
    assert page.status_code == 200
    assert done.status_code == 303
    assert cancel_events(pgflow_conn, run_id) == [("dashboard:token", "from a script")]


def test_the_token_user_names_the_actor(pgflow_dsn, pgflow_conn, run_id):
    with dashboard_client(pgflow_dsn, token="t0ken", token_user="ops") as client:
        client.post(
            f"/runs/{run_id}/cancel",
            data={"reason": "r", "expected_status": "started"},
            headers={"Authorization": "Bearer t0ken"},
        )

    assert cancel_events(pgflow_conn, run_id) == [("dashboard:ops", "r")]


def test_login_sets_an_httponly_strict_cookie_holding_no_token(pgflow_dsn, run_id):
    with dashboard_client(pgflow_dsn, token="t0ken") as client:
        bounced = client.get(f"/runs/{run_id}")
        form = client.get(bounced.headers["location"])
        wrong = client.post("/login", data={"token": "nope", "next": f"/runs/{run_id}"})
        right = client.post("/login", data={"token": "t0ken", "next": f"/runs/{run_id}"})
        cookie = right.headers["set-cookie"]
        page = client.get(f"/runs/{run_id}")
        out = client.post("/logout")
        after = client.get(f"/runs/{run_id}")

    assert bounced.status_code == 303
    assert bounced.headers["location"] == f"/login?next=%2Fruns%2F{run_id}"
    assert form.status_code == 200 and 'name="token"' in form.text
    assert wrong.status_code == 401 and "wrong token" in wrong.text
    assert right.status_code == 303 and right.headers["location"] == f"/runs/{run_id}"
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert "t0ken" not in cookie
    assert page.status_code == 200 and "dashboard:token" in page.text
    assert out.status_code == 303
    assert after.status_code == 303


def test_login_never_redirects_off_site(pgflow_dsn):
    with dashboard_client(pgflow_dsn, token="t0ken") as client:
        for target in ("//evil.example/x", "https://evil.example/", "/\\evil"):
            answer = client.post("/login", data={"token": "t0ken", "next": target})
            assert answer.headers["location"] == "/"


def test_posts_without_the_form_token_or_from_another_origin_are_refused(
    pgflow_dsn, pgflow_conn, run_id
):
    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        auth = basic("alice", "s3cret")
        csrf = CSRF.search(client.get(f"/runs/{run_id}", headers=auth).text).group(1)
        form = {"reason": "r", "expected_status": "started"}
        url = f"/runs/{run_id}/cancel"
        no_token = client.post(url, data=form, headers=auth)
        bad_token = client.post(url, data={**form, "csrf": "0" * 64}, headers=auth)
        cross_site = client.post(
            url, data={**form, "csrf": csrf}, headers={**auth, "Origin": "https://evil.example"}
        )
        cross_referer = client.post(
            url,
            data={**form, "csrf": csrf},
            headers={**auth, "Origin": "", "Referer": "https://evil.example/page"},
        )
        unauthenticated = client.post(url, data={**form, "csrf": csrf})
        assert run_status(pgflow_conn, run_id) == "started"
        same_site_referer = client.post(
            url,
            data={**form, "csrf": csrf},
            headers={**auth, "Origin": "", "Referer": f"http://testserver/runs/{run_id}"},
        )

    for refused in (no_token, bad_token, cross_site, cross_referer):
        assert refused.status_code == 403, refused.text
    assert unauthenticated.status_code == 401
    assert same_site_referer.status_code == 303
    assert cancel_events(pgflow_conn, run_id) == [("dashboard:alice", "r")]


def test_the_cookie_session_needs_the_form_token_too(pgflow_dsn, pgflow_conn, run_id):
    with dashboard_client(pgflow_dsn, token="t0ken") as client:
        client.post("/login", data={"token": "t0ken", "next": "/"})
        csrf = CSRF.search(client.get(f"/runs/{run_id}").text).group(1)
        form = {"reason": "r", "expected_status": "started"}
        forged = client.post(f"/runs/{run_id}/cancel", data=form)
        assert run_status(pgflow_conn, run_id) == "started"
        done = client.post(f"/runs/{run_id}/cancel", data={**form, "csrf": csrf})

    assert forged.status_code == 403
    assert done.status_code == 303
    assert run_status(pgflow_conn, run_id) == "cancelled"
