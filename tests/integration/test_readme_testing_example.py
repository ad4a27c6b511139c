"""The README's "Testing your flows" example is a test: it runs in a pytest of its own.

The block after the ``readme-test`` marker is written to a file of a fresh pytest project
(pytester) and run in a subprocess, where the only fixtures are the pgflow.testing plugin's
(loaded from its ``pytest11`` entry point): they make their databases on this suite's
cluster through ``PGFLOW_TEST_DSN``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- readme-test: tests/integration/test_readme_testing_example.py runs this block -->"


def readme_example() -> str:
    """The python block right after the marker."""
    text = README.read_text()
    assert text.count(MARKER) == 1, "the README's testing example lost its marker"
    after = text.split(MARKER, 1)[1]
    assert after.lstrip("\n").startswith("```python\n"), "no python block after the marker"
    return after.split("```python\n", 1)[1].split("\n```", 1)[0] + "\n"


def test_the_readme_example_passes_with_the_plugin_fixtures(
    pytester: pytest.Pytester, pg_admin_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGFLOW_TEST_DSN", pg_admin_dsn)
    pytester.makepyfile(test_signup=readme_example())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "error")
    result.assert_outcomes(passed=3)


def test_a_broken_example_fails(pytester: pytest.Pytester, pg_admin_dsn: str, monkeypatch) -> None:
    """The check can fail: the same example with one expectation changed does."""
    monkeypatch.setenv("PGFLOW_TEST_DSN", pg_admin_dsn)
    broken = readme_example().replace('"active": True', '"active": "maybe"')
    assert broken != readme_example()
    pytester.makepyfile(test_signup=broken)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
