"""The manifest's pgmq requirements agree with the code that uses pgmq (no database)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from pgflow.schema.catalog import load_manifest
from pgflow.worker import queries

ROOT = Path(__file__).resolve().parents[2]


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_manifest", ROOT / "compat" / "generate_manifest.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_manifest_lists_every_pgmq_function_the_sql_and_worker_call() -> None:
    needs = load_manifest()["pgmq"]
    assert needs["functions"] == load_generator().pgmq_functions(), (
        "run `python3 compat/generate_manifest.py`"
    )
    assert {"read", "send_batch", "archive"} <= set(needs["functions"])


def test_worker_reads_only_message_fields_the_manifest_requires() -> None:
    # pgflow.read_and_start_tasks passes pgmq.read's record through as its first columns.
    selected = re.match(r"select (.*?), run_id\b", queries.READ_AND_START_TASKS)
    assert selected, queries.READ_AND_START_TASKS
    columns = [c.strip() for c in selected.group(1).split(",")]
    required = [f["name"] for f in load_manifest()["pgmq"]["message_record_fields"]]
    assert columns == required


def test_manifest_pins_pgmq_1_5_and_upstream_0_14_1() -> None:
    manifest = load_manifest()
    assert manifest["pgmq"]["min_version"] == "1.5"
    assert manifest["upstream"]["version"] == "0.14.1"
