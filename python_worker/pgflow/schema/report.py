"""Findings and the report of ``pgflow check-schema`` (see :mod:`pgflow.schema.check`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One difference between the database and what pgflow needs.

    Attributes:
        code: stable identifier, such as ``function_signature_mismatch``.
        message: one readable sentence naming the object and the difference.
        details: JSON-able data (object names, ``expected`` / ``found`` values).
        hint: how to fix it, when there is a usual way.
    """

    code: str
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the finding as a JSON-able dict."""
        return {
            "code": self.code,
            "message": self.message,
            "details": dict(self.details),
            "hint": self.hint,
        }


@dataclass(frozen=True)
class SchemaReport:
    """Result of :func:`pgflow.schema.check.check_schema`.

    Attributes:
        errors: findings that make the database unusable or incompatible.
        warnings: findings that degrade it (slower wake-ups, no pg_cron job for
            requeue_stalled_tasks, extra objects).
        facts: what was found: database, versions, install methods, number of flows.
    """

    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings allowed)."""
        return not self.errors

    @property
    def exit_code(self) -> int:
        """Exit status of ``pgflow check-schema``: 1 with errors, else 0."""
        return 0 if self.ok else 1

    def to_json(self) -> str:
        """Return the report as indented JSON (``ok``, ``facts``, ``errors``, ``warnings``)."""
        data = {
            "ok": self.ok,
            "facts": self.facts,
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }
        return json.dumps(data, indent=2, sort_keys=True, default=str)

    def to_text(self) -> str:
        """Return the report as readable text: facts, errors, warnings, a verdict line."""
        f = self.facts
        lines = [f"pgflow check-schema: database {f.get('database') or '?'}"]
        pgflow = _describe_install(f.get("pgflow_version"), f.get("pgflow_install"))
        pgmq = _describe_install(f.get("pgmq_version"), f.get("pgmq_install"))
        lines.append(
            f"  pgflow   {pgflow}; contract {f.get('manifest_version')} "
            f"(upstream pgflow {f.get('upstream_version')})"
        )
        lines.append(f"  pgmq     {pgmq}; needs >= {f.get('pgmq_min_version')}")
        cron = f.get("pg_cron_version")
        lines.append(f"  pg_cron  {cron if cron else 'not installed in this database'}")
        if f.get("flows") is not None:
            lines.append(f"  flows    {f['flows']}")
        for title, findings in (("Errors", self.errors), ("Warnings", self.warnings)):
            if findings:
                lines.append("")
                lines.append(f"{title} ({len(findings)}):")
                for finding in findings:
                    lines.extend(_render_finding(finding))
        lines.append("")
        counts = f"{plural(len(self.errors), 'error')}, {plural(len(self.warnings), 'warning')}"
        lines.append(f"{'OK' if self.ok else 'FAILED'}: {counts}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def plural(n: int, word: str) -> str:
    """``plural(2, "error")`` -> ``"2 errors"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _describe_install(version: str | None, method: str | None) -> str:
    if method is None:
        return "not installed"
    names = {"extension": "extension", "sql": "plain SQL", "unknown": "install method unknown"}
    how = names.get(method, method)
    return f"{version or 'version not recorded'} ({how})"


def _render_finding(finding: Finding) -> list[str]:
    lines = [f"  - [{finding.code}] {finding.message}"]
    for key in ("expected", "found"):
        value = finding.details.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        label = f"{key}:"
        for item in values or ["(nothing)"]:
            lines.append(f"      {label:<9} {item}")
            label = ""
    if finding.hint:
        lines.append(f"      hint:     {finding.hint}")
    return lines


class Findings:
    """Collects the errors and warnings of one check."""

    def __init__(self) -> None:
        self.errors: list[Finding] = []
        self.warnings: list[Finding] = []

    def error(self, code: str, message: str, hint: str | None = None, **details: Any) -> None:
        """Record an error; ``details`` become the finding's details."""
        self.errors.append(Finding(code, message, details, hint))

    def warn(self, code: str, message: str, hint: str | None = None, **details: Any) -> None:
        """Record a warning; ``details`` become the finding's details."""
        self.warnings.append(Finding(code, message, details, hint))
