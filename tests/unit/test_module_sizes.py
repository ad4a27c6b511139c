"""Modules stay small enough to read in one sitting: at most ~400 lines each.

Checked for the package (``python_worker/pgflow``), the benchmark (``bench``) and the tests
(``tests``): a module that grows past the limit fails here with its name, to be split by job
(a test module by topic, its shared helpers in a module of their own).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: "~400 lines": a little slack, so that a docstring line does not fail the suite.
MAX_LINES = 410


def module_lengths(folder: Path) -> dict[str, int]:
    """``path relative to the repository`` -> number of lines, for every ``*.py`` under it."""
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def test_package_and_bench_modules_are_at_most_about_400_lines() -> None:
    lengths = module_lengths(ROOT / "python_worker" / "pgflow") | module_lengths(ROOT / "bench")
    assert len(lengths) > 100
    long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not long, f"split these modules by job (over {MAX_LINES} lines): {long}"


def test_test_modules_are_at_most_about_400_lines() -> None:
    lengths = module_lengths(ROOT / "tests")
    assert len(lengths) > 100
    long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not long, f"split these test modules by topic (over {MAX_LINES} lines): {long}"
