"""pgflow.schema.check without a database: evaluation of facts and report rendering."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pgflow.errors import SchemaVersionMismatch
from pgflow.schema import check as schema_check
from pgflow.schema.catalog import load_manifest
from pgflow.schema.check import Finding, SchemaReport, evaluate, worker_errors

MANIFEST = load_manifest()
VERSION = MANIFEST["pgflow_version"]


def good_facts() -> dict[str, Any]:
    """Facts of a database that matches the manifest exactly."""
    fields = [dict(f) for f in MANIFEST["pgmq"]["message_record_fields"]]
    fields.insert(3, {"name": "last_read_at", "type": "timestamp with time zone"})
    return {
        "database": "app",
        "pgflow": {
            "installed": True,
            "version": VERSION,
            "install_method": "extension",
            "extension_version": VERSION,
        },
        "contract": copy.deepcopy(MANIFEST["contract"]),
        "pgmq": {
            "installed": True,
            "extension_version": "1.13.0",
            "message_record_fields": fields,
            "functions": list(MANIFEST["pgmq"]["functions"]),
            "relations": list(MANIFEST["pgmq"]["relations"]),
            "notify_available": True,
        },
        "flows": [],
        "pg_cron": {"installed": False, "version": None, "jobs_readable": False, "jobs": []},
    }


def flow(slug: str, **overrides: Any) -> dict[str, Any]:
    facts = {
        "flow_slug": slug,
        "queue_table": True,
        "queue_registered": True,
        "notify_trigger": {"deferrable": True, "enabled": True},
        "notify_throttle": True,
    }
    return facts | overrides


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def test_matching_database_gives_an_ok_report() -> None:
    report = evaluate(good_facts(), MANIFEST)

    assert (report.errors, report.warnings) == ([], [])
    assert report.ok and report.exit_code == 0
    assert report.to_text() == (
        "pgflow check-schema: database app\n"
        f"  pgflow   {VERSION} (extension); contract {VERSION} (upstream pgflow 0.14.1)\n"
        "  pgmq     1.13.0 (extension); needs >= 1.5\n"
        "  pg_cron  not installed in this database\n"
        "  flows    0\n"
        "\n"
        "OK: 0 errors, 0 warnings"
    )


def test_text_report_lists_errors_then_warnings_with_expected_found_and_hint() -> None:
    report = SchemaReport(
        errors=[
            Finding(
                "function_signature_mismatch",
                "function pgflow.f: argument 1 is b integer, expected a integer",
                {
                    "function": "f",
                    "expected": ["pgflow.f(a integer)"],
                    "found": ["pgflow.f(b integer)"],
                },
                "restore it",
            )
        ],
        warnings=[Finding("cron_job_missing", "no job", {}, "schedule it")],
        facts={"database": "db", "pgmq_install": "sql", "pgmq_version": None},
    )

    text = report.to_text()

    assert text.split("\n\n", 1)[1] == (
        "Errors (1):\n"
        "  - [function_signature_mismatch] function pgflow.f: argument 1 is b integer, "
        "expected a integer\n"
        "      expected: pgflow.f(a integer)\n"
        "      found:    pgflow.f(b integer)\n"
        "      hint:     restore it\n"
        "\n"
        "Warnings (1):\n"
        "  - [cron_job_missing] no job\n"
        "      hint:     schedule it\n"
        "\n"
        "FAILED: 1 error, 1 warning"
    )
    assert "  pgflow   not installed;" in text
    assert "  pgmq     version not recorded (plain SQL); needs >= None" in text
    assert report.exit_code == 1
    assert str(report) == text


def test_json_report_has_ok_facts_and_findings() -> None:
    facts = good_facts()
    facts["flows"] = [flow("quiet", notify_trigger=None)]

    data = json.loads(evaluate(facts, MANIFEST).to_json())

    assert data["ok"] is True
    assert data["errors"] == []
    assert data["facts"]["flows"] == 1
    assert data["warnings"] == [
        {
            "code": "notify_trigger_missing",
            "message": "flow 'quiet': queue pgmq.q_quiet has no "
            "trigger_notify_queue_insert_listeners trigger, so workers only notice new tasks "
            "when they poll",
            "details": {"flow_slug": "quiet"},
            "hint": "start a pgflow worker for the flow, or "
            "select pgmq.enable_notify_insert('quiet')",
        }
    ]


@pytest.mark.parametrize(
    ("version", "ok"),
    [("1.4.5", False), ("1.5", True), ("1.5.0", True), ("1.10.0", True), ("1.13.0", True)],
)
def test_pgmq_extension_version_is_compared_numerically(version: str, ok: bool) -> None:
    facts = good_facts()
    facts["pgmq"]["extension_version"] = version

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ([] if ok else ["pgmq_version_too_old"])


def test_plain_sql_pgmq_is_judged_by_its_fields_and_functions() -> None:
    facts = good_facts()
    facts["pgmq"]["extension_version"] = None
    facts["pgmq"]["functions"].remove("send_batch")
    facts["pgmq"]["message_record_fields"] = [
        f for f in facts["pgmq"]["message_record_fields"] if f["name"] != "headers"
    ]

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["pgmq_message_record_mismatch", "pgmq_function_missing"]
    assert "headers is missing" in report.errors[0].message
    assert "pgmq.send_batch" in report.errors[1].message
    assert report.facts["pgmq_install"] == "sql"


def test_function_changes_are_classified() -> None:
    facts = good_facts()
    functions = facts["contract"]["functions"]
    del functions["fail_task"]
    functions["start_tasks"][0]["volatility"] = "stable"
    functions["complete_task"][0]["returns"] = "void"
    functions["my_helper"] = [copy.deepcopy(functions["version"][0])]

    report = evaluate(facts, MANIFEST)

    assert sorted(codes(report.errors)) == [
        "function_attributes_mismatch",
        "function_missing",
        "function_signature_mismatch",
    ]
    messages = {e.code: e.message for e in report.errors}
    assert messages["function_attributes_mismatch"] == (
        "function pgflow.start_tasks: volatility is stable, expected volatile"
    )
    assert (
        "returns void, expected SETOF pgflow.step_tasks"
        in (messages["function_signature_mismatch"])
    )
    assert codes(report.warnings) == ["function_unexpected"]
    assert all(e.hint and "changed after install" in e.hint for e in report.errors)


def test_contract_differences_of_an_older_schema_point_to_migrate() -> None:
    facts = good_facts()
    facts["pgflow"]["version"] = "0.0.1"
    del facts["contract"]["functions"]["fail_task"]

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["pgflow_version_mismatch", "function_missing"]
    assert report.errors[1].hint == f"expected after `pgflow migrate` from 0.0.1 to {VERSION}"


def test_table_column_order_type_and_default_changes_are_errors() -> None:
    facts = good_facts()
    columns = facts["contract"]["tables"]["flows"]["columns"]
    columns[1], columns[2] = columns[2], columns[1]
    columns[3] = columns[3] | {"type": "bigint", "default": None}

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["table_columns_mismatch"]
    message = report.errors[0].message
    assert message.startswith("table pgflow.flows: columns are in the order (flow_slug, ")
    assert f"column {columns[3]['name']} is bigint, expected integer" in message
    assert f"column {columns[3]['name']} has default none, expected 60" in message


def test_constraint_and_record_type_changes() -> None:
    facts = good_facts()
    contract = facts["contract"]
    del contract["tables"]["steps"]["constraints"]["steps_pkey"]
    contract["tables"]["steps"]["constraints"]["my_check"] = "c"
    contract["types"]["step_task_record"].pop()

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["constraint_missing", "record_type_mismatch"]
    assert report.errors[0].message == (
        "table pgflow.steps has no primary key constraint steps_pkey"
    )
    assert report.errors[1].message == (
        "type pgflow.step_task_record: column flow_input is missing"
    )
    assert codes(report.warnings) == ["constraint_unexpected"]


def test_flow_queue_findings() -> None:
    facts = good_facts()
    facts["flows"] = [
        flow("a" * 48, queue_table=False),
        flow("gone", queue_table=False),
        flow("MixedCase", notify_trigger=None, notify_throttle=False),
        flow("lazy", notify_trigger={"deferrable": False, "enabled": False}, notify_throttle=False),
        flow("orphan", queue_registered=False),
    ]

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["flow_queue_name_too_long", "flow_queue_missing"]
    assert codes(report.warnings) == [
        "notify_unsupported_queue_name",
        "notify_trigger_not_deferrable",
        "notify_trigger_disabled",
        "notify_throttle_missing",
        "flow_queue_unregistered",
    ]


def test_pgmq_without_notify_support_is_one_warning() -> None:
    facts = good_facts()
    facts["pgmq"]["notify_available"] = False
    facts["flows"] = [flow("a", notify_trigger=None, notify_throttle=None), flow("b")]

    report = evaluate(facts, MANIFEST)

    assert report.ok
    assert codes(report.warnings) == ["pgmq_notify_unavailable"]


@pytest.mark.parametrize(
    ("jobs", "readable", "expected"),
    [
        ([], True, ["cron_job_missing"]),
        ([{"database": "other", "active": True}], True, ["cron_job_missing"]),
        ([{"database": "app", "active": False}], True, ["cron_job_inactive"]),
        ([{"database": "app", "active": True}], True, []),
        ([], False, ["cron_job_unreadable"]),
    ],
)
def test_cron_job_findings(jobs: list[dict[str, Any]], readable: bool, expected: list[str]) -> None:
    facts = good_facts()
    facts["pg_cron"] = {
        "installed": True,
        "version": "1.4-1",
        "jobs_readable": readable,
        "jobs": jobs,
    }

    report = evaluate(facts, MANIFEST)

    assert report.ok
    assert codes(report.warnings) == expected


def test_missing_pgflow_and_pgmq() -> None:
    facts = good_facts()
    facts["pgflow"] = {
        "installed": False,
        "version": None,
        "install_method": None,
        "extension_version": None,
    }
    facts["contract"] = None
    facts["pgmq"] = {
        "installed": False,
        "extension_version": None,
        "message_record_fields": None,
        "functions": [],
        "relations": [],
        "notify_available": False,
    }
    facts["flows"] = None

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["pgflow_not_installed", "pgmq_not_installed"]
    assert "  pgflow   not installed;" in report.to_text()
    assert "  flows" not in report.to_text()


def test_newer_installed_schema_does_not_suggest_migrate() -> None:
    facts = good_facts()
    facts["pgflow"]["version"] = "99.0.0"

    report = evaluate(facts, MANIFEST)

    assert codes(report.errors) == ["pgflow_version_mismatch"]
    assert report.errors[0].hint == "use the pgflow package of the installed version"


def test_worker_ignores_errors_about_flows_it_does_not_serve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts = good_facts()
    facts["flows"] = [flow("mine", queue_table=False), flow("theirs", queue_table=False)]
    report = evaluate(facts, MANIFEST)
    monkeypatch.setattr(schema_check, "check_schema", lambda conn: report)

    assert codes(worker_errors(report)) == []
    assert [e.details["flow_slug"] for e in worker_errors(report, ["mine"])] == ["mine"]
    schema_check.check_worker_compatibility(None)  # type: ignore[arg-type]
    with pytest.raises(SchemaVersionMismatch) as raised:
        schema_check.check_worker_compatibility(None, ["mine"])  # type: ignore[arg-type]
    assert str(raised.value).splitlines() == [
        f"the database is not compatible with pgflow {VERSION} (1 error; "
        "`pgflow check-schema` shows the full report):",
        "  - flow 'mine': its queue table pgmq.q_mine does not exist (select pgmq.create('mine'))",
    ]
