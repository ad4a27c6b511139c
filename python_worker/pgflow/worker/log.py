"""Structured logging for the worker, on the stdlib ``logging`` module.

Every record may carry fields (``worker_id``, ``flow_slug``, ``run_id``, ``step_slug``,
``task_index``, ``attempt``, ``duration_ms``, ...) passed as ``extra={"fields": {...}}``
(see :func:`fields`). Two renderings:

- ``json``: one JSON object per line: ``ts``, ``level``, ``logger``, ``msg``, the fields,
  and ``exc`` (the formatted traceback) when there is one;
- ``text``: ``2026-01-01T12:00:00.123Z INFO  pgflow.worker: task completed run_id=... ``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping
from typing import Any, Literal

LogFormat = Literal["json", "text"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")

#: Logger of the worker machinery; handlers' own loggers go through the same root handler.
logger = logging.getLogger("pgflow.worker")


def fields(**values: Any) -> dict[str, Any]:
    """Return the ``extra`` mapping that attaches structured fields to a log call.

    Example: ``logger.info("task completed", extra=fields(run_id=..., attempt=1))``.
    """
    return {"fields": values}


#: Longest text a log field carries, in characters (as the error text SQL stores).
MAX_FIELD_CHARS = 16384


def bounded(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """Return ``text`` bounded to about ``limit`` characters.

    A longer text becomes its first and last ``limit // 2`` characters around a line saying
    how many were cut, as ``pgflow._bounded_error_text`` stores a long error message.
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


def _timestamp(record: logging.LogRecord) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


def _record_fields(record: logging.LogRecord) -> Mapping[str, Any]:
    value = getattr(record, "fields", None)
    return value if isinstance(value, Mapping) else {}


class JsonFormatter(logging.Formatter):
    """Render each record as one JSON object on one line."""

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as a JSON line (fields never override the base keys)."""
        data: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in _record_fields(record).items():
            data.setdefault(key, value)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """Render each record as a human-readable line with ``key=value`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        """Return ``<ts> <LEVEL> <logger>: <msg> key=value ...`` (+ traceback lines)."""
        parts = [f"{_timestamp(record)} {record.levelname:<5} {record.name}: {record.getMessage()}"]
        for key, value in _record_fields(record).items():
            text = value if isinstance(value, str) else json.dumps(value, default=str)
            if isinstance(value, str) and (" " in value or not value):
                text = json.dumps(value)
            parts.append(f"{key}={text}")
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(log_format: LogFormat = "text", level: str | int = "INFO") -> None:
    """Send all log records (the worker's and the handlers') to stderr in one format.

    Replaces the root logger's handlers, so call it once, from the command line entry.

    Args:
        log_format: ``"json"`` (one object per line) or ``"text"``.
        level: the root logger level (name or number).
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
