"""The two roles of the install, proved by connecting as login roles that hold them.

``pgflow_worker`` runs a real ``pgflow-worker`` end to end and calls every worker
function, but writes no table and starts no run; ``pgflow_client`` starts runs and reads
their state (``pgflow.Client``, ``pgflow status``/``runs``), but reports no task; a plain
login role can do nothing in schema pgflow. Roles are cluster-wide, so each test creates
login roles with unique names and drops them afterwards.
"""

from __future__ import annotations

import signal
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from psycopg import errors
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from pgflow import Client
from pgflow.cli.main import main
from pgflow.schema.check import check_schema

WORKER_ID = "22222222-2222-2222-2222-222222222222"

#: A two-step flow shape (as the DSL exports it) for ensure_flow_compiled.
SHAPE = {
    "steps": [
        {"slug": "first", "stepType": "single", "dependencies": [], "options": {}},
        {"slug": "second", "stepType": "single", "dependencies": ["first"], "options": {}},
    ],
    "options": {"maxAttempts": 2, "baseDelay": 0},
}


def connect(dsn: str) -> psycopg.Connection[Any]:
    return psycopg.connect(dsn, autocommit=True)


def scalar(conn: psycopg.Connection[Any], query: Any, params: Any = None) -> Any:
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def define_flow(pgflow_conn: psycopg.Connection[Any], slug: str = "guarded") -> None:
    """Create a two-step flow as the owner: first -> second (2 attempts, no delay)."""
    pgflow_conn.execute("select pgflow.ensure_flow_compiled(%s, %s)", (slug, Jsonb(SHAPE)))


# ---------------------------------------------------------------- pgflow_worker


def test_worker_role_runs_the_whole_worker_protocol(pgflow_conn, login_role):
    client_dsn = login_role("pgflow_client")
    with connect(login_role("pgflow_worker")) as worker, connect(client_dsn) as client:
        # startup: compile the flow, register, NOTIFY, schedule sync
        compiled = scalar(
            worker, "select pgflow.ensure_flow_compiled('guarded', %s)", (Jsonb(SHAPE),)
        )
        worker.execute("select pgflow.track_worker_function('role_test')")
        worker.execute("select pgflow.register_worker(%s, 'guarded', 'role_test')", (WORKER_ID,))
        enabled = scalar(worker, "select pgflow.enable_flow_notify('guarded', 100)")
        schedule = scalar(worker, "select pgflow.sync_flow_schedule('guarded', null)")
        run_id = scalar(client, "select run_id from pgflow.start_flow('guarded', '{\"n\": 1}')")

        def claim() -> tuple[Any, ...]:
            read = worker.execute("select msg_id from pgflow.read_tasks('guarded', 30, 5)")
            msg_ids = [r[0] for r in read]
            rows = worker.execute(
                "select run_id, step_slug, task_index from pgflow.start_tasks('guarded', %s, %s)",
                (msg_ids, WORKER_ID),
            ).fetchall()
            assert len(rows) == 1, rows
            return rows[0]

        # first attempt fails (a retry, base delay 0), the second completes
        failed = scalar(worker, "select status from pgflow.fail_task(%s, %s, %s, 'boom')", claim())
        completed = scalar(
            worker, "select status from pgflow.complete_task(%s, %s, %s, '1')", claim()
        )
        completed_second = scalar(
            worker, "select status from pgflow.complete_task(%s, %s, %s, '2')", claim()
        )
        # timers and shutdown; reading run state (flow input, attempts) is allowed
        heartbeat = scalar(worker, "select pgflow.worker_heartbeat(%s)", (WORKER_ID,))
        requeued = scalar(worker, "select pgflow.requeue_stalled_tasks()")
        worker.execute("select pgflow.deprecate_worker(%s)", (WORKER_ID,))
        worker.execute("select pgflow.mark_worker_stopped(%s)", (WORKER_ID,))
        run_input = scalar(worker, "select input from pgflow.runs where run_id = %s", (run_id,))
        attempts = scalar(
            worker,
            "select attempts_count from pgflow.step_tasks"
            " where run_id = %s and step_slug = 'first'",
            (run_id,),
        )

    assert compiled["status"] == "compiled"
    assert (enabled, schedule, heartbeat, requeued) == (True, "none", False, 0)
    assert (failed, completed, completed_second) == ("queued", "completed", "completed")
    assert (run_input, attempts) == ({"n": 1}, 2)
    assert scalar(pgflow_conn, "select status from pgflow.runs where run_id = %s", (run_id,)) == (
        "completed"
    )
    stopped = pgflow_conn.execute(
        "select deprecated_at is not null, stopped_at is not null from pgflow.workers"
        " where worker_id = %s",
        (WORKER_ID,),
    ).fetchone()
    assert stopped == (True, True)


@pytest.mark.parametrize(
    "statement",
    [
        "insert into pgflow.runs (flow_slug, input, remaining_steps) values ('guarded', '{}', 0)",
        "update pgflow.runs set status = 'failed'",
        "update pgflow.step_states set status = 'completed'",
        "update pgflow.step_tasks set status = 'completed'",
        "delete from pgflow.step_tasks",
        "delete from pgflow.flows",
        "insert into pgflow.workers (worker_id, queue_name, function_name)"
        " values (gen_random_uuid(), 'guarded', 'x')",
        "select pgflow.start_flow('guarded', '{}')",
        "select pgflow.start_flow_with_states('guarded', '{}')",
        "select pgflow.delete_flow_and_data('guarded')",
        "select pgflow.prune_data_older_than('0 seconds')",
        "select pgflow.create_flow('another')",
        "select pgflow.add_step('guarded', 'third')",
        "select * from pgflow.set_vt_batch('guarded', array[1]::bigint[], array[0])",
        "select pgflow.schedule_flow('guarded', '0 * * * *')",
        "select * from pgmq.read('guarded', 30, 1)",
        "select pgmq.send('guarded', '{}')",
        "select count(*) from pgflow.workers",
    ],
)
def test_worker_role_cannot_write_tables_or_start_runs(pgflow_conn, login_role, statement):
    define_flow(pgflow_conn)
    pgflow_conn.execute("select pgflow.start_flow('guarded', '{}')")

    with (
        connect(login_role("pgflow_worker")) as worker,
        pytest.raises(errors.InsufficientPrivilege),
    ):
        worker.execute(statement)

    assert scalar(pgflow_conn, "select count(*) from pgflow.runs where status = 'started'") == 1
    assert scalar(pgflow_conn, "select count(*) from pgflow.flows") == 1


@pytest.mark.e2e
def test_worker_process_as_pgflow_worker_completes_runs_of_a_client(login_role, start_worker):
    worker_dsn, client_dsn = login_role("pgflow_worker"), login_role("pgflow_client")

    worker = start_worker("basic:chain", "--tick-interval", "0.5", dsn=worker_dsn)
    worker.wait_running()
    with Client(client_dsn) as client:
        run = client.start_flow("chain", {"n": 1})
        final = client.wait_for_run(run.run_id, timeout_seconds=30)
    worker.signal(signal.SIGTERM)
    exit_code = worker.wait()

    assert final.status == "completed", worker.text()
    # second and third read the run input lazily (pgflow.runs)
    assert final.output == {"third": {"total": 21, "task_index": 0}}
    assert exit_code == 0, worker.text()
    assert worker.has_log("flow compiled")
    assert worker.has_log("NOTIFY enabled on the flow queue")
    problems = [e for e in worker.logs() if e.get("level") in ("WARNING", "ERROR", "CRITICAL")]
    assert problems == [], worker.text()


# ---------------------------------------------------------------- pgflow_client


def test_client_role_starts_runs_and_reads_their_state(pgflow_conn, login_role):
    define_flow(pgflow_conn)
    client_dsn = login_role("pgflow_client")

    with Client(client_dsn) as client:
        started = client.start_flow("guarded", {"n": 1})
        state = client.get_run(started.run_id)
        counts = client.task_counts(started.run_id)
        runs = client.list_runs(flow_slug="guarded")
    status = CliRunner().invoke(main, ["status", started.run_id, "--dsn", client_dsn])
    listed = CliRunner().invoke(main, ["runs", "--dsn", client_dsn])
    report = check_schema(client_dsn)

    assert (state.status, [s.step_slug for s in state.steps]) == ("started", ["first", "second"])
    assert counts == {"first": {"queued": 1}}
    assert [r.run_id for r in runs] == [started.run_id]
    assert status.exit_code == 0, status.output
    assert "first" in status.stdout
    assert listed.exit_code == 0, listed.output
    assert started.run_id in listed.stdout
    assert report.ok, report.to_text()


@pytest.mark.parametrize(
    "statement",
    [
        "select pgflow.complete_task(%(run_id)s, 'first', 0, '{}')",
        "select pgflow.fail_task(%(run_id)s, 'first', 0, 'no')",
        "select pgflow.start_tasks('guarded', array[1]::bigint[], gen_random_uuid())",
        "select * from pgflow.read_tasks('guarded', 30, 1)",
        "select pgflow.register_worker(gen_random_uuid(), 'guarded', 'x')",
        "select pgflow.ensure_flow_compiled('guarded', '{}'::jsonb, true)",
        "select pgflow.requeue_stalled_tasks()",
        "select pgflow.recover_stalled_tasks()",
        "select pgflow.delete_flow_and_data('guarded')",
        "update pgflow.runs set status = 'completed'",
        "update pgflow.step_tasks set status = 'completed'",
        "delete from pgflow.runs",
        "insert into pgflow.step_states (flow_slug, step_slug, run_id)"
        " values ('guarded', 'first', %(run_id)s)",
        "select count(*) from pgflow.workers",
        "select count(*) from pgflow.schedules",
        "select * from pgmq.read('guarded', 30, 1)",
    ],
)
def test_client_role_cannot_report_tasks_or_write_tables(pgflow_conn, login_role, statement):
    define_flow(pgflow_conn)
    run_id = scalar(pgflow_conn, "select run_id from pgflow.start_flow('guarded', '{}')")

    with (
        connect(login_role("pgflow_client")) as client,
        pytest.raises(errors.InsufficientPrivilege),
    ):
        client.execute(statement, {"run_id": run_id})

    row = pgflow_conn.execute(
        "select r.status, t.status from pgflow.runs r join pgflow.step_tasks t using (run_id)"
        " where r.run_id = %s",
        (run_id,),
    ).fetchone()
    assert row == ("started", "queued")


# ---------------------------------------------------------------- PUBLIC


@pytest.mark.parametrize(
    "statement",
    [
        "select pgflow.version()",
        "select count(*) from pgflow.runs",
        "select count(*) from pgflow.flows",
        "select pgflow.start_flow('guarded', '{}')",
        "select pgflow.get_run_with_states(gen_random_uuid())",
        "select * from pgflow.read_tasks('guarded', 30, 1)",
        "select pgflow.setup_security()",
    ],
)
def test_a_plain_role_can_do_nothing_in_pgflow(pgflow_conn, login_role, statement):
    define_flow(pgflow_conn)

    with connect(login_role()) as nobody, pytest.raises(errors.InsufficientPrivilege):
        nobody.execute(statement)


def test_check_schema_as_a_plain_role_reports_the_missing_privilege(login_role):
    report = check_schema(login_role())

    assert not report.ok
    assert [e.code for e in report.errors] == ["pgflow_version_unknown"]


@pytest.mark.parametrize("groups", [(), ("pgflow_client",)], ids=["plain", "client"])
def test_a_worker_without_the_role_stops_at_startup_with_the_grant_to_run(
    login_role, start_worker, groups
):
    role_dsn = login_role(*groups)
    worker = start_worker("basic:chain", dsn=role_dsn)

    exit_code = worker.wait(30)

    assert exit_code == 2, worker.text()
    role = conninfo_to_dict(role_dsn)["user"]
    assert f"GRANT pgflow_worker TO {role}" in worker.text()
    if groups:  # it can read the schema, so it names what it may not use
        assert "pgflow.ensure_flow_compiled(text,jsonb,boolean)" in worker.text()


# ---------------------------------------------------------------- search_path hardening

#: Temporary domains named like built-in types, whose CHECK records who ran it: a function
#: that resolved a type name through the session's temporary schema would run the
#: caller's code (as the function's owner, when SECURITY DEFINER).
HIJACKING_TYPES = """
    create function pg_temp.spy(v pg_catalog.text) returns boolean
    language plpgsql as $$
    begin
      perform pg_catalog.set_config('pgflow_test.hijacked_as', current_user, false);
      return true;
    end $$;
    create domain pg_temp.jsonb as pg_catalog.jsonb check (pg_temp.spy(value::pg_catalog.text));
    create domain pg_temp.text as pg_catalog.text check (pg_temp.spy(value));
    create domain pg_temp.uuid as pg_catalog.uuid check (pg_temp.spy(value::pg_catalog.text));
    create domain pg_temp.timestamptz as pg_catalog.timestamptz
      check (pg_temp.spy(value::pg_catalog.text));
"""


def test_a_pg_temp_type_cannot_hijack_functions_running_as_their_owner(pgflow_conn, login_role):
    """A temporary domain named like a built-in type, whose CHECK runs the caller's code,
    is never used by pgflow functions (search_path = pg_catalog, pg_temp)."""
    define_flow(pgflow_conn)
    with connect(login_role("pgflow_client")) as client:
        client.execute(HIJACKING_TYPES)
        run_id = scalar(client, "select run_id from pgflow.start_flow('guarded', '{}')")
        client.execute("select pgflow.start_flow_with_states('guarded', '[1]')")
        client.execute("select pgflow.get_run_with_states(%s)", (run_id,))
        hijacked = scalar(client, "select current_setting('pgflow_test.hijacked_as', true)")

    assert hijacked in (None, "")


def test_a_pg_temp_type_cannot_hijack_the_internal_helpers_of_a_report(pgflow_conn, login_role):
    """The internal helpers of a report (``_complete_tasks``, ``_fail_task``, the cascade that
    starts the next step and completes the run) run with the search path of the function
    that calls them, pinned to pg_catalog, pg_temp: a worker's temporary domains named like
    built-in types are never used there either."""
    define_flow(pgflow_conn)
    with (
        connect(login_role("pgflow_worker")) as worker,
        connect(login_role("pgflow_client")) as client,
    ):
        run_id = scalar(client, "select run_id from pgflow.start_flow('guarded', '{}')")
        worker.execute(HIJACKING_TYPES)
        worker.execute(
            "select pgflow.register_worker(%s::pg_catalog.uuid, 'guarded', 'role_test')",
            (WORKER_ID,),
        )

        def claim() -> tuple[Any, ...]:
            rows = worker.execute(
                "select run_id, step_slug, task_index, attempts_count"
                " from pgflow.read_and_start_tasks('guarded', %s::pg_catalog.uuid, 30, 5)",
                (WORKER_ID,),
            ).fetchall()
            assert len(rows) == 1, rows
            return tuple(rows[0])

        run, step, index, attempt = claim()
        failed = scalar(
            worker,
            "select status from pgflow.fail_tasks(array[%s::pg_catalog.uuid], array[%s],"
            " array[%s], array['boom'], array[%s])",
            (run, step, index, attempt),
        )
        statuses = []
        for _ in range(2):  # the retry of first completes, then second, and with it the run
            run, step, index, attempt = claim()
            statuses.append(
                scalar(
                    worker,
                    "select status from pgflow.complete_tasks(array[%s::pg_catalog.uuid],"
                    " array[%s], array[%s], array['1'::pg_catalog.jsonb], array[%s])",
                    (run, step, index, attempt),
                )
            )
        hijacked = scalar(worker, "select current_setting('pgflow_test.hijacked_as', true)")

    assert (failed, statuses) == ("queued", ["completed", "completed"])
    assert scalar(pgflow_conn, "select status from pgflow.runs where run_id = %s", (run_id,)) == (
        "completed"
    )
    assert hijacked in (None, "")
