"""Reading the SQL sources as statements: the splitter ``extension/build.py`` builds from.

Standard library only; ``build.py`` loads this file by its path (it runs as a script, and
``setup.py`` loads it the same way), so it is never imported as a package module.
"""

from __future__ import annotations

import re


class BuildError(Exception):
    """A source that does not build, or a released script that changed."""


#: A statement that creates, comments on or alters a function or procedure.
FUNCTION_STATEMENT = re.compile(
    r"(create|comment\s+on|alter)\s+(or\s+replace\s+)?(function|procedure)\b", re.I
)
_CREATE = re.compile(r"create\s+(function|procedure)\b", re.I)
#: Triggers go with the functions they call (CREATE OR REPLACE TRIGGER: PostgreSQL 14+).
_CREATE_TRIGGER = re.compile(r"create\s+trigger\b", re.I)
#: A statement that comments on a table, view, type or column.
OBJECT_COMMENT = re.compile(r"comment\s+on\s+(table|view|type|column)\b", re.I)

# What the splitter must look at: comments, quotes, dollar quotes and semicolons.
_TOKEN = re.compile(r"--|/\*|(?<![\w$])[eE]'|'|\"|(?<![\w$])\$(?:[A-Za-z_]\w*)?\$|;")
_BLOCK = re.compile(r"/\*|\*/")


def split_statements(text: str, name: str = "<sql>") -> list[str]:
    """Split SQL text at top-level semicolons.

    Each piece keeps everything since the previous semicolon (leading comments and blank
    lines included) and its own semicolon; trailing text without one is returned too.
    Semicolons in comments (``--``, nested ``/* */``), strings (``'...'``, ``E'...'``),
    quoted identifiers and dollar-quoted bodies do not split.

    Raises:
        BuildError: a quote or block comment is not closed (``name`` says where).
    """
    pieces: list[str] = []
    start = i = 0
    while match := _TOKEN.search(text, i):
        token, i = match.group(), match.end()
        if token == ";":
            pieces.append(text[start:i])
            start = i
            continue
        if token == "--":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end + 1
        elif token == "/*":
            end = _comment_end(text, i)
        elif token.endswith("'"):
            end = _string_end(text, i, escapes=len(token) == 2)
        else:  # a quoted identifier or a dollar quote: up to the same token
            end = text.find(token, i)
            end = end + len(token) if end >= 0 else -1
        if end < 0:
            line = text.count("\n", 0, match.start()) + 1
            raise BuildError(f"{name}:{line}: {token} is never closed")
        i = end
    if text[start:].strip():
        pieces.append(text[start:])
    return pieces


def _comment_end(text: str, i: int) -> int:
    """Index after the ``*/`` closing a block comment opened before ``i``, or -1."""
    depth = 1
    while depth:
        match = _BLOCK.search(text, i)
        if not match:
            return -1
        depth += 1 if match.group() == "/*" else -1
        i = match.end()
    return i


def _string_end(text: str, i: int, escapes: bool) -> int:
    """Index after the quote closing a string that starts at ``i``, or -1."""
    while i < len(text):
        if escapes and text[i] == "\\":
            i += 2
        elif text[i] != "'":
            i += 1
        elif text.startswith("''", i):
            i += 2
        else:
            return i + 1
    return -1


def statement_code(statement: str) -> str:
    """The statement without its leading comments and blank lines."""
    lines = statement.split("\n")
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("--")):
        lines.pop(0)
    return "\n".join(lines)


def function_statements(text: str, name: str = "<sql>") -> list[str]:
    """The function part of one source: its CREATE, COMMENT ON and ALTER FUNCTION statements.

    ``create function`` (or ``procedure``) becomes ``create or replace function``, and
    ``create trigger`` (triggers call the functions) ``create or replace trigger``; each
    statement keeps its leading comments. Everything else in ``text`` is dropped.
    """
    out = []
    for statement in split_statements(text, name):
        code = statement_code(statement)
        head = len(statement) - len(code)
        if _CREATE_TRIGGER.match(code):
            replaced = _CREATE_TRIGGER.sub("create or replace trigger", code, count=1)
            out.append(statement[:head] + replaced)
            continue
        if not FUNCTION_STATEMENT.match(code):
            continue
        replaced = _CREATE.sub(lambda m: f"create or replace {m.group(1).lower()}", code, count=1)
        out.append(statement[:head] + replaced)
    return out


def object_comments(text: str, name: str = "<sql>") -> list[str]:
    """Every ``COMMENT ON`` a table, view, type or column of one source.

    Comments are idempotent, so an upgrade and an adoption apply them all: a comment changed
    in the sources needs nothing hand-written.
    """
    return [s for s in split_statements(text, name) if OBJECT_COMMENT.match(statement_code(s))]
