"""Compare a contract read from a database with the manifest's (``pgflow check-schema``).

Both sides have the shape returned by :func:`pgflow.schema.catalog.contract_plan`. Every
difference in a contract object is an error; objects the manifest does not know are
warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pgflow.schema.catalog import SCHEMA
from pgflow.schema.report import Finding, Findings, plural


def compare_contract(
    out: Findings,
    found: Mapping[str, Any],
    expected: Mapping[str, Any],
    hint: str | None = None,
) -> None:
    """Record in ``out`` how the ``found`` contract differs from the ``expected`` one.

    Args:
        out: where errors and warnings go.
        found: the contract read from the database.
        expected: the manifest's contract.
        hint: given to every error recorded here.
    """
    start = len(out.errors)
    _compare(out, found, expected)
    out.errors[start:] = [
        Finding(e.code, e.message, e.details, e.hint or hint) for e in out.errors[start:]
    ]


def _compare(out: Findings, found: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    _check_functions(out, found["functions"], expected["functions"])
    for name, table in expected["tables"].items():
        live = found["tables"].get(name)
        if live is None:
            out.error("table_missing", f"table {SCHEMA}.{name} does not exist", table=name)
            continue
        diffs = _field_differences(table["columns"], live["columns"])
        if diffs:
            out.error(
                "table_columns_mismatch",
                f"table {SCHEMA}.{name}: {'; '.join(diffs)}",
                table=name,
                expected=[_column(c) for c in table["columns"]],
                found=[_column(c) for c in live["columns"]],
            )
        _check_constraints(out, name, table["constraints"], live["constraints"])
    _check_fields(out, "type", "record_type", found["types"], expected["types"])
    _check_fields(out, "view", "view_columns", found["views"], expected["views"])
    for kind, key in (("table", "tables"), ("type", "types"), ("view", "views")):
        for name in sorted(set(found[key]) - set(expected[key])):
            out.warn(
                f"{kind}_unexpected",
                f"{kind} {SCHEMA}.{name} is not part of the pgflow {kind}s this package knows",
                **{kind: name},
            )


def _check_functions(
    out: Findings, found: Mapping[str, list[Any]], expected: Mapping[str, list[Any]]
) -> None:
    for name, overloads in expected.items():
        live = found.get(name, [])
        if not live:
            out.error(
                "function_missing",
                f"function {SCHEMA}.{name} does not exist",
                function=name,
                expected=[_signature(name, o) for o in overloads],
            )
            continue
        if live == overloads:
            continue
        if len(live) == len(overloads) == 1:
            signature, attributes = _overload_differences(overloads[0], live[0])
        else:
            signature = [
                f"has {plural(len(live), 'overload')}, the contract "
                f"{plural(len(overloads), 'overload')}"
            ]
            attributes = []
        code = "function_signature_mismatch" if signature else "function_attributes_mismatch"
        out.error(
            code,
            f"function {SCHEMA}.{name}: {'; '.join(signature + attributes)}",
            function=name,
            expected=[_signature(name, o) for o in overloads],
            found=[_signature(name, o) for o in live],
        )
    for name in sorted(set(found) - set(expected)):
        out.warn(
            "function_unexpected",
            f"function {SCHEMA}.{name} is not part of the contract this package knows",
            function=name,
            found=[_signature(name, o) for o in found[name]],
        )


def _overload_differences(
    exp: Mapping[str, Any], got: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """Return (signature differences, attribute differences) between two overloads."""
    signature: list[str] = []
    exp_args, got_args = exp["arguments"], got["arguments"]
    if len(exp_args) != len(got_args):
        signature.append(f"{plural(len(got_args), 'argument')}, expected {len(exp_args)}")
    for i, (e, g) in enumerate(zip(exp_args, got_args, strict=False), start=1):
        if (e["name"], e["type"], e["mode"]) != (g["name"], g["type"], g["mode"]):
            signature.append(f"argument {i} is {_arg(g, False)}, expected {_arg(e, False)}")
        elif e["default"] != g["default"]:
            signature.append(
                f"argument {i} ({e['name']}) has default {g['default'] or 'none'}, "
                f"expected {e['default'] or 'none'}"
            )
    for e in exp_args[len(got_args) :]:
        signature.append(f"argument {_arg(e)} is missing")
    for g in got_args[len(exp_args) :]:
        signature.append(f"extra argument {_arg(g)}")
    if exp["returns"] != got["returns"]:
        signature.append(f"returns {got['returns']}, expected {exp['returns']}")
    attributes = [
        f"{key.replace('_', ' ')} is {got[key]}, expected {exp[key]}"
        for key in ("kind", "volatility", "security_definer")
        if exp[key] != got[key]
    ]
    return signature, attributes


def _check_constraints(
    out: Findings, table: str, expected: Mapping[str, str], found: Mapping[str, str]
) -> None:
    for name, kind in sorted(expected.items()):
        if name not in found:
            out.error(
                "constraint_missing",
                f"table {SCHEMA}.{table} has no {_CONSTRAINT_KINDS.get(kind, kind)} "
                f"constraint {name}",
                table=table,
                constraint=name,
            )
        elif found[name] != kind:
            out.error(
                "constraint_mismatch",
                f"constraint {name} of {SCHEMA}.{table} is a "
                f"{_CONSTRAINT_KINDS.get(found[name], found[name])} constraint, expected "
                f"{_CONSTRAINT_KINDS.get(kind, kind)}",
                table=table,
                constraint=name,
            )
    for name in sorted(set(found) - set(expected)):
        out.warn(
            "constraint_unexpected",
            f"table {SCHEMA}.{table} has a constraint {name} the contract does not list",
            table=table,
            constraint=name,
        )


_CONSTRAINT_KINDS = {
    "p": "primary key",
    "f": "foreign key",
    "u": "unique",
    "c": "check",
    "x": "exclusion",
    "t": "trigger",
}


def _check_fields(
    out: Findings, kind: str, code: str, found: Mapping[str, Any], expected: Mapping[str, Any]
) -> None:
    for name, fields in expected.items():
        live = found.get(name)
        if live is None:
            out.error(f"{kind}_missing", f"{kind} {SCHEMA}.{name} does not exist", **{kind: name})
            continue
        diffs = _field_differences(fields, live)
        if diffs:
            out.error(
                f"{code}_mismatch",
                f"{kind} {SCHEMA}.{name}: {'; '.join(diffs)}",
                **{kind: name},
                expected=[_column(c) for c in fields],
                found=[_column(c) for c in live],
            )


def _field_differences(
    expected: list[Mapping[str, Any]], found: list[Mapping[str, Any]]
) -> list[str]:
    """Describe how ``found`` columns (or fields) differ from ``expected``, in order."""
    exp = {c["name"]: c for c in expected}
    got = {c["name"]: c for c in found}
    diffs = [f"column {n} is missing" for n in exp if n not in got]
    diffs += [f"extra column {n}" for n in got if n not in exp]
    exp_order = [n for n in exp if n in got]
    got_order = [n for n in got if n in exp]
    if exp_order != got_order:
        diffs.append(
            f"columns are in the order ({', '.join(got_order)}), expected ({', '.join(exp_order)})"
        )
    for n in exp_order:
        e, g = exp[n], got[n]
        if e["type"] != g["type"]:
            diffs.append(f"column {n} is {g['type']}, expected {e['type']}")
        if e.get("not_null") != g.get("not_null"):
            diffs.append(
                f"column {n} is {'NOT NULL' if g.get('not_null') else 'nullable'}, "
                f"expected {'NOT NULL' if e.get('not_null') else 'nullable'}"
            )
        if e.get("default") != g.get("default"):
            diffs.append(
                f"column {n} has default {g.get('default') or 'none'}, "
                f"expected {e.get('default') or 'none'}"
            )
    return diffs


def _column(c: Mapping[str, Any]) -> str:
    text = f"{c['name']} {c['type']}"
    if c.get("not_null"):
        text += " NOT NULL"
    if c.get("default") is not None:
        text += f" DEFAULT {c['default']}"
    return text


_MODE_PREFIX = {"in": "", "out": "OUT ", "inout": "INOUT ", "variadic": "VARIADIC "}


def _arg(a: Mapping[str, Any], with_default: bool = True) -> str:
    text = f"{_MODE_PREFIX.get(a['mode'], a['mode'].upper() + ' ')}{a['name']} {a['type']}".strip()
    if with_default and a["default"] is not None:
        text += f" DEFAULT {a['default']}"
    return text


def _signature(name: str, overload: Mapping[str, Any]) -> str:
    args = ", ".join(_arg(a) for a in overload["arguments"] if a["mode"] != "table")
    extras = [overload["volatility"]]
    if overload["security_definer"]:
        extras.append("security definer")
    if overload["kind"] != "function":
        extras.insert(0, overload["kind"])
    return f"{SCHEMA}.{name}({args}) returns {overload['returns']} [{', '.join(extras)}]"
