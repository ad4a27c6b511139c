"""compat/manifest.json describes exactly the installed pgflow contract.

When the SQL changes a function signature, a column, a constraint, a record type or a view,
the first test fails listing each difference by path (such as
``functions.complete_task[0].arguments[2].name: manifest "task_index", database "task_idx"``);
if the change is intended, regenerate with ``python3 compat/generate_manifest.py``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pgflow
from pgflow.schema.catalog import (
    CONTRACT_INTERNAL_FUNCTIONS,
    dump_manifest,
    load_manifest,
    snapshot,
)

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "compat" / "manifest.json"
REGENERATE = "python3 compat/generate_manifest.py"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_manifest", ROOT / "compat" / "generate_manifest.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """{"a": {"b": [1]}} -> {"a.b[0]": 1}: every leaf under a readable path."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key in sorted(value):
            out.update(flatten(value[key], f"{path}.{key}" if path else key))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{path}[{i}]"))
        return out
    return {path: value}


def contract_diff(expected: dict[str, Any], found: dict[str, Any]) -> str:
    """One line per differing leaf, by path ("" when equal)."""
    left, right = flatten(expected), flatten(found)
    lines = []
    for path in sorted(set(left) | set(right)):
        if path not in right:
            lines.append(f"  only in the manifest:  {path} = {json.dumps(left[path])}")
        elif path not in left:
            lines.append(f"  only in the database:  {path} = {json.dumps(right[path])}")
        elif left[path] != right[path]:
            lines.append(
                f"  changed:               {path}: manifest {json.dumps(left[path])}, "
                f"database {json.dumps(right[path])}"
            )
    return "\n".join(lines)


def test_installed_catalog_matches_the_manifest(pgflow_dsn: str) -> None:
    expected = json.loads(MANIFEST.read_text())["contract"]
    diff = contract_diff(expected, snapshot(pgflow_dsn))
    assert not diff, (
        f"the installed pgflow contract differs from compat/manifest.json; if the change is "
        f"intended, run `{REGENERATE}` and review the diff:\n{diff}"
    )


def test_generator_check_passes_against_the_installed_database(pgflow_dsn: str) -> None:
    assert load_generator().main(["--dsn", pgflow_dsn, "--check"]) == 0, (
        f"compat/manifest.json is stale (pgmq requirements or contract): run `{REGENERATE}`"
    )


def test_a_divergence_is_reported_as_a_readable_diff(pgflow_dsn: str) -> None:
    expected = json.loads(MANIFEST.read_text())["contract"]
    changed = copy.deepcopy(expected)
    changed["functions"]["complete_task"][0]["arguments"][2]["name"] = "task_idx"

    diff = contract_diff(changed, snapshot(pgflow_dsn))

    assert diff == (
        "  changed:               functions.complete_task[0].arguments[2].name: "
        'manifest "task_idx", database "task_index"'
    )


def test_manifest_is_for_this_package_version_and_serialised_deterministically() -> None:
    text = MANIFEST.read_text()
    manifest = json.loads(text)
    assert manifest["pgflow_version"] == pgflow.__version__
    assert dump_manifest(manifest) == text, "sorted keys, 2-space indent, final newline"


def test_the_package_ships_the_same_manifest() -> None:
    packaged = ROOT / "python_worker" / "pgflow" / "compat" / "manifest.json"
    assert packaged.read_text() == MANIFEST.read_text(), f"run `{REGENERATE}`"
    assert load_manifest() == json.loads(MANIFEST.read_text())


def test_internal_functions_in_the_contract_are_the_upstream_named_ones() -> None:
    functions = load_manifest()["contract"]["functions"]
    upstream = (ROOT / "compat" / "UPSTREAM.md").read_text()
    private = {n for n in functions if n.startswith("_")}
    assert private == set(CONTRACT_INTERNAL_FUNCTIONS)
    for name in private:
        assert name in upstream, f"{name} is not listed in compat/UPSTREAM.md"
