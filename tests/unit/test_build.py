"""extension/build.py: the built scripts are up to date, made of every source, and the
released scripts never change."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import pgflow

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "extension" / "build.py"
VERSION = pgflow.__version__
BUILT = [
    ROOT / "extension" / f"pgflow--{VERSION}.sql",
    ROOT / "python_worker" / "pgflow" / "sql" / f"pgflow--{VERSION}.sql",
]
UPGRADE = ROOT / "extension" / f"pgflow--0.1.0--{VERSION}.sql"
#: The first release, as shipped on 2026-11-29: never to change again.
RELEASED_0_1_0 = "ef755c5c68519e3abb6326564c043f39c8add6b49ce114797e21cf89392160e0"


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgflow_build", BUILD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build()


def test_built_files_are_up_to_date():
    result = subprocess.run(
        [sys.executable, str(BUILD), "--check"], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, f"run `make build`: {result.stderr}"


def test_built_file_contains_every_source_in_order():
    text = BUILT[0].read_text()
    sources = sorted((ROOT / "extension" / "sql").glob("*.sql"))

    assert sources, "no SQL sources found"
    position = 0
    for source in sources:
        body = source.read_text().replace("@PGFLOW_VERSION@", VERSION)
        found = text.find(body, position)
        assert found >= 0, f"{source.name} is missing from {BUILT[0].name} (or out of order)"
        position = found + len(body)


def test_both_built_copies_are_identical():
    assert BUILT[0].read_text() == BUILT[1].read_text()


def test_built_files_have_no_unreplaced_placeholders():
    assert "@PGFLOW_VERSION@" not in BUILT[0].read_text()
    assert "@PGFLOW_VERSION@" not in UPGRADE.read_text()


def test_versions_agree():
    control = (ROOT / "extension" / "pgflow.control").read_text()
    control_version = re.search(r"^default_version\s*=\s*'([^']+)'", control, re.M).group(1)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert pgflow.__version__ == control_version == project["version"]


# ---------------------------------------------------------------- released scripts


def test_the_first_release_is_byte_identical():
    text = (ROOT / "extension" / "pgflow--0.1.0.sql").read_bytes()

    assert hashlib.sha256(text).hexdigest() == RELEASED_0_1_0
    assert build.released()["pgflow--0.1.0.sql"] == RELEASED_0_1_0


def test_every_released_script_matches_its_recorded_sha256():
    recorded = build.released()

    assert recorded, "extension/released.sha256 lists no script"
    for name, digest in recorded.items():
        text = (ROOT / "extension" / name).read_bytes()
        assert hashlib.sha256(text).hexdigest() == digest, f"{name} changed after its release"


def test_released_scripts_are_committed_and_generated_ones_ignored():
    generated = [*build.tree_outputs()]
    released = [ROOT / "extension" / name for name in build.released()]

    def ignored(path: Path) -> bool:
        rel = str(path.relative_to(ROOT))
        result = subprocess.run(
            ["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", rel], check=False
        )
        assert result.returncode in (0, 1), f"git check-ignore failed for {rel}"
        return result.returncode == 0

    assert all(ignored(p) for p in generated), ".gitignore must ignore every generated file"
    assert not any(ignored(p) for p in released), ".gitignore must un-ignore released scripts"


@pytest.fixture
def extension_copy(tmp_path: Path) -> Path:
    """A copy of extension/ (sources, control, released scripts) to break on purpose."""
    ext = tmp_path / "extension"
    shutil.copytree(
        ROOT / "extension", ext, ignore=shutil.ignore_patterns(f"pgflow--*{VERSION}.sql")
    )
    assert build.scripts(ext) == build.scripts(), "the copy builds as the checkout does"
    return ext


def test_a_changed_released_script_fails_the_build(extension_copy: Path):
    released = extension_copy / "pgflow--0.1.0.sql"
    released.write_text(released.read_text() + "\n")

    with pytest.raises(build.BuildError, match=r"pgflow--0\.1\.0\.sql changed"):
        build.scripts(extension_copy)


def test_sources_changed_after_their_release_fail_the_build(extension_copy: Path):
    full = build.render(extension_copy)
    name = f"pgflow--{VERSION}.sql"
    (extension_copy / name).write_text(full)
    digest = hashlib.sha256(full.encode()).hexdigest()
    with (extension_copy / "released.sha256").open("a") as released:
        released.write(f"{digest}  {name}\n")
    assert build.scripts(extension_copy)[name] == full, "unchanged sources still build"
    source = extension_copy / "sql" / "010_schema.sql"
    source.write_text(source.read_text() + "\n-- a change\n")

    with pytest.raises(build.BuildError, match="raise default_version"):
        build.scripts(extension_copy)


def test_a_released_version_without_an_upgrade_fails_the_build(extension_copy: Path):
    (extension_copy / "upgrades" / f"0.1.0--{VERSION}.sql").unlink()

    with pytest.raises(build.BuildError, match=f"no upgrade from 0.1.0 to {VERSION}"):
        build.scripts(extension_copy)


# ---------------------------------------------------------------- statements


def test_statements_split_at_top_level_semicolons_only():
    sql = (
        "-- a; comment\ncreate table t (a text default 'x;y', \"b;c\" int);\n"
        "/* block /* nested; */ still; */ select E'it\\'s;', $$ a; b $$, $f$ $$; $f$;\n"
        "create function f() returns int language sql as $body$ select 1; $body$;\n"
        "select a$b$c from t;"
    )

    statements = [s.strip() for s in build.split_statements(sql)]

    assert statements == [
        "-- a; comment\ncreate table t (a text default 'x;y', \"b;c\" int);",
        "/* block /* nested; */ still; */ select E'it\\'s;', $$ a; b $$, $f$ $$; $f$;",
        "create function f() returns int language sql as $body$ select 1; $body$;",
        "select a$b$c from t;",
    ]


@pytest.mark.parametrize("sql", ["select 'open;", "select $x$ open;", "/* open; ", 'select "a;'])
def test_an_unterminated_quote_or_comment_is_a_build_error(sql):
    with pytest.raises(build.BuildError, match="never closed"):
        build.split_statements(sql, "f.sql")


def test_every_source_of_the_checkout_splits():
    for path in sorted((ROOT / "extension" / "sql").glob("*.sql")):
        build.split_statements(path.read_text(), path.name)


# ---------------------------------------------------------------- upgrade scripts

SECURITY = (
    "create function pgflow.setup_security() returns text[] language sql as $$ select '{}' $$;\n"
    "select pgflow.setup_security();\n"
)


def test_an_upgrade_holds_the_hand_part_then_every_function_then_security():
    files = [
        ("010_tables.sql", "create table pgflow.t (a int);\ncreate index i on pgflow.t (a);\n"),
        (
            "100_anything.sql",
            "-- f adds one\ncreate function pgflow.f(a int)\nreturns int language sql\n"
            "as $$ select a + 1; $$;\n\ncomment on function pgflow.f(int) is 'adds one;';\n"
            "create view pgflow.v as select 1;\n",
        ),
        ("150_new_file.sql", "CREATE  FUNCTION pgflow.g() returns void language sql as '';\n"),
        ("900_security.sql", SECURITY),
    ]
    hand = "drop function pgflow.old(int);\nalter table pgflow.t add column b int;\n"

    script = build.render_upgrade("1.0.0", "1.1.0", hand, files)

    assert script.count("'1.1.0'") == 1, "one installed_versions row"
    order = [
        "insert into pgflow.installed_versions",
        hand,
        "-- f adds one\ncreate or replace function pgflow.f(a int)",
        "comment on function pgflow.f(int) is 'adds one;';",
        "create or replace function pgflow.g()",
        "create or replace function pgflow.setup_security()",
        "-- ==== every upgrade ends with ====\n"
        "select pgflow._align_owners();\nselect pgflow.setup_security();\n",
    ]
    positions = [script.find(part) for part in order]
    assert -1 not in positions, [p for p, at in zip(order, positions, strict=True) if at < 0]
    assert positions == sorted(positions)
    assert script.endswith("select pgflow.setup_security();\n")
    for left_out in ("create table", "create index", "create view"):
        assert left_out not in script
    assert re.search(r"^create function", script, re.M | re.I) is None


def test_an_upgrade_needs_setup_security():
    files = [("100_f.sql", "create function pgflow.f() returns int language sql as 'select 1';")]

    with pytest.raises(build.BuildError, match="setup_security"):
        build.render_upgrade("1.0.0", "1.1.0", "", files)


def test_the_upgrade_replaces_every_function_of_the_full_script():
    def functions(text: str) -> list[str]:
        out = []
        for statement in build.split_statements(text):
            code = build._code(statement)
            if re.match(r"create (or replace )?function|comment on function", code):
                out.append(code.replace("create function", "create or replace function", 1))
        return out

    full = functions(BUILT[0].read_text())
    hand = build.hand_part(ROOT / "extension" / "upgrades" / f"0.1.0--{VERSION}.sql")

    assert full, "no function in the full script"
    assert hand in UPGRADE.read_text()
    # After the hand part (which may create a function its DDL needs first, pgflow._now()
    # for the defaults of new tables): every function, as in the full script.
    assert functions(UPGRADE.read_text().split(hand, 1)[1]) == full
    assert UPGRADE.read_text().startswith(f"-- pgflow 0.1.0 -> {VERSION}: generated")
    assert "-- include:" not in UPGRADE.read_text(), "an include line was left unexpanded"


def test_a_hand_part_includes_shared_files_and_refuses_missing_ones(tmp_path):
    (tmp_path / "changes").mkdir()
    (tmp_path / "changes" / "shared.sql").write_text("alter table t add column c int;\n")
    hand = tmp_path / "upgrades.sql"
    hand.write_text("-- before\n-- include: changes/shared.sql\n-- after\n")

    text = build.hand_part(hand, tmp_path)

    assert text == (
        "-- before\n-- ==== changes/shared.sql ====\nalter table t add column c int;\n-- after\n"
    )
    hand.write_text("-- include: changes/missing.sql\n")
    with pytest.raises(build.BuildError, match=r"missing\.sql does not exist"):
        build.hand_part(hand, tmp_path)
