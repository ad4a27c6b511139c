"""docs/deploy.md and deploy/README.md name only what exists.

Every command, option, SQL object, role, environment variable and link they name must
exist. Each check also runs on a broken copy of its file, to show that it can fail.
"""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import pytest

from pgflow.cli.main import main as pgflow_main
from tests.unit.deploy_files import (
    DOCS,
    ROOT,
    UNIT,
    command_problems,
    has_option,
    worker_env_problems,
)

# ---------------------------------------------------------------- docs


@functools.cache
def sql_text() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "extension" / "sql").glob("*.sql"))


@functools.cache
def sql_objects() -> set[str]:
    kinds = r"function|procedure|table|view|materialized\s+view|type"
    pattern = rf"create\s+(?:or\s+replace\s+)?(?:{kinds})\s+pgflow\.(\w+)"
    return set(re.findall(pattern, sql_text(), re.I))


@functools.cache
def package_text() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "python_worker" / "pgflow").rglob("*.py"))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def split_markdown(text: str) -> tuple[list[str], str]:
    """The shell lines of fenced blocks and inline code spans; the text without fences."""
    fences = re.compile(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", re.M | re.S)
    lines = [
        line
        for language, body in fences.findall(text)
        if language in ("sh", "bash", "console", "")
        for line in re.sub(r"\\\n", " ", body).splitlines()
    ]
    prose = fences.sub("", text)
    spans = [re.sub(r"\s+", " ", span) for span in re.findall(r"`([^`]+)`", prose)]
    return lines + spans, prose


def shell_commands(line: str) -> list[list[str]]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        words = line.split()
    commands: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", "||", ";", "|", "&"):
            commands.append([])
        elif commands[-1] or not re.fullmatch(r"\w+=.*|sudo|exec|env", word):
            commands[-1].append(word)
    return [c for c in commands if c]


def doc_problems(text: str, where: Path) -> list[str]:
    """Commands, options, SQL objects, roles, variables and links a doc names that do not
    exist."""
    lines, prose = split_markdown(text)
    problems: list[str] = []
    for words in (c for line in lines for c in shell_commands(line)):
        program = Path(words[0]).name
        if program in ("pgflow", "pgflow-worker"):
            problems += command_problems(program, words[1:])
        elif words[0].startswith("--"):  # options alone: some command must have each
            paths = [("pgflow-worker",), *(("pgflow", name) for name in pgflow_main.commands)]
            problems += [
                f"`{option}`: no pgflow or pgflow-worker command has it"
                for option in (w.split("=")[0] for w in words if w.startswith("--"))
                if not any(has_option(p, option) for p in paths)
            ]
    problems += [
        f"pgflow.{name}: no such function, table or view in extension/sql"
        for name in sorted(set(re.findall(r"\bpgflow\.([a-z_][a-z0-9_]*)", text)))
        if name not in sql_objects()
    ]
    problems += [
        f"{name}: named nowhere in extension/sql (a role or a pg_cron job)"
        for name in sorted(set(re.findall(r"\bpgflow_[a-z0-9_]+", text)))
        if not re.search(rf"\b{name}\b", sql_text())
    ]
    problems += worker_env_problems(text)
    problems += [
        f"{name}: read by no part of the package nor the unit"
        for name in sorted(set(re.findall(r"\bPGFLOW_(?!WORKER_)[A-Z0-9_]*[A-Z0-9]\b", text)))
        if name not in package_text() + UNIT.read_text()
    ]
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (where.parent / path).resolve() if path else where
        if not file.exists():
            problems.append(f"link {target}: {file} does not exist")
        elif anchor and anchor not in {
            slug(h) for h in re.findall(r"^#+ (.*)$", split_markdown(file.read_text())[1], re.M)
        }:
            problems.append(f"link {target}: no heading with that anchor")
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_name_only_what_exists(doc: Path) -> None:
    assert doc_problems(doc.read_text(), doc) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("pgflow migrate --dsn", "pgflow migrate --database", "has no option --database"),
        ("check-schema --dsn ...` exits", "check-schemas --dsn ...` exits", "no such command"),
        ("`--tick-interval 0`", "`--tick-intervals 0`", "--tick-intervals"),
        ("pgflow.prune_data_older_than(interval '30 days')$$", "pgflow.prune_all()$$", "prune_all"),
        ("in `pgflow_operator`", "in `pgflow_operators`", "pgflow_operators"),
        ("PGFLOW_WORKER_MAX_CONCURRENCY=64\n", "PGFLOW_WORKER_THREADS=2\n", "--threads"),
        ("PGFLOW_DEV_CLUSTER=off", "PGFLOW_DEV_MODE=off", "PGFLOW_DEV_MODE"),
        ("(connections.md)", "(connection.md)", "does not exist"),
        ("(#pg_cron-or-the-worker-side-tick)", "(#pg-cron)", "no heading"),
    ],
)
def test_each_doc_check_can_fail(old: str, new: str, problem: str) -> None:
    doc = DOCS[0]
    text = doc.read_text()
    assert old in text
    found = doc_problems(text.replace(old, new, 1), doc)
    assert any(problem in p for p in found), found
