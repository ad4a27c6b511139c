"""A flow whose handlers each open a database connection of their own, for
tests/e2e/test_low_max_connections.py.

Importable as ``tests.e2e.flows.connections:needs_db``. Each handler connects to
``E2E_HANDLER_DSN`` (``application_name = e2e-handler``, 2 s connect timeout), runs a short
query and disconnects. A connection the server refuses (``too many clients``) fails the
attempt, and the task is retried with the flow's backoff (2 s, 4 s, 8 s, ...), as a real
handler's would be.
"""

from __future__ import annotations

import os

import psycopg

from pgflow.dsl import Flow

#: ``application_name`` of the handlers' own connections.
HANDLER_APPLICATION = "e2e-handler"

needs_db = Flow("needs_db", max_attempts=10, base_delay=1, timeout=20)


def _query(seconds: float) -> int:
    with psycopg.connect(
        os.environ["E2E_HANDLER_DSN"],
        connect_timeout=2,
        application_name=HANDLER_APPLICATION,
        autocommit=True,
    ) as conn:
        row = conn.execute("select 1 from pg_sleep(%s)", (seconds,)).fetchone()
    assert row is not None
    return int(row[0])


@needs_db.step()
def items(input):
    _query(0.1)
    return list(range(input["items"]))


@needs_db.map(array="items")
def double(item):
    _query(0.2)
    return item * 2


@needs_db.step(depends_on=["double"])
def total(input):
    _query(0.1)
    return sum(input["double"])
