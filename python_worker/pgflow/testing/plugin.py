"""The pytest plugin of ``pgflow.testing`` (registered as ``pgflow``, entry point ``pytest11``).

Fixtures, each test with a database of its own:

- ``pgflow_test_server`` (session): the server and its template database with pgmq and
  pgflow installed (:class:`~pgflow.testing.server.TestServer`): the one of
  ``PGFLOW_TEST_DSN``, else a throwaway cluster in the session's temp folder.
- ``pgflow_dsn``: the DSN of a fresh database, a copy of the template, dropped afterwards.
- ``pgflow_db``: an autocommit psycopg connection to it.
- ``pgflow_client``: a :class:`pgflow.Client` on it.
- ``pgflow_clock``: its engine clock (:class:`~pgflow.testing.TestClock`):
  ``pgflow_clock.advance(hours=1)``.
- ``run_flow``: :func:`pgflow.testing.run_flow` bound to it:
  ``run_flow(flow, input, overrides={"charge": fake_charge})``; also
  ``run_flow.continue_run(flow, run_id)``.

Imports are deferred to the fixtures, so a pytest session that uses none of them costs
nothing (the plugin loads in every session of an environment where pgflow is installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import psycopg

    from pgflow import Client
    from pgflow.testing import FlowRunner, TestClock
    from pgflow.testing.server import TestServer


@pytest.fixture(scope="session")
def pgflow_test_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestServer]:
    """The session's PostgreSQL server, with a template database holding pgmq and pgflow."""
    from pgflow.testing.server import TestServer

    server = TestServer.start(tmp_path_factory.mktemp("pgflow"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pgflow_dsn(pgflow_test_server: TestServer) -> Iterator[str]:
    """DSN of a fresh database with pgmq and pgflow installed, dropped after the test."""
    dsn = pgflow_test_server.new_database()
    try:
        yield dsn
    finally:
        pgflow_test_server.drop_database(dsn)


@pytest.fixture
def pgflow_db(pgflow_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit psycopg connection to the test's database."""
    import psycopg

    with psycopg.connect(pgflow_dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def pgflow_client(pgflow_dsn: str) -> Iterator[Client]:
    """A :class:`pgflow.Client` on the test's database (closed after the test)."""
    from pgflow import Client

    with Client(pgflow_dsn) as client:
        yield client


@pytest.fixture
def pgflow_clock(pgflow_dsn: str) -> TestClock:
    """The engine clock of the test's database: ``pgflow_clock.advance(seconds=3600)``."""
    from pgflow.testing import TestClock

    return TestClock(pgflow_dsn)


@pytest.fixture
def run_flow(pgflow_dsn: str) -> FlowRunner:
    """:func:`pgflow.testing.run_flow` on the test's database: ``run_flow(flow, input)``."""
    from pgflow.testing import FlowRunner

    return FlowRunner(pgflow_dsn)
