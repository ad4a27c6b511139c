from __future__ import annotations

from datetime import UTC, datetime

from pgflow.schedules import describe_next_run, next_run

NOW = datetime(2026, 11, 29, 23, 58, 30, tzinfo=UTC)


def test_next_run_of_a_cron_expression():
    assert next_run("*/5 * * * *", NOW) == datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
    assert next_run("0 3 * * *", NOW) == datetime(2026, 11, 30, 3, 0, tzinfo=UTC)


def test_next_run_uses_pg_crons_time_zone():
    # 03:00 in Tokyo is 18:00 UTC the day before
    moment = next_run("0 3 * * *", NOW, "Asia/Tokyo")

    assert moment is not None
    assert moment.astimezone(UTC) == datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


def test_next_run_of_a_seconds_interval_is_the_next_bucket():
    assert next_run("20 seconds", NOW) == datetime(2026, 11, 29, 23, 58, 40, tzinfo=UTC)


def test_next_run_of_an_invalid_expression_is_unknown():
    assert next_run("not a cron", NOW) is None
    assert describe_next_run(None, NOW) == "unknown"


def test_describe_next_run_is_relative():
    assert describe_next_run(datetime(2026, 11, 30, 0, 0, tzinfo=UTC), NOW).endswith("(in 1 min)")
