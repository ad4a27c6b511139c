"""`pgflow start --idempotency-key/--concurrency-key/--deadline`, and what `pgflow status`,
`pgflow runs`, `pgflow rerun` and `pgflow start --wait` show of keys, slots, the queue and
deadlines, against a real database. Time is moved by UPDATEs of the stored deadline: no
sleeps."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result

from pgflow.cli.main import main
from tests.integration.sql_worker import define_two_steps
from tests.integration.test_client_keyed_starts import define_limited


def pgflow(dsn: str, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--dsn", dsn])


def started(dsn: str, *args: str) -> str:
    """Run `pgflow start ARGS` and return the run id it printed."""
    result = pgflow(dsn, "start", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def status_lines(dsn: str, run_id: str) -> dict[str, str]:
    """The labelled lines of `pgflow status` above its step table, by label."""
    result = pgflow(dsn, "status", run_id)
    assert result.exit_code == 0, result.output
    head = result.stdout.split("\n\n", 1)[0].splitlines()
    return {line[:8].strip(): line[9:] for line in head}


def test_a_repeated_start_prints_the_same_run_and_says_already_started(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    first = pgflow(pgflow_dsn, "start", "two_steps", "--idempotency-key", "order-42")
    again = pgflow(pgflow_dsn, "start", "two_steps", "--idempotency-key", "order-42")

    assert first.exit_code == again.exit_code == 0, again.output
    run_id = first.stdout.strip()
    assert again.stdout.strip() == run_id
    assert first.stderr == ""
    assert again.stderr.strip() == f"already started: run {run_id} (started)"
    assert status_lines(pgflow_dsn, run_id)["idem key"] == "order-42"


def test_a_queued_start_says_its_place_and_status_shows_the_holder(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")
    holder = started(pgflow_dsn, "billing", "--concurrency-key", "account:7")

    second = pgflow(pgflow_dsn, "start", "billing", "--concurrency-key", "account:7")
    third = pgflow(pgflow_dsn, "start", "billing", "--concurrency-key", "account:7")

    assert second.exit_code == third.exit_code == 0, third.output
    assert second.stderr.strip() == (
        f"queued: position 1 for key account:7, slot held by run {holder}"
    )
    assert third.stderr.strip() == (
        f"queued: position 2 for key account:7, slot held by run {holder}"
    )
    lines = status_lines(pgflow_dsn, third.stdout.strip())
    assert lines["status"].startswith("queued  (queued ")
    assert lines["key"] == "account:7 (limit 1, on limit queue)"
    assert lines["queue"] == f"position 2 for key account:7, slot held by run {holder}"
    held = status_lines(pgflow_dsn, holder)
    assert held["slots"] == f"1 of 1 held by run {holder} (this run)"
    assert "queue" not in held

    queued = pgflow(pgflow_dsn, "runs", "--status", "queued")
    assert queued.exit_code == 0, queued.output
    listed = {line.split()[0] for line in queued.stdout.splitlines()[1:]}
    assert listed == {second.stdout.strip(), third.stdout.strip()}


def test_a_start_over_a_reject_limit_exits_1_naming_the_holder(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "reject")
    holder = started(pgflow_dsn, "billing", "--concurrency-key", "account:7")

    result = pgflow(pgflow_dsn, "start", "billing", "--concurrency-key", "account:7")

    assert result.exit_code == 1
    assert "concurrency limit of flow 'billing' for key 'account:7'" in result.stderr
    assert f"held by run {holder}" in result.stderr
    assert "CONTEXT" not in result.stderr  # the database's message, without internals


def test_status_shows_the_time_left_to_a_deadline_then_its_expiry(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)
    run_id = started(pgflow_dsn, "two_steps", "--deadline", "2h")
    (delta,) = pgflow_conn.execute(
        "select deadline - started_at from pgflow.runs where run_id = %s", (run_id,)
    ).fetchone()
    assert delta.total_seconds() == 7200  # the database's now() + 2 h
    pgflow_conn.execute(
        "update pgflow.runs set deadline = now() + interval '1 hour 59 minutes 59 seconds'"
        " where run_id = %s",
        (run_id,),
    )

    # "in 1h 59m (...)" unless the status took an hour: measured on the database clock
    assert status_lines(pgflow_dsn, run_id)["deadline"].startswith("in 1h 5")

    pgflow_conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s",
        (run_id,),
    )
    passed = status_lines(pgflow_dsn, run_id)["deadline"]
    assert passed.startswith("passed ") and passed.endswith(
        "the run is started until the next tick expires it"
    )

    pgflow_conn.execute("select pgflow.tick()")
    lines = status_lines(pgflow_dsn, run_id)
    assert lines["status"].startswith("expired  (started ")
    assert lines["expired"].startswith("at ") and "(deadline " in lines["expired"]
    assert "deadline" not in lines
    expired = pgflow(pgflow_dsn, "runs", "--status", "expired")
    assert expired.stdout.splitlines()[1].split()[:3] == [run_id, "two_steps", "expired"]


def test_status_json_carries_the_slot_and_the_seconds_left(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")
    run_id = started(pgflow_dsn, "billing", "--concurrency-key", "k", "--deadline", "1d")

    result = pgflow(pgflow_dsn, "status", run_id, "--json")

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["concurrency_key"] == "k" and data["status"] == "started"
    assert data["slot"] == {
        "concurrency_key": "k",
        "concurrency_limit": 1,
        "on_limit": "queue",
        "queue_position": None,
        "holders": [run_id],
    }
    assert 0 < data["deadline_seconds_left"] <= 86400


def test_a_deadline_timestamp_in_the_past_exits_1_and_a_bad_one_2(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    past = pgflow(pgflow_dsn, "start", "two_steps", "--deadline", "2000-01-01T00:00:00Z")
    bad = pgflow(pgflow_dsn, "start", "two_steps", "--deadline", "soon")

    assert past.exit_code == 1
    assert "is not in the future" in past.stderr
    assert bad.exit_code == 2
    assert "is not a duration" in bad.stderr
    (runs,) = pgflow_conn.execute("select count(*) from pgflow.runs").fetchone()
    assert runs == 0


def test_rerun_and_start_wait_say_the_new_run_was_queued(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")
    holder = started(pgflow_dsn, "billing", "--concurrency-key", "account:7")
    slot = f"for key account:7, slot held by run {holder}"

    rerun = pgflow(pgflow_dsn, "rerun", holder)
    # --timeout 0: one read of the run, still queued: exit 1, nothing waited for
    waited = pgflow(
        pgflow_dsn, "start", "billing", "--concurrency-key", "account:7", "--wait", "--timeout", "0"
    )

    assert rerun.exit_code == 0, rerun.output
    new = rerun.stdout.strip()
    assert rerun.stderr == f"queued run {new} (rerun of {holder}; position 1 {slot})\n"
    assert waited.exit_code == 1
    first, *_ = waited.stderr.splitlines()
    assert first.startswith("queued run ") and first.endswith(
        f" of flow billing (position 2 {slot})"
    )
    assert "started run" not in waited.stderr
    (queued,) = pgflow_conn.execute(
        "select count(*) from pgflow.runs where status = 'queued'"
    ).fetchone()
    assert queued == 2  # the rerun and the waited-for start, both behind the holder


def test_a_run_that_expired_or_was_cancelled_in_the_queue_never_started(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")
    key = ("--concurrency-key", "account:7")
    holder = started(pgflow_dsn, "billing", *key)
    expired = started(pgflow_dsn, "billing", *key, "--deadline", "1h")
    cancelled = started(pgflow_dsn, "billing", *key)
    moved_on = started(pgflow_dsn, "billing", *key)
    assert status_lines(pgflow_dsn, moved_on)["status"].startswith("queued  (queued since ")
    pgflow_conn.execute(
        "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s",
        (expired,),
    )
    pgflow_conn.execute("select pgflow.tick()")
    assert pgflow(pgflow_dsn, "cancel", cancelled).exit_code == 0
    assert pgflow(pgflow_dsn, "cancel", holder).exit_code == 0  # moved_on takes the slot
    assert pgflow(pgflow_dsn, "cancel", moved_on).exit_code == 0

    never = "never started: it waited in the queue for "
    assert status_lines(pgflow_dsn, expired)["status"].startswith("expired  (expired at ")
    assert never in status_lines(pgflow_dsn, expired)["status"]
    assert never in status_lines(pgflow_dsn, cancelled)["status"]
    assert status_lines(pgflow_dsn, cancelled)["status"].startswith("cancelled  (cancelled at ")
    for run_id in (holder, moved_on):  # they started (moved_on left the queue)
        assert status_lines(pgflow_dsn, run_id)["status"].startswith("cancelled  (started ")

    listed = pgflow(pgflow_dsn, "runs")
    assert listed.exit_code == 0, listed.output
    rows = {line.split()[0]: line.split()[2:] for line in listed.stdout.splitlines()[1:]}
    assert rows[expired][:3] == ["expired", "never", "-"]
    assert rows[cancelled][:3] == ["cancelled", "never", "-"]
    assert rows[moved_on][1] != "never" and rows[holder][1] != "never"


def test_runs_shows_a_queued_run_as_queued(pgflow_dsn, pgflow_conn):
    define_limited(pgflow_conn, "billing", "queue")
    holder = started(pgflow_dsn, "billing", "--concurrency-key", "k")
    queued = started(pgflow_dsn, "billing", "--concurrency-key", "k")

    listed = pgflow(pgflow_dsn, "runs")

    rows = {line.split()[0]: line.split()[2:] for line in listed.stdout.splitlines()[1:]}
    assert rows[queued] == ["queued", "queued", "-", "1"]
    assert rows[holder][0] == "started" and rows[holder][1] not in ("queued", "never")


def test_a_blank_key_is_a_usage_error_without_python_words(pgflow_dsn, pgflow_conn):
    define_two_steps(pgflow_conn)

    result = pgflow(pgflow_dsn, "start", "two_steps", "--idempotency-key", "  ")

    assert result.exit_code == 2
    assert "omit --idempotency-key for no key" in " ".join(result.stderr.split())
    assert "None" not in result.stderr
    (runs,) = pgflow_conn.execute("select count(*) from pgflow.runs").fetchone()
    assert runs == 0
