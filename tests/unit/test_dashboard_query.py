"""The runs list's query string (pgflow.dashboard.run_query)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit

from pgflow.dashboard.run_query import newest_link, older_link, parse_run_query
from pgflow.observe.runs import RunCursor, RunFilters


def test_filters_are_read_and_blank_ones_ignored():
    query = parse_run_query(
        {
            "flow": "checkout",
            "status": "failed",
            "step": " charge ",
            "error": "",
            "from": "2024-05-01T10:00",
            "to": "2024-05-02T10:00:00+02:00",
        }
    )
    assert query.filters == RunFilters(
        flow="checkout",
        status="failed",
        step="charge",
        error=None,
        started_from=datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
        started_to=datetime(2024, 5, 2, 10, 0, tzinfo=timezone(timedelta(hours=2))),
    )
    assert query.problems == [] and query.cursor is None and query.run_id is None
    assert "error" not in query.values


def test_bad_values_are_said_and_not_applied():
    query = parse_run_query({"status": "nope", "from": "yesterday", "run": "123"})
    assert query.filters == RunFilters()
    assert len(query.problems) == 3


def test_a_run_id_is_made_canonical():
    query = parse_run_query({"run": "  A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11 "})
    assert query.run_id == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"


def test_links_keep_every_filter_and_round_trip_the_cursor():
    query = parse_run_query({"flow": "f", "error": "a&b=c", "status": "started"})
    cursor = RunCursor(
        datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=UTC), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    )
    link = older_link(query, cursor)
    params = {k: v[-1] for k, v in parse_qs(urlsplit(link).query).items()}
    assert params["flow"] == "f" and params["error"] == "a&b=c" and params["status"] == "started"
    again = parse_run_query(params)
    assert again.cursor == cursor
    assert again.filters == query.filters
    assert newest_link(again) == "/?" + urlsplit(newest_link(query)).query
    assert newest_link(parse_run_query({})) == "/"


def test_a_broken_cursor_means_the_first_page():
    assert parse_run_query({"before": "x", "before_id": "y"}).cursor is None
