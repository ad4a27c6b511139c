"""Group actions on the Needs-attention page: over the cap, rerun twice, the count link.

- A group larger than one action takes (GROUP_LIMIT) is said so, never silently capped:
  "retry 2 of 3 runs: 2 done; 1 remain: run it again" (the cap is lowered here).
- "rerun all" posted twice from the same page leaves alone the runs rerun since it was
  shown ("already rerun").
- A failed group's count opens the runs list filtered on its flow, step and error.
"""

from __future__ import annotations

import html
import re

from pgflow.dashboard import attention
from tests.integration.test_dashboard_actions import AUTH, FLASH, failed_checkout, status_of
from tests.integration.test_dashboard_auth import CSRF
from tests.integration.test_dashboard_pages import listed
from tests.integration.test_dashboard_runs import (
    claim,
    dashboard_client,
    define_flows,
    fail_claimed,
    start,
)

SEEN_AT = re.compile(r'<input type="hidden" name="seen_at" value="([^"]+)">')


def seen_at(page: str) -> str:
    """When the page was shown, as its group forms say (blank if they do not)."""
    found = SEEN_AT.search(page)
    return found.group(1) if found else ""


def post(client, **form: str) -> tuple[str, str]:
    """Post a group action from a fresh page; return the flash (kind, text) shown."""
    page = client.get("/attention", headers=AUTH).text
    form = {"csrf": CSRF.search(page).group(1), "seen_at": seen_at(page), **form}
    posted = client.post("/attention/act", data=form, headers=AUTH)
    assert posted.status_code == 303, posted.text
    return FLASH.search(client.get("/attention", headers=AUTH).text).groups()


def failed_group() -> dict[str, str]:
    return {"group": "failed", "flow": "checkout", "step": "charge", "error_key": "CardDeclined"}


def test_a_group_over_the_cap_says_how_many_remain(pgflow_dsn, pgflow_conn, monkeypatch):
    monkeypatch.setattr(attention, "GROUP_LIMIT", 2)
    define_flows(pgflow_conn)
    failed = [failed_checkout(pgflow_conn) for _ in range(3)]
    paused = [start(pgflow_conn, "batch", [n]) for n in range(3)]
    for run_id in paused:
        pgflow_conn.execute("select pgflow.pause_run(%s, 'alice', 'hold')", (run_id,))

    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        first = post(client, **failed_group(), verb="retry", reason="gateway ok")
        second = post(client, **failed_group(), verb="retry", reason="gateway ok")
        resumed = post(client, group="paused", verb="resume", reason="go on")

    assert first == ("info", "retry 2 of 3 runs: 2 done; 1 remain: run it again")
    assert second == ("ok", "retry 1 run: 1 done")
    assert [status_of(pgflow_conn, r) for r in failed] == ["started"] * 3
    assert resumed == ("info", "resume 2 of 3 runs: 2 done; 1 remain: run it again")
    assert sorted(status_of(pgflow_conn, r) for r in paused) == ["paused", "started", "started"]


def test_rerun_all_posted_twice_reruns_each_run_once(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    failed = [failed_checkout(pgflow_conn) for _ in range(2)]

    with dashboard_client(pgflow_dsn, basic_auth=("alice", "s3cret")) as client:
        page = client.get("/attention", headers=AUTH).text
        form = {
            "csrf": CSRF.search(page).group(1),
            "seen_at": seen_at(page),
            **failed_group(),
            "verb": "rerun",
            "reason": "fresh start",
        }
        client.post("/attention/act", data=form, headers=AUTH)
        first = FLASH.search(client.get("/attention", headers=AUTH).text).groups()
        client.post("/attention/act", data=form, headers=AUTH)  # the same form again
        second = FLASH.search(client.get("/attention", headers=AUTH).text).groups()
        missing = client.post(
            "/attention/act", data={**form, "seen_at": "not a time"}, headers=AUTH
        )
        refused = FLASH.search(client.get("/attention", headers=AUTH).text).groups()

    assert first == ("ok", "rerun 2 runs: 2 done")
    assert second == ("info", "rerun 2 runs: 2 already rerun")
    assert missing.status_code == 303
    assert refused == ("error", "not done: the form did not say when you saw the group")
    reruns = pgflow_conn.execute(
        "select rerun_of::text, count(*) from pgflow.runs where rerun_of is not null group by 1"
    ).fetchall()
    assert sorted(reruns) == sorted((run_id, 1) for run_id in failed)


def test_a_groups_count_opens_the_list_of_that_group_only(pgflow_dsn, pgflow_conn):
    define_flows(pgflow_conn)
    declined = [failed_checkout(pgflow_conn) for _ in range(2)]
    timed_out = start(pgflow_conn, "checkout")
    for _ in range(3):
        pgflow_conn.execute("update pgmq.q_checkout set vt = now() where true")
        fail_claimed(pgflow_conn, claim(pgflow_conn, "checkout"), "TimeoutError: gateway")
    assert status_of(pgflow_conn, timed_out) == "failed"

    with dashboard_client(pgflow_dsn) as client:
        page = client.get("/attention").text
        link = re.search(
            r'<tr class="group" data-flow="checkout" data-step="charge"'
            r' data-error="CardDeclined">.*?<td class="count"><a href="([^"]+)">2</a>',
            page,
            re.S,
        )
        runs = listed(client.get(html.unescape(link.group(1))).text)

    assert "error=CardDeclined" in html.unescape(link.group(1))
    assert sorted(runs) == sorted(declined)
