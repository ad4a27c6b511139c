"""Wait steps in pgflow.dsl: the ``wait`` key of shape() and the add_wait / add_timer
calls of to_sql(), with their quoting. No database.
"""

from __future__ import annotations

import pytest

from pgflow.dsl import Flow
from tests.unit.dsl_helpers import approval_flow, handler


@pytest.fixture
def flow():
    """Flow "approval" with a root step `submit`."""
    return approval_flow()


def expense() -> Flow:
    """Every kind of wait: a wait step, two timers, a handler waiting for a matching signal."""
    flow = Flow("expense")
    flow.step(slug="submit")(handler)
    flow.wait("approved", depends_on=["submit"], timeout=86400, on_timeout="skip-cascade")
    flow.sleep("cool_off", seconds=3600, depends_on=["approved"])
    flow.sleep("remind", until="submit.remind_at", depends_on=["submit"])
    flow.step(
        slug="book",
        depends_on=["cool_off"],
        wait_for="paid",
        signal_match={"currency": "EUR"},
        on_timeout="continue",
    )(handler)
    return flow


def test_shape_has_a_wait_key_on_waiting_steps_only():
    shape = expense().shape()

    def base(slug, deps):
        return {
            "slug": slug,
            "stepType": "single",
            "dependencies": deps,
            "whenUnmet": "skip",
            "whenExhausted": "fail",
            "requiredInputPattern": {"defined": False},
            "forbiddenInputPattern": {"defined": False},
        }

    assert shape == {
        "steps": [
            base("submit", []),
            base("approved", ["submit"])
            | {
                "wait": {
                    "kind": "signal",
                    "signal": "approved",
                    "match": None,
                    "timeout": 86400,
                    "onTimeout": "skip-cascade",
                    "handler": False,
                }
            },
            base("cool_off", ["approved"])
            | {"wait": {"kind": "timer", "seconds": 3600, "until": None}},
            base("remind", ["submit"])
            | {"wait": {"kind": "timer", "seconds": None, "until": "submit.remind_at"}},
            base("book", ["cool_off"])
            | {
                "wait": {
                    "kind": "signal",
                    "signal": "paid",
                    "match": {"currency": "EUR"},
                    "timeout": None,
                    "onTimeout": "continue",
                    "handler": True,
                }
            },
        ]
    }


def test_shape_of_a_flow_without_waits_has_no_wait_key(flow):
    flow.step(slug="after", depends_on=["submit"], if_={"submit": 1})(handler)

    assert all("wait" not in step for step in flow.shape()["steps"])


def test_shape_is_a_fresh_copy():
    flow = expense()
    flow.shape()["steps"][4]["wait"]["match"]["currency"] = "USD"

    assert flow.get_step("book").wait.signal_match == {"currency": "EUR"}
    assert flow.shape()["steps"][4]["wait"]["match"] == {"currency": "EUR"}


def test_to_sql_adds_wait_and_timer_calls_right_after_their_step():
    assert expense().to_sql().splitlines() == [
        "SELECT pgflow.create_flow('expense');",
        "SELECT pgflow.add_step('expense', 'submit');",
        "SELECT pgflow.add_step('expense', 'approved', ARRAY['submit']);",
        "SELECT pgflow.add_wait('expense', 'approved', 'approved', timeout => 86400, "
        "on_timeout => 'skip-cascade', runs_handler => false);",
        "SELECT pgflow.add_step('expense', 'cool_off', ARRAY['approved']);",
        "SELECT pgflow.add_timer('expense', 'cool_off', seconds => 3600);",
        "SELECT pgflow.add_step('expense', 'remind', ARRAY['submit']);",
        "SELECT pgflow.add_timer('expense', 'remind', until_path => 'submit.remind_at');",
        "SELECT pgflow.add_step('expense', 'book', ARRAY['cool_off']);",
        "SELECT pgflow.add_wait('expense', 'book', 'paid', "
        """signal_match => '{"currency": "EUR"}'::jsonb, on_timeout => 'continue', """
        "runs_handler => true);",
    ]


def test_to_sql_quotes_signal_names_and_paths():
    flow = Flow("quoting")
    flow.wait("w", "it's\\ok")
    flow.sleep("t", until="input.o'clock")

    lines = flow.to_sql().splitlines()

    assert lines[2] == (
        "SELECT pgflow.add_wait('quoting', 'w', E'it''s\\\\ok', on_timeout => 'fail', "
        "runs_handler => false);"
    )
    assert lines[4] == "SELECT pgflow.add_timer('quoting', 't', until_path => 'input.o''clock');"
