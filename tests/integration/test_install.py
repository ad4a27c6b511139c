"""pgflow.install: both install paths give the same catalog, and installing is idempotent."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

import pgflow
from pgflow.errors import ExtensionNotAvailable, SchemaVersionMismatch
from pgflow.schema import install as install_module
from tests.integration.catalog import CATALOG_QUERIES, catalog


def extensions(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        return dict(conn.execute("select extname, extversion from pg_extension").fetchall())


def test_extension_and_plain_sql_installs_give_the_same_catalog(empty_db):
    via_extension, via_sql = empty_db(), empty_db()

    assert pgflow.install(via_extension, method="extension").pgflow == "extension"
    assert pgflow.install(via_sql, method="sql").pgflow == "sql"

    left, right = catalog(via_extension), catalog(via_sql)
    assert left["functions"], "the catalog snapshot found no pgflow functions"
    assert left["columns"], "the catalog snapshot found no pgflow columns"
    for kind in CATALOG_QUERIES:
        assert left[kind] == right[kind], f"{kind} differ between the two install paths"


def test_extension_install_creates_both_extensions(empty_db):
    dsn = empty_db()

    report = pgflow.install(dsn, method="extension")

    assert (report.pgmq, report.pgflow, report.pgflow_version) == (
        "extension",
        "extension",
        pgflow.__version__,
    )
    assert extensions(dsn) == {"plpgsql": "1.0", "pgmq": "1.13.0", "pgflow": pgflow.__version__}


def test_plain_sql_install_needs_no_extension_files(empty_db):
    dsn = empty_db()

    report = pgflow.install(dsn, method="sql")

    assert (report.pgmq, report.pgflow) == ("sql", "sql")
    assert set(extensions(dsn)) == {"plpgsql"}
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select pgflow.version()").fetchone() == (pgflow.__version__,)
        methods = conn.execute("select install_method from pgflow.installed_versions").fetchall()
        assert methods == [("sql",)]
        conn.execute("select pgmq.create('smoke')")
        assert conn.execute("select pgmq.send('smoke', '{}')").fetchone() is not None


def test_auto_falls_back_to_plain_sql_when_the_server_lacks_extension_files(empty_db, monkeypatch):
    dsn = empty_db()
    monkeypatch.setattr(
        install_module,
        "_choose",
        lambda conn, name, version, method: "sql",
    )

    report = pgflow.install(dsn)

    assert (report.pgmq, report.pgflow) == ("sql", "sql")
    assert set(extensions(dsn)) == {"plpgsql"}


def test_auto_prefers_extensions_when_available(empty_db):
    dsn = empty_db()

    report = pgflow.install(dsn)

    assert (report.pgmq, report.pgflow) == ("extension", "extension")


def test_pgflow_goes_plain_sql_over_a_plain_sql_pgmq(empty_db):
    dsn = empty_db()
    with psycopg.connect(dsn) as conn:
        conn.execute(install_module._read_pgmq_sql())

    report = pgflow.install(dsn)

    assert (report.pgmq, report.pgflow) == ("present", "sql")


@pytest.mark.parametrize("method", ["extension", "sql"])
def test_install_twice_is_a_noop(empty_db, method):
    dsn = empty_db()
    first = pgflow.install(dsn, method=method)
    before = catalog(dsn)

    second = pgflow.install(dsn, method=method)

    assert first.changed
    assert not second.changed
    assert (second.pgmq, second.pgflow) == ("present", "present")
    assert catalog(dsn) == before
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select count(*) from pgflow.installed_versions").fetchone() == (1,)


def test_install_on_a_template_clone_is_a_noop(pgflow_conn):
    report = pgflow.install(pgflow_conn)

    assert not report.changed
    assert "already installed" in str(report)


def test_install_accepts_a_connection_inside_a_transaction(empty_db):
    dsn = empty_db()
    with psycopg.connect(dsn) as conn:
        conn.execute("select 1")  # opens a transaction
        pgflow.install(conn, method="sql")
        conn.rollback()

    assert set(extensions(dsn)) == {"plpgsql"}
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select to_regclass('pgflow.flows')").fetchone() == (None,)


def test_extension_method_fails_without_extension_files(empty_db, monkeypatch):
    dsn = empty_db()
    real_choose = install_module._choose

    def pretend_no_pgflow_files(conn, name, version, method):
        if name == "pgflow":
            version = "0.0.0-missing"
        return real_choose(conn, name, version, method)

    monkeypatch.setattr(install_module, "_choose", pretend_no_pgflow_files)

    with pytest.raises(ExtensionNotAvailable, match=r"pgflow 0\.0\.0-missing"):
        pgflow.install(dsn, method="extension")
    assert extensions(dsn) == {"plpgsql": "1.0"}, "a failed install leaves nothing behind"


def test_other_installed_version_is_reported(pgflow_conn):
    pgflow_conn.execute("update pgflow.installed_versions set version = '0.0.1'")

    with pytest.raises(SchemaVersionMismatch, match=r"0\.0\.1"):
        pgflow.install(pgflow_conn)


def test_install_rejects_unknown_method(pgflow_dsn):
    with pytest.raises(ValueError, match="method"):
        pgflow.install(pgflow_dsn, method="copy")  # type: ignore[arg-type]


def test_dsn_helper_points_at_the_right_database(pgflow_dsn):
    assert conninfo_to_dict(pgflow_dsn)["dbname"].startswith("pgflow_t")
