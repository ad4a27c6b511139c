"""The worker's clock disagrees with the database's; nothing changes.

The worker runs under libfaketime (Debian package ``faketime``, installed by ``make
setup``) with its wall clock 60 s behind, then 60 s ahead, of the database server. All
scheduling is decided by the database (message ``vt`` from ``start_delay`` and from the
retry backoff, ``started_at`` for stall detection), so a step with ``start_delay=5`` is
claimed once, not before the database says 5 s have passed, and a failing step with
``base_delay=2`` is claimed exactly once per attempt, each retry after its backoff.

Each handler records its claim (table ``e2e_claims``) with the database's clock and the
worker's own, which also proves the skew was really injected.
"""

from __future__ import annotations

import glob
from datetime import timedelta

import pytest
from psycopg.rows import dict_row

from tests.integration.worker_harness import start_flow, step_tasks, wait_run

pytestmark = pytest.mark.e2e

SKEW = "tests.e2e.flows.faults:skew"


def faketime_env(offset_seconds: int) -> dict[str, str]:
    libs = glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1")
    if not libs:
        pytest.fail("libfaketime is not installed: run `make setup` (Debian package faketime)")
    # Monotonic time is faked along (libfaketime 0.9.10 breaks sleeps when it is not).
    return {"LD_PRELOAD": libs[0], "FAKETIME": f"{offset_seconds:+d}"}


@pytest.mark.parametrize("offset", [-60, 60], ids=["behind", "ahead"])
def test_skewed_worker_clock_changes_no_schedule(pgflow_conn, pgflow_dsn, start_worker, offset):
    pgflow_conn.execute(
        "create table e2e_claims (run_id uuid, step_slug text, attempt int, read_ct int, "
        "worker_time timestamptz, db_time timestamptz default clock_timestamp())"
    )
    worker = start_worker(SKEW, env={**faketime_env(offset), "E2E_DSN": pgflow_dsn})
    worker.wait_running()
    run_id = start_flow(pgflow_conn, "skew", {})
    run = wait_run(pgflow_conn, run_id, timeout=60)
    assert run["status"] == "completed"
    assert run["output"] == {"delayed": "woke", "flaky": {"attempt": 3}}

    with pgflow_conn.cursor(row_factory=dict_row) as cur:
        claims = cur.execute(
            "select * from e2e_claims order by step_slug, attempt, db_time"
        ).fetchall()
    by_step = {slug: [c for c in claims if c["step_slug"] == slug] for slug in ("delayed", "flaky")}

    # The skew is real: the worker's clock is off by the offset (give or take a few s).
    for claim in claims:
        skew = (claim["worker_time"] - claim["db_time"]).total_seconds()
        assert abs(skew - offset) < 10, claim

    # start_delay=5: claimed once, not before the database's start + 5 s.
    (delayed,) = by_step["delayed"]
    assert (delayed["attempt"], delayed["read_ct"]) == (1, 1)
    tasks = {t["step_slug"]: t for t in step_tasks(pgflow_conn, run_id)}
    waited = tasks["delayed"]["started_at"] - run["started_at"]
    assert timedelta(seconds=5) <= waited < timedelta(seconds=15)

    # base_delay=2, failing twice: exactly one claim (and one read) per attempt, each
    # retry no earlier than its backoff floor(2 * 2^attempt) after the previous claim.
    flaky = by_step["flaky"]
    assert [(c["attempt"], c["read_ct"]) for c in flaky] == [(1, 1), (2, 2), (3, 3)]
    assert flaky[1]["db_time"] - flaky[0]["db_time"] >= timedelta(seconds=4)
    assert flaky[2]["db_time"] - flaky[1]["db_time"] >= timedelta(seconds=8)
    assert tasks["flaky"]["attempts_count"] == 3

    # The archive agrees: each message was read once per attempt, and archived once.
    archived = dict(
        pgflow_conn.execute(
            "select message->>'step_slug', read_ct from pgmq.a_skew where message->>'run_id' = %s",
            (run_id,),
        ).fetchall()
    )
    assert archived == {"delayed": 1, "flaky": 3}
    assert pgflow_conn.execute("select count(*) from pgmq.q_skew").fetchone() == (0,)
