"""Adopting a database that upstream pgflow 0.14 installed: `pgflow install` (and `pgflow
migrate`) turn it into this package's schema in place, with the catalog of a fresh install,
every run kept, and runs in flight finishing afterwards; `pgflow check-schema` names it.
(The worker runs on such a database in upstream mode: test_upstream_mode.py.) The database
is upstream-shaped by tests/integration/upstream_fixture.py.
"""

from __future__ import annotations

import psycopg
import pytest

import pgflow
from pgflow.errors import InstallError
from pgflow.schema.check import check_schema
from pgflow.schema.migrate import migrate
from tests.integration.catalog import CATALOG_QUERIES, catalog
from tests.integration.test_upgrade import fill_every_status, finish_started_mapper_run, snapshot
from tests.integration.upstream_fixture import install_ours, strip_to_upstream


def upstream_database(dsn: str) -> str:
    """An upstream-shaped database with runs, steps and tasks in every status."""
    install_ours(dsn)
    fill_every_status(dsn)
    strip_to_upstream(dsn)
    return dsn


def scalar(dsn: str, query: str) -> object:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query).fetchone()
    return None if row is None else row[0]


def test_install_adopts_it_with_the_catalog_of_a_fresh_install(empty_db):
    adopted, fresh = upstream_database(empty_db()), empty_db()
    pgflow.install(fresh, method="sql")
    assert scalar(adopted, "select to_regclass('pgflow.installed_versions')") is None

    report = pgflow.install(adopted)

    assert (report.pgmq, report.pgflow, report.pgflow_version) == (
        "present",
        "adopted",
        pgflow.__version__,
    )
    assert "adopted in place from upstream pgflow 0.14" in str(report)
    left, right = catalog(adopted), catalog(fresh)
    for kind in CATALOG_QUERIES:
        assert left[kind] == right[kind], f"{kind} differ between adopted and fresh install"
    assert scalar(adopted, "select pgflow.version()") == pgflow.__version__
    assert pgflow.install(adopted).pgflow == "present"  # a second install changes nothing


def test_every_run_is_kept_and_runs_in_flight_finish(empty_db):
    dsn = upstream_database(empty_db())
    before = snapshot(dsn)

    pgflow.install(dsn)

    assert snapshot(dsn) == before
    # the started run of 'mapper' (two map tasks queued before the adoption) completes
    # through upstream's 4-argument calls, now ours
    assert finish_started_mapper_run(dsn) == ([1, 2], "completed", {"items": [1, 1]})


def test_migrate_adopts_it_too(empty_db):
    dsn = upstream_database(empty_db())

    report = migrate(dsn)

    assert (report.from_version, report.to_version) == ("upstream 0.14", pgflow.__version__)
    assert scalar(dsn, "select pgflow.version()") == pgflow.__version__
    assert migrate(dsn).steps == ()


def test_check_schema_names_it_and_says_what_install_changes(empty_db):
    dsn = upstream_database(empty_db())

    report = check_schema(dsn)

    codes = {e.code for e in report.errors}
    assert "pgflow_upstream" in codes
    upstream = next(e for e in report.errors if e.code == "pgflow_upstream")
    assert "installed by upstream pgflow" in upstream.message
    assert "pgflow install" in (upstream.hint or "")
    missing = [e for e in report.errors if "read_and_start_tasks" in e.message]
    assert missing and all("adopts the upstream schema" in (e.hint or "") for e in missing)


def test_an_upstream_older_than_0_14_is_refused_and_nothing_is_written(empty_db):
    dsn = upstream_database(empty_db())
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("alter table pgflow.step_tasks drop column permanently_stalled_at")
    upstream = next(e for e in check_schema(dsn).errors if e.code == "pgflow_upstream")
    assert "older than 0.14" in upstream.message
    assert "apply upstream's migrations up to 0.14.x" in (upstream.hint or "")

    with pytest.raises(InstallError, match=r"older than 0\.14.*step_tasks\.permanently_stalled_at"):
        pgflow.install(dsn)

    assert scalar(dsn, "select to_regclass('pgflow.installed_versions')") is None
    assert scalar(dsn, "select count(*) from pgflow.runs") == 6


def test_method_extension_is_refused_for_an_upstream_database(empty_db):
    dsn = upstream_database(empty_db())

    with pytest.raises(InstallError, match="adopted in place as plain SQL"):
        pgflow.install(dsn, method="extension")

    assert scalar(dsn, "select to_regclass('pgflow.installed_versions')") is None
