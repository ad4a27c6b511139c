"""pgflow.install: both install paths give the same catalog, and installing is idempotent."""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Iterator

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import pgflow
from pgflow.errors import ExtensionNotAvailable, SchemaVersionMismatch

# The package attribute `pgflow.install` is the function; this is the module.
install_module = importlib.import_module("pgflow.install")
_numbers = itertools.count(1)

# Each query lists one kind of object of schema pgflow, in a stable order, as plain text
# values: two installs are equal when every query returns the same rows.
CATALOG_QUERIES = {
    "functions": """
        select p.oid::regprocedure::text, pg_get_function_identity_arguments(p.oid),
               pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.prokind,
               p.provolatile, p.prosecdef, p.proisstrict, p.proconfig::text, l.lanname,
               md5(p.prosrc), obj_description(p.oid, 'pg_proc')
        from pg_proc p
        join pg_namespace n on n.oid = p.pronamespace
        join pg_language l on l.oid = p.prolang
        where n.nspname = 'pgflow'
        order by 1
    """,
    "relations": """
        select c.relname, c.relkind, c.relpersistence, obj_description(c.oid, 'pg_class')
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'pgflow'
        order by 1
    """,
    "columns": """
        select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),
               a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated
        from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where n.nspname = 'pgflow' and a.attnum > 0 and not a.attisdropped
        order by 1, 2
    """,
    "constraints": """
        select conrelid::regclass::text, contypid::regtype::text, conname,
               pg_get_constraintdef(oid), condeferrable, condeferred
        from pg_constraint
        where connamespace = 'pgflow'::regnamespace
        order by 1, 2, 3
    """,
    "indexes": """
        select indexname, indexdef from pg_indexes where schemaname = 'pgflow' order by 1
    """,
    "types": """
        select t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod),
               obj_description(t.oid, 'pg_type'),
               (select array_agg(e.enumlabel order by e.enumsortorder)
                  from pg_enum e where e.enumtypid = t.oid)::text
        from pg_type t
        where t.typnamespace = 'pgflow'::regnamespace and t.typtype <> 'b'
        order by 1
    """,
    "triggers": """
        select tgrelid::regclass::text, tgname, pg_get_triggerdef(oid)
        from pg_trigger
        where not tgisinternal
          and tgrelid in (select oid from pg_class where relnamespace = 'pgflow'::regnamespace)
        order by 1, 2
    """,
    "views": """
        select viewname, definition from pg_views where schemaname = 'pgflow' order by 1
    """,
}


def catalog(dsn: str) -> dict[str, list[tuple[object, ...]]]:
    with psycopg.connect(dsn) as conn:
        return {name: conn.execute(query).fetchall() for name, query in CATALOG_QUERIES.items()}


@pytest.fixture
def empty_db(pg_admin_dsn: str) -> Iterator[Callable[[], str]]:
    """Factory of empty databases (no pgmq, no pgflow); all are dropped afterwards."""
    created: list[str] = []

    def make() -> str:
        name = f"pgflow_empty_{next(_numbers)}"
        with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
            conn.execute(f'create database "{name}" template template0')
        created.append(name)
        return make_conninfo(pg_admin_dsn, dbname=name)

    yield make
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        for name in created:
            conn.execute(f'drop database if exists "{name}" with (force)')


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
