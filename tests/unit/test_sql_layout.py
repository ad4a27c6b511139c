"""The SQL sources are laid out so that a reader finds each function by its name.

- Each ``extension/sql/NNN_<name>.sql`` that defines a function defines exactly one
  (its overloads included), and ``<name>`` is that function's name: ``NNN_`` then the
  name, so an internal function ``_x`` lives in ``NNN__x.sql``. Files that define no
  function (tables, types, settings) hold no ``create function`` at all.
- Each function has a pgTAP folder ``sql_tests/<name>/`` with at least one
  ``*.test.sql``, internal functions included; the other folders of ``sql_tests`` are
  the helpers and a short list of cross-cutting topics.

A new function added to an existing file, or without tests, fails here with its name.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL_DIR = ROOT / "extension" / "sql"
TESTS_DIR = ROOT / "sql_tests"

#: ``create function pgflow.<name>`` (a file's definitions; bodies never start a line so).
_CREATE = re.compile(r"^create\s+(?:or\s+replace\s+)?function\s+pgflow\.(\w+)", re.I | re.M)
#: ``NNN_<rest>.sql``: the load order, then what the file holds.
_FILE = re.compile(r"^(\d{3})_(.+)\.sql$")
#: sql_tests folders that are not one function's: helpers and cross-cutting topics.
TOPIC_FOLDERS = frozenset(
    {"_helpers", "bad_input", "broadcasts", "map_task_inputs", "schema", "security"}
)


def defined_functions() -> dict[str, list[str]]:
    """Source file name -> the names of the functions it defines (one per definition)."""
    return {p.name: _CREATE.findall(p.read_text()) for p in sorted(SQL_DIR.glob("*.sql"))}


def test_every_source_is_named_nnn_then_what_it_holds() -> None:
    bad = [name for name in defined_functions() if not _FILE.match(name)]
    assert not bad, f"sources not named NNN_<what it holds>.sql: {bad}"


def test_each_source_defines_at_most_one_function_named_after_the_file() -> None:
    problems = []
    for name, functions in defined_functions().items():
        match = _FILE.match(name)
        if not functions or match is None:
            continue
        if len(set(functions)) > 1:
            problems.append(f"{name} defines {sorted(set(functions))}: one function per file")
        elif functions[0] != match.group(2):
            problems.append(f"{name} defines {functions[0]}: name the file NNN_{functions[0]}.sql")
    assert not problems, "\n".join(problems)


def test_load_order_numbers_are_unique() -> None:
    seen: dict[str, str] = {}
    clashes = []
    for name in defined_functions():
        match = _FILE.match(name)
        if match is None:
            continue
        if match.group(1) in seen:
            clashes.append(f"{seen[match.group(1)]} and {name}")
        seen[match.group(1)] = name
    assert not clashes, f"two sources share a load-order number: {clashes}"


def test_every_function_has_a_pgtap_folder_with_tests() -> None:
    functions = {f for names in defined_functions().values() for f in names}
    assert len(functions) > 100  # the scan found the sources
    missing = sorted(f for f in functions if not list((TESTS_DIR / f).glob("*.test.sql")))
    assert not missing, f"functions without sql_tests/<name>/*.test.sql: {missing}"


def test_every_pgtap_folder_is_a_function_or_a_listed_topic() -> None:
    functions = {f for names in defined_functions().values() for f in names}
    folders = {p.name for p in TESTS_DIR.iterdir() if p.is_dir()}
    strays = sorted(folders - functions - TOPIC_FOLDERS)
    assert not strays, f"sql_tests folders named after no function (renamed?): {strays}"
    assert folders >= TOPIC_FOLDERS


def test_architecture_page_cites_each_function_with_its_file_number() -> None:
    # docs/architecture.md writes "`name` (NNN" for the source of a function: a renumbered
    # file would leave the page pointing at another one.
    numbers = {}
    for name in defined_functions():
        match = _FILE.match(name)
        if match is not None:
            numbers[match.group(2)] = match.group(1)
    page = (ROOT / "docs" / "architecture.md").read_text()
    cited = re.findall(r"`(\w+)`(?: \(|, )(\d{3})\b", page)
    assert len(cited) > 50
    # One number per name: "`a`, `b` (NNN)" or "`a` / `b` (NNN)" would cite b's file for a.
    grouped = re.findall(r"`\w+`(?:,| /| and) `\w+` \(\d{3}", page)
    assert not grouped, f"cite each function with its own file number: {grouped}"
    wrong = [
        f"{name} ({n}): the file is {numbers.get(name)}"
        for name, n in cited
        if numbers.get(name) != n
    ]
    assert not wrong, "\n".join(wrong)


#: The most lines of code (blank and comment-only lines left out) one function may have.
MAX_FUNCTION_LINES = 150
#: Longer on purpose, with the reason. start_flow writes its audit trail and queues its
#: root steps inline: moved to a helper, one more PL/pgSQL call per run made start_flow
#: 4-6% slower (interleaved rounds of 200 starts, one client).
LONGER_FUNCTIONS = {"322_start_flow.sql: start_flow": 175}


def function_lengths() -> dict[str, int]:
    """``file: function`` -> its lines of code, from ``create function`` to its closing ``$$;``."""
    lengths: dict[str, int] = {}
    for path in sorted(SQL_DIR.glob("*.sql")):
        name, count = None, 0
        for line in path.read_text().splitlines():
            match = _CREATE.match(line)
            if match is not None:
                name, count = match.group(1), 0
            if name is None:
                continue
            stripped = line.strip()
            if stripped and not stripped.startswith("--"):
                count += 1
            if stripped == "$$;":
                lengths[f"{path.name}: {name}"] = count
                name = None
    return lengths


def test_no_function_is_longer_than_150_lines_of_code() -> None:
    lengths = function_lengths()
    assert len(lengths) > 100
    long = {
        name: n for name, n in lengths.items() if n > LONGER_FUNCTIONS.get(name, MAX_FUNCTION_LINES)
    }
    assert not long, f"split these functions (over {MAX_FUNCTION_LINES} lines of code): {long}"
