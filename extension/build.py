"""Build the pgflow SQL scripts from the sources in ``extension/`` (see extension/README.md).

Usage: ``python extension/build.py [--check]`` (``make build``; the wheel build runs the
same code through ``setup.py``). Standard library only.

Also writes the package's ``sql/pgflow-adopt-upstream-0.14.sql``, which adopts an upstream
pgflow 0.14 database in place (:func:`render_adopt`).

Writes the generated, git-ignored files: ``extension/pgflow--<current>.sql`` (every
``extension/sql`` source in file-name order), ``extension/pgflow--A--<current>.sql`` for
each hand-written ``extension/upgrades/A--<current>.sql`` (the installed_versions row, the
hand-written part, every ``CREATE FUNCTION``, ``COMMENT ON FUNCTION`` and ``ALTER FUNCTION``
statement of every source, creations as ``CREATE OR REPLACE``, then ``select
pgflow.setup_security();``), and the
package's copies in ``python_worker/pgflow/sql/`` (with the released scripts listed in
``extension/released.sha256``) and ``python_worker/pgflow/compat/manifest.json``.

With ``--check`` nothing is written; the exit status is 1 when a source does not build
(an unterminated quote, no ``pgflow.setup_security()``), a released script changed or is
missing, a released version has no chain of upgrades to the current one, or a generated
file is missing or out of date (run ``make build``).
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXT = ROOT / "extension"
MANIFEST = ROOT / "compat" / "manifest.json"
PACKAGE = ROOT / "python_worker" / "pgflow"

_FUNCTION = re.compile(
    r"(create|comment\s+on|alter)\s+(or\s+replace\s+)?(function|procedure)\b", re.I
)
_CREATE = re.compile(r"create\s+(function|procedure)\b", re.I)
#: Triggers go with the functions they call (CREATE OR REPLACE TRIGGER: PostgreSQL 14+).
_CREATE_TRIGGER = re.compile(r"create\s+trigger\b", re.I)
_UPGRADE_NAME = re.compile(r"^(?P<src>[0-9][0-9.]*)--(?P<dst>[0-9][0-9.]*)\.sql$")
_SECURITY_CALL = "select pgflow._align_owners();\nselect pgflow.setup_security();\n"
#: The tables upstream pgflow 0.14 defines; our other tables are new to an adopted database.
UPSTREAM_TABLES = frozenset(
    {"flows", "steps", "deps", "runs", "step_states", "step_tasks", "workers", "worker_functions"}
)
#: The package script that adopts an upstream database, and its hand-written part.
ADOPT_SCRIPT = "pgflow-adopt-upstream-0.14.sql"
ADOPT_HAND = "adopt/upstream-0.14.sql"
_NEW_TABLE = re.compile(r"create\s+table\s+pgflow\.(\w+)", re.I)
_CREATE_INDEX = re.compile(r"create\s+(unique\s+)?index\s+(?!if\s+not\s+exists)", re.I)
_CREATE_VIEW = re.compile(r"create\s+view\s+", re.I)


class BuildError(Exception):
    """A source that does not build, or a released script that changed."""


_INCLUDE = re.compile(r"^-- include: (?P<path>\S+)[ \t]*$", re.M)


def hand_part(path: Path, ext: Path = EXT) -> str:
    """A hand-written part with its ``-- include: <path>`` lines expanded.

    Each such line (path relative to ``extension/``) is replaced by that file: DDL that an
    upgrade and the adoption of upstream both need.

    Raises:
        BuildError: an included file does not exist.
    """

    def included(match: re.Match[str]) -> str:
        target = ext / match["path"]
        if not target.is_file():
            raise BuildError(f"{path.name}: included file {match['path']} does not exist")
        return f"-- ==== {match['path']} ====\n" + target.read_text().rstrip("\n")

    return _INCLUDE.sub(included, path.read_text())


def version(ext: Path = EXT) -> str:
    """Return ``default_version`` of ``pgflow.control``: the current version."""
    text = (ext / "pgflow.control").read_text()
    match = re.search(r"^default_version\s*=\s*'([^']+)'", text, re.M)
    if not match:
        raise BuildError("pgflow.control has no default_version")
    return match.group(1)


# ---------------------------------------------------------------- SQL statements

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


def _code(statement: str) -> str:
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
        code = _code(statement)
        head = len(statement) - len(code)
        if _CREATE_TRIGGER.match(code):
            replaced = _CREATE_TRIGGER.sub("create or replace trigger", code, count=1)
            out.append(statement[:head] + replaced)
            continue
        if not _FUNCTION.match(code):
            continue
        replaced = _CREATE.sub(lambda m: f"create or replace {m.group(1).lower()}", code, count=1)
        out.append(statement[:head] + replaced)
    return out


# ---------------------------------------------------------------- scripts


def sources(ext: Path = EXT) -> list[tuple[str, str]]:
    """``(file name, text)`` of every ``extension/sql`` source, in load order."""
    return [(p.name, p.read_text()) for p in sorted((ext / "sql").glob("*.sql"))]


def render(ext: Path = EXT) -> str:
    """The full script of the current version (``extension/pgflow--<current>.sql``)."""
    current = version(ext)
    parts = [
        f"-- pgflow {current}: generated by extension/build.py from extension/sql/*.sql.\n"
        "-- Do not edit: change the sources and rebuild (make build).\n"
    ]
    for name, text in sources(ext):
        parts.append(f"\n-- ==== {name} ====\n")
        parts.append(text)
    return "".join(parts).replace("@PGFLOW_VERSION@", current)


def render_upgrade(src: str, dst: str, hand: str, files: list[tuple[str, str]]) -> str:
    """The upgrade script from ``src`` to ``dst`` (the module docstring gives its parts).

    Args:
        src: the version upgraded from, such as ``"0.1.0"``.
        dst: the version upgraded to: the one ``files`` are the sources of.
        hand: the hand-written part (``extension/upgrades/<src>--<dst>.sql``).
        files: ``(file name, text)`` of the sources of ``dst`` in load order.

    Raises:
        BuildError: a source does not split into statements, or no source defines
            ``pgflow.setup_security()``.
    """
    parts = [
        f"-- pgflow {src} -> {dst}: generated by extension/build.py from\n"
        f"-- extension/upgrades/{src}--{dst}.sql and the functions of extension/sql/*.sql.\n"
        "-- Do not edit: change the sources and rebuild (make build).\n\n"
        "insert into pgflow.installed_versions (version, install_method)\n"
        "select\n"
        f"  '{dst}',\n"
        "  case when exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow')\n"
        "    then 'extension' else 'sql' end;\n",
        f"\n-- ==== upgrades/{src}--{dst}.sql ====\n",
        hand if hand.endswith("\n") else hand + "\n",
    ]
    has_security = False
    for name, text in files:
        statements = function_statements(text, name)
        if not statements:
            continue
        has_security |= any(
            re.match(r"create or replace function pgflow\.setup_security\(\)", _code(s))
            for s in statements
        )
        parts.append(f"\n-- ==== {name} (functions) ====\n")
        parts.append("".join(statements).strip("\n") + "\n")
    if not has_security:
        raise BuildError("no source defines pgflow.setup_security(), which upgrades end with")
    comments = [c for _, text in files for c in object_comments(text)]
    parts.append("\n-- ==== comments of tables, views, types and columns, from the sources ====\n")
    parts.append("".join(comments).strip("\n") + "\n")
    parts.append("\n-- ==== every upgrade ends with ====\n" + _SECURITY_CALL)
    return "".join(parts).replace("@PGFLOW_VERSION@", dst)


_OBJECT_COMMENT = re.compile(r"comment\s+on\s+(table|view|type|column)\b", re.I)


def object_comments(text: str, name: str = "<sql>") -> list[str]:
    """Every ``COMMENT ON`` a table, view, type or column of one source.

    Comments are idempotent, so an upgrade and an adoption apply them all: a comment changed
    in the sources needs nothing hand-written.
    """
    return [s for s in split_statements(text, name) if _OBJECT_COMMENT.match(_code(s))]


def adopt_statements(files: list[tuple[str, str]]) -> list[str]:
    """What an upstream 0.14 database lacks, from the sources, in load order.

    The tables that are not upstream's as ``CREATE TABLE IF NOT EXISTS`` (and the
    ``installed_versions`` row), every index as
    ``CREATE INDEX IF NOT EXISTS``, every view as ``CREATE OR REPLACE VIEW`` and every
    ``COMMENT ON`` that is not about a function. Functions, the schema, the types and the
    setup_security call are left out (the caller adds functions and the call).
    """
    out = []
    for name, text in files:
        for statement in split_statements(text, name):
            code = _code(statement)
            low = code.lower()
            if _FUNCTION.match(code):
                continue
            if table := _NEW_TABLE.match(code):
                if table[1].lower() not in UPSTREAM_TABLES:
                    out.append(
                        _NEW_TABLE.sub(r"create table if not exists pgflow.\1", statement, count=1)
                    )
            elif low.startswith("insert into pgflow.installed_versions"):
                out.append(statement)
            elif _CREATE_INDEX.match(code):
                out.append(
                    _CREATE_INDEX.sub(
                        lambda m: f"create {'unique ' if m[1] else ''}index if not exists ",
                        statement,
                        count=1,
                    )
                )
            elif _CREATE_VIEW.match(code):
                out.append(_CREATE_VIEW.sub("create or replace view ", statement, count=1))
            elif _OBJECT_COMMENT.match(code):
                out.append(statement)
    return out


def render_adopt(hand: str, files: list[tuple[str, str]], dst: str) -> str:
    """The script that adopts an upstream 0.14 database into version ``dst`` (plain SQL).

    Its parts: the hand-written part (``extension/adopt/``: what changes in upstream's own
    tables, first, so that indexes on new columns can follow), :func:`adopt_statements`,
    every function statement of the sources (as in an upgrade) and ``select
    pgflow.setup_security();``.

    Raises:
        BuildError: a source does not split into statements.
    """
    parts = [
        f"-- Adopt an upstream pgflow 0.14 database into pgflow-py {dst}: generated by\n"
        f"-- extension/build.py from extension/{ADOPT_HAND} and extension/sql/*.sql.\n"
        "-- Do not edit: change the sources and rebuild (make build).\n",
        f"\n-- ==== {ADOPT_HAND} ====\n",
        hand if hand.endswith("\n") else hand + "\n",
        "\n-- ==== what upstream lacks, from the sources ====\n",
        "".join(adopt_statements(files)).strip("\n") + "\n",
    ]
    for name, text in files:
        statements = function_statements(text, name)
        if statements:
            parts.append(f"\n-- ==== {name} (functions) ====\n")
            parts.append("".join(statements).strip("\n") + "\n")
    parts.append("\n-- ==== and at the end ====\n" + _SECURITY_CALL)
    return "".join(parts).replace("@PGFLOW_VERSION@", dst)


def released(ext: Path = EXT) -> dict[str, str]:
    """``{file name: sha256}`` of the released scripts (``extension/released.sha256``)."""
    out = {}
    for line in (ext / "released.sha256").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split(maxsplit=1)
            out[name.lstrip("*")] = digest
    return out


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def generated_scripts(ext: Path = EXT) -> dict[str, str]:
    """The scripts the build makes: the current full script and the upgrades into it.

    Raises:
        BuildError: a source does not build, or an ``upgrades/`` file is misnamed.
    """
    current = version(ext)
    out = {f"pgflow--{current}.sql": render(ext)}
    files = sources(ext)
    for hand in sorted((ext / "upgrades").glob("*.sql")):
        match = _UPGRADE_NAME.match(hand.name)
        if not match:
            raise BuildError(f"upgrades/{hand.name}: name it <from>--<to>.sql")
        if match["dst"] == current:
            out[f"pgflow--{hand.name}"] = render_upgrade(
                match["src"], current, hand_part(hand, ext), files
            )
    return out


def scripts(ext: Path = EXT) -> dict[str, str]:
    """Every script the package and the server get: ``{file name: text}``.

    The released scripts as committed, the full script of the current version and the
    upgrades into it as generated (compared with the committed copy when released).

    Raises:
        BuildError: a source does not build, a released script is missing or changed, a
            released version has no chain of upgrade scripts to the current one, or an
            upgrade leads into a version that is neither current nor released.
    """
    out: dict[str, str] = {}
    for name, digest in released(ext).items():
        path = ext / name
        if not path.exists():
            raise BuildError(f"released script {name} is missing (git checkout it)")
        text = path.read_text()
        if _sha256(text) != digest:
            raise BuildError(f"released script {name} changed: released scripts are frozen")
        out[name] = text
    for hand in sorted((ext / "upgrades").glob("*.sql")):
        if f"pgflow--{hand.name}" not in out and not hand.name.endswith(f"--{version(ext)}.sql"):
            raise BuildError(f"upgrades/{hand.name}: its target is neither current nor released")
    for name, text in generated_scripts(ext).items():
        if name in out and out[name] != text:
            raise BuildError(
                f"{name} is released but the sources now give another script: raise "
                "default_version in extension/pgflow.control"
            )
        out[name] = text
    _check_chains(out, version(ext))
    return dict(sorted(out.items()))


def _check_chains(names: dict[str, str], current: str) -> None:
    """Raise BuildError unless every full script's version upgrades to ``current``."""
    edges: dict[str, set[str]] = {}
    for name in names:
        if match := _UPGRADE_NAME.match(name.removeprefix("pgflow--")):
            edges.setdefault(match["src"], set()).add(match["dst"])
    for name in names:
        if not (match := re.fullmatch(r"pgflow--([0-9][0-9.]*)\.sql", name)):
            continue
        reached, todo = {match[1]}, [match[1]]
        while todo:
            new = edges.get(todo.pop(), set()) - reached
            reached |= new
            todo.extend(new)
        if current not in reached:
            raise BuildError(f"no upgrade from {match[1]} to {current}: add upgrades/*.sql")


def package_files(ext: Path = EXT, manifest: Path = MANIFEST) -> dict[str, str]:
    """The package's generated data: ``{path under pgflow/: text}`` (sql/, compat/)."""
    files = {f"sql/{name}": text for name, text in scripts(ext).items()}
    files[f"sql/{ADOPT_SCRIPT}"] = render_adopt(
        hand_part(ext / ADOPT_HAND, ext), sources(ext), version(ext)
    )
    files["compat/manifest.json"] = manifest.read_text()
    return files


def write_package_files(package_dir: Path) -> list[Path]:
    """Write :func:`package_files` under ``package_dir`` (a ``pgflow`` package folder).

    Scripts in ``package_dir/sql`` that the build does not make are removed. Returns the
    written paths.
    """
    files = package_files()
    stale = set((package_dir / "sql").glob("*.sql")) - {package_dir / p for p in files}
    for path in stale:
        path.unlink()
    written = []
    for rel, text in files.items():
        path = package_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


def tree_outputs() -> dict[Path, str]:
    """The generated files of a checkout (git-ignored), with the text each must hold."""
    names = released()
    out = {EXT / n: text for n, text in generated_scripts().items() if n not in names}
    out.update({PACKAGE / rel: text for rel, text in package_files().items()})
    return out


def main(argv: list[str]) -> int:
    """Build (or with ``--check`` verify) the generated files; return the exit status."""
    try:
        outputs = tree_outputs()
    except (BuildError, OSError) as exc:
        print(f"build: {exc}", file=sys.stderr)
        return 1
    if "--check" in argv:
        stale = [p for p, text in outputs.items() if not p.exists() or p.read_text() != text]
        extra = sorted(set((PACKAGE / "sql").glob("*.sql")) - set(outputs))
        for p in stale:
            print(f"missing or stale: {p.relative_to(ROOT)} (run make build)", file=sys.stderr)
        for p in extra:
            print(f"not from the build: {p.relative_to(ROOT)} (run make build)", file=sys.stderr)
        return 1 if stale or extra else 0
    for path, text in outputs.items():
        if path.parent == EXT and (not path.exists() or path.read_text() != text):
            path.write_text(text)
    write_package_files(PACKAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
