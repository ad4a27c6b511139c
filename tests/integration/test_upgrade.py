"""pgflow migrate: 0.1.0 + upgrade scripts == a fresh install, and no run is lost."""

from __future__ import annotations

import importlib.resources
import threading

import psycopg
import pytest

import pgflow
from pgflow.errors import InstallError, SchemaVersionMismatch
from pgflow.schema.migrate import migrate, upgrade_path
from tests.integration.catalog import CATALOG_QUERIES, catalog

OLD = "0.1.0"
WORKER = "11111111-1111-1111-1111-111111111111"


def install_old(dsn: str, method: str) -> None:
    """Install pgmq and pgflow 0.1.0 (the released script) by one of the two paths."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        if method == "extension":
            conn.execute("create extension pgmq")
            conn.execute(f"create extension pgflow version '{OLD}'")
        else:
            conn.execute((importlib.resources.files("pgmq") / "sql" / "pgmq.sql").read_text())
            old_sql = importlib.resources.files("pgflow") / "sql" / f"pgflow--{OLD}.sql"
            conn.execute(old_sql.read_text())


def fill_every_status(dsn: str) -> None:
    """Runs started/completed/failed with steps and tasks in every status."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            """
            select pgflow.create_flow('chain', max_attempts => 2, base_delay => 0);
            select pgflow.add_step('chain', 'first');
            select pgflow.add_step('chain', 'second', array['first']);
            select pgflow.add_step('chain', 'maybe', array['first'],
                                   required_input_pattern => '{"first": {"go": true}}');
            select pgflow.create_flow('mapper');
            select pgflow.add_step('mapper', 'items', step_type => 'map');
            """
        )
        conn.execute(
            "insert into pgflow.workers (worker_id, queue_name, function_name)"
            " values (%s, 'chain', 'upgrade_test')",
            (WORKER,),
        )

        def start_and(flow: str, payload: str, action: str, output: str = "{}") -> None:
            conn.execute(f"select pgflow.start_flow('{flow}', '{payload}'::jsonb)")
            tasks = conn.execute(
                "select run_id, step_slug, task_index from pgflow.start_tasks("
                "%s, array(select msg_id from pgmq.read(%s, 30, 1)), %s)",
                (flow, flow, WORKER),
            ).fetchall()
            for run_id, step, index in tasks:
                if action == "complete":
                    conn.execute(
                        "select pgflow.complete_task(%s, %s, %s, %s::jsonb)",
                        (run_id, step, index, output),
                    )
                elif action == "fail":
                    conn.execute(
                        "select pgflow.fail_task(%s, %s, %s, 'boom')", (run_id, step, index)
                    )

        start_and("chain", "{}", "none")  # run started, task started
        start_and("chain", "{}", "complete", '{"go": false}')  # second queued, maybe skipped
        start_and("chain", "{}", "fail")  # task queued again (retry)
        conn.execute("select pgflow.start_flow('mapper', '[]'::jsonb)")  # completed at once
        conn.execute("select pgflow.start_flow('mapper', '[1, 2]'::jsonb)")  # tasks queued
        # a failed run: exhaust both attempts of one run's first step
        run = conn.execute("select run_id from pgflow.start_flow('chain', '{}')").fetchone()[0]
        for _ in range(2):
            conn.execute("update pgmq.q_chain set vt = now() - interval '1 second'")
            conn.execute(
                "select pgflow.start_tasks('chain', array(select message_id from pgflow.step_tasks"
                " where run_id = %s and status = 'queued'), %s)",
                (run, WORKER),
            )
            conn.execute("select pgflow.fail_task(%s, 'first', 0, 'boom')", (run,))


def snapshot(dsn: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the runtime tables and the flow queues, in a stable order.

    The columns added by run control (#12) and by keyed starts (#14) are left out: an
    upgrade adds them empty (or with their default).
    """
    queries = {
        "runs": (
            "select to_jsonb(r) - '{cancelled_at,paused_at,rerun_of,idempotency_key,"
            "concurrency_key,deadline,queued_at,queue_seq,expired_at}'::text[] "
            "from pgflow.runs r order by run_id"
        ),
        "step_states": (
            "select to_jsonb(s) - 'cancelled_at' from pgflow.step_states s "
            "order by run_id, step_slug"
        ),
        "step_tasks": (
            "select to_jsonb(t) - '{cancelled_at,attempt_offset}'::text[] from pgflow.step_tasks t "
            "order by run_id, step_slug, task_index"
        ),
        "flows": (
            "select to_jsonb(f) - '{opt_concurrency_limit,opt_on_limit,opt_run_timeout}'::text[] "
            "from pgflow.flows f order by flow_slug"
        ),
        "queue_chain": "select msg_id, message from pgmq.q_chain order by msg_id",
        "archive_chain": "select msg_id, message from pgmq.a_chain order by msg_id",
        "queue_mapper": "select msg_id, message from pgmq.q_mapper order by msg_id",
    }
    with psycopg.connect(dsn) as conn:
        return {name: conn.execute(query).fetchall() for name, query in queries.items()}


def test_the_packaged_chain_leads_from_the_first_release_to_this_version():
    path = upgrade_path(OLD, pgflow.__version__)

    assert path[0][0] == OLD
    assert path[-1][1] == pgflow.__version__


@pytest.mark.parametrize("method", ["extension", "sql"])
def test_upgrade_gives_the_catalog_of_a_fresh_install(empty_db, method):
    upgraded, fresh = empty_db(), empty_db()
    install_old(upgraded, method)
    pgflow.install(fresh, method=method)

    report = migrate(upgraded)

    assert report.from_version == OLD
    assert report.to_version == pgflow.__version__
    assert report.method == method
    left, right = catalog(upgraded), catalog(fresh)
    for kind in CATALOG_QUERIES:
        assert left[kind] == right[kind], f"{kind} differ between upgraded and fresh install"


@pytest.mark.parametrize("method", ["extension", "sql"])
def test_upgrade_keeps_every_run_step_and_task(empty_db, method):
    dsn = empty_db()
    install_old(dsn, method)
    fill_every_status(dsn)
    before = snapshot(dsn)
    with psycopg.connect(dsn) as conn:
        statuses = conn.execute(
            "select (select array_agg(distinct status order by status) from pgflow.runs),"
            " (select array_agg(distinct status order by status) from pgflow.step_states),"
            " (select array_agg(distinct status order by status) from pgflow.step_tasks)"
        ).fetchone()
    assert statuses == (
        ["completed", "failed", "started"],
        ["completed", "created", "failed", "skipped", "started"],
        ["completed", "failed", "queued", "started"],
    ), "the fixture must cover every status"

    migrate(dsn)

    assert snapshot(dsn) == before
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select pgflow.version()").fetchone()[0] == pgflow.__version__
        versions = conn.execute(
            "select version from pgflow.installed_versions order by installed_at"
        ).fetchall()
        assert [v for (v,) in versions] == [OLD, pgflow.__version__]


def finish_started_mapper_run(dsn: str) -> tuple[list[object], str, object]:
    """Claim and complete (4-argument complete_task) the two map tasks of the started run
    of 'mapper' (fill_every_status); return the tasks' inputs and the run's status and
    output."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        run_id = conn.execute(
            "select run_id from pgflow.runs where flow_slug = 'mapper' and status = 'started'"
        ).fetchone()[0]
        tasks = conn.execute(
            "select run_id, step_slug, task_index, input from pgflow.start_tasks('mapper',"
            " array(select msg_id from pgmq.read('mapper', 30, 10)), %s)",
            (WORKER,),
        ).fetchall()
        for rid, step, index, _ in tasks:
            conn.execute("select pgflow.complete_task(%s, %s, %s, '1'::jsonb)", (rid, step, index))
        status, output = conn.execute(
            "select status, output from pgflow.runs where run_id = %s", (run_id,)
        ).fetchone()
    return sorted(t[3] for t in tasks), status, output


def test_runs_started_before_the_upgrade_finish_after_it(empty_db):
    dsn = empty_db()
    install_old(dsn, "sql")
    fill_every_status(dsn)
    migrate(dsn)

    # the started run of 'mapper' (two queued map tasks) completes on the new schema
    assert finish_started_mapper_run(dsn) == ([1, 2], "completed", {"items": [1, 1]})


def test_migrate_twice_is_a_noop(pgflow_dsn):
    report = migrate(pgflow_dsn)

    assert report.steps == ()
    assert "up to date" in str(report)


def test_migrate_needs_an_installed_schema(empty_db):
    with pytest.raises(InstallError, match="pgflow install"):
        migrate(empty_db())


def test_migrate_refuses_a_newer_database(pgflow_conn):
    pgflow_conn.execute(
        "insert into pgflow.installed_versions (version, install_method) values ('99.0.0', 'sql')"
    )

    with pytest.raises(SchemaVersionMismatch, match="newer"):
        migrate(pgflow_conn)


def test_install_refuses_an_older_schema_and_points_to_migrate(empty_db):
    dsn = empty_db()
    install_old(dsn, "sql")

    with pytest.raises(SchemaVersionMismatch, match="pgflow migrate"):
        pgflow.install(dsn)


def test_two_concurrent_migrations_apply_each_step_once(empty_db):
    dsn = empty_db()
    install_old(dsn, "sql")
    reports: list[object] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reports.append(migrate(dsn))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not errors
    applied = sorted(len(r.steps) for r in reports)  # type: ignore[attr-defined]
    assert applied == [0, len(upgrade_path(OLD, pgflow.__version__))]
    with psycopg.connect(dsn) as conn:
        count = conn.execute(
            "select count(*) from pgflow.installed_versions where version = %s",
            (pgflow.__version__,),
        ).fetchone()[0]
    assert count == 1
