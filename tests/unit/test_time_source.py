"""One time source (#16): the engine reads the time through ``pgflow._now()`` only.

``pgflow._now()`` is the database's ``now()``, plus the offset a test moved the clock
forward by (``pgflow.advance_clock``) where the test clock is on. A ``now()`` left
somewhere else would not move with the test clock, so a test that advances it would see
that part of the engine stand still.
These checks scan the sources and name ``file:line`` for every time read outside the
allowed spots:

- ``extension/sql/*.sql`` (comments and ``COMMENT ON`` texts left out): ``now()``,
  ``current_timestamp``, ``statement_timestamp()``, ``transaction_timestamp()``,
  ``localtimestamp`` (and the like) only in ``033__now.sql`` and ``032__test_clock_now.sql``
  (the source itself and the test clock it reads) and as
  column defaults of upstream's tables and ``installed_versions`` (010, 040, 050: catalog
  parity with upstream; our INSERTs set those columns from ``pgflow._now()``);
  ``clock_timestamp()`` only where a pgmq visibility time (``vt``) is written or compared
  (queue space: pgmq decides visibility on it) and in the test clock's own bookkeeping.
- The SQL of the package's Python modules (docstrings and comments left out): no
  ``now()`` at all, except ``worker/modes.py`` (upstream mode: a database without our
  functions) and ``testing/``.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SQL_DIR = ROOT / "extension" / "sql"
PACKAGE = ROOT / "python_worker" / "pgflow"

#: Reads of the transaction's or the statement's time (not pgflow._now(): ``_now`` is
#: preceded by a word character).
_NOW = re.compile(
    r"(?<![\w$])(?:now\s*\(\s*\)|current_timestamp\b|current_time\b|current_date\b"
    r"|statement_timestamp\s*\(|transaction_timestamp\s*\(|localtimestamp\b|localtime\b"
    r"|timeofday\s*\()|'(?:now|today|tomorrow|yesterday)'",
    re.IGNORECASE,
)
#: The wall clock pgmq decides visibility on.
_CLOCK = re.compile(r"(?<![\w$])clock_timestamp\s*\(", re.IGNORECASE)

#: The source of the engine's time and the test clock it reads.
NOW_SOURCES = frozenset({"033__now.sql", "032__test_clock_now.sql"})
#: Files whose column defaults keep now(): upstream's tables (040, 050) and the install
#: time of a version (010).
DEFAULT_NOW_FILES = frozenset(
    {"010_schema.sql", "040_tables_definitions.sql", "050_tables_runtime.sql"}
)
#: Queue space (a pgmq vt written or compared) and the test clock's own bookkeeping.
CLOCK_FILES = frozenset(
    {
        "031_tables_test_clock.sql",
        "601_prune_data_older_than.sql",
        "120_set_vt_batch.sql",
        "123__send_task_messages.sql",
        "638_get_queue_stats.sql",
        "639_get_message_due_in.sql",
        "640_advance_clock.sql",
        "706__resend_parked_tasks.sql",
    }
)
#: Python modules that may read now(): upstream mode (no pgflow._now() in such a database)
#: and the test helpers.
PYTHON_EXEMPT = ("worker/modes.py", "testing/")


def code_only(sql: str) -> str:
    """``sql`` with comments and ``COMMENT ON`` texts blanked (newlines kept).

    Function bodies (dollar-quoted) stay: they are code, and so are the string literals in
    them (dynamic SQL run by EXECUTE).
    """
    out = list(sql)
    i, n = 0, len(sql)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif sql[i] == "'":
            escapes = (
                i > 0
                and sql[i - 1] in "eE"
                and (i < 2 or not (sql[i - 2].isalnum() or sql[i - 2] == "_"))
            )
            j = i + 1
            while j < n:
                if escapes and sql[j] == "\\":
                    j += 2
                    continue
                if sql[j] == "'":
                    if j + 1 < n and sql[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
        else:
            i += 1
    text = "".join(out)
    # COMMENT ON ... IS '<documentation>': the text is prose, not a time read.
    for match in re.finditer(r"(?is)\bcomment\s+on\b[^;']*?\bis\s*('(?:[^']|'')*')", text):
        chars = list(text)
        for k in range(match.start(1), match.end(1)):
            if chars[k] != "\n":
                chars[k] = " "
        text = "".join(chars)
    return text


def sql_time_reads(name: str, sql: str) -> list[str]:
    """``name:line: text`` for each time read of one SQL source outside the allowed spots."""
    code = code_only(sql)
    lines = sql.split("\n")
    found = []
    for pattern, allowed in ((_NOW, _now_allowed), (_CLOCK, _clock_allowed)):
        for match in pattern.finditer(code):
            line_start = code.rfind("\n", 0, match.start()) + 1
            before = code[line_start : match.start()]
            if allowed(name, before):
                continue
            lineno = code.count("\n", 0, match.start()) + 1
            found.append(f"{name}:{lineno}: {lines[lineno - 1].strip()}")
    return found


def _now_allowed(name: str, before: str) -> bool:
    if name in NOW_SOURCES:
        return True
    return (
        name in DEFAULT_NOW_FILES and re.search(r"\bdefault\s+(pg_catalog\.)?$", before) is not None
    )


def _clock_allowed(name: str, before: str) -> bool:
    return name in CLOCK_FILES


def python_time_reads(name: str, source: str) -> list[str]:
    """``name:line: text`` for each ``now()`` in the string literals of a Python module.

    Docstrings are left out (prose), and so are comments (not string literals).
    """
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                docstrings.add(body[0].value.lineno)
    lines = source.split("\n")
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING or token.start[0] in docstrings:
            continue
        for match in _NOW.finditer(token.string):
            lineno = token.start[0] + token.string.count("\n", 0, match.start())
            found.append(f"{name}:{lineno}: {lines[lineno - 1].strip()}")
    return found


def python_modules() -> list[Path]:
    return sorted(
        p
        for p in PACKAGE.rglob("*.py")
        if not any(p.relative_to(PACKAGE).as_posix().startswith(e) for e in PYTHON_EXEMPT)
    )


def test_the_engine_reads_the_time_only_through_pgflow_now() -> None:
    found = [
        hit
        for path in sorted(SQL_DIR.glob("*.sql"))
        for hit in sql_time_reads(path.name, path.read_text())
    ]
    assert not found, (
        "time read outside pgflow._now() (use a v_now variable in plpgsql, "
        "(select pgflow._now()) in SQL; clock_timestamp() only for a pgmq vt):\n" + "\n".join(found)
    )


def test_the_python_sql_reads_the_engine_time() -> None:
    found = [
        hit
        for path in python_modules()
        for hit in python_time_reads(path.relative_to(PACKAGE).as_posix(), path.read_text())
    ]
    assert not found, "now() in the package's SQL (use pgflow._now()):\n" + "\n".join(found)


def test_the_allowed_files_exist() -> None:
    # A renamed file would silently lose (or keep) its exemption.
    names = {p.name for p in SQL_DIR.glob("*.sql")}
    assert names >= NOW_SOURCES | DEFAULT_NOW_FILES | CLOCK_FILES
    assert (PACKAGE / "worker" / "modes.py").is_file()
    assert len(python_modules()) > 50


@pytest.mark.parametrize(
    ("name", "sql", "lines"),
    [
        ("300_x.sql", "begin\n  update t set a = now();\nend;", [2]),
        ("300_x.sql", "select pg_catalog.now() ", [1]),
        ("300_x.sql", "select current_timestamp,\n localtimestamp", [1, 2]),
        ("300_x.sql", "x := statement_timestamp();", [1]),
        ("300_x.sql", "x := clock_timestamp();", [1]),
        ("300_x.sql", "x := '2020-01-01'::timestamptz < 'now'::timestamptz;", [1]),
        ("300_x.sql", "execute 'select now()';", [1]),
        ("040_tables_definitions.sql", "  created_at timestamptz not null default now(),", []),
        ("040_tables_definitions.sql", "  update t set a = now();", [1]),
        ("120_set_vt_batch.sql", "set vt = clock_timestamp() + x", []),
        ("120_set_vt_batch.sql", "set vt = now() + x", [1]),
        ("300_x.sql", "x := pgflow._now(); y := v_now; -- now()\n/* now() */", []),
        ("300_x.sql", "comment on function f(int) is\n'Stamps now() and clock_timestamp().';", []),
        # (an escaped quote does not end an E-string: the comment after it is one)
        ("300_x.sql", "x := E'it\\'s'; -- now()", []),
        ("300_x.sql", "x := E'it\\'s' || now();", [1]),
    ],
)
def test_the_sql_scan_flags_what_it_should(name: str, sql: str, lines: list[int]) -> None:
    hits = sql_time_reads(name, sql)
    assert [int(h.split(":")[1]) for h in hits] == lines, hits


def test_the_python_scan_flags_sql_and_skips_prose() -> None:
    source = (
        '"""Module: the database\'s now()."""\n'
        "\n"
        "# a comment: now()\n"
        'Q = "select pgflow._now(), (select pgflow._now())"\n'
        'R = (\n    "select 1,"\n    " now() as t"\n)\n'
        "\n"
        "def f() -> str:\n"
        '    """now() in a docstring."""\n'
        '    return """select\n  now()"""\n'
    )
    assert python_time_reads("m.py", source) == ['m.py:7: " now() as t"', 'm.py:13: now()"""']
