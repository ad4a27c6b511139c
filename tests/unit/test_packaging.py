"""Wheels and sdists carry the generated SQL and the manifest, built from sources only.

The project is copied as a fresh clone would have it (tracked and new files, nothing that
.gitignore ignores, so no generated SQL), then built with pip as a user would (``pip wheel``)
but without build isolation, so the test needs no package index (setuptools comes with the
``dev`` extra).
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

import pgflow
from pgflow.errors import InstallError

ROOT = Path(__file__).resolve().parents[2]
#: What a build needs: the rest of the checkout (tests, docs) is left out of the copy.
BUILD_INPUTS = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "extension", "compat"]
PACKAGE = "python_worker"


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgflow_build", ROOT / "extension" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_files() -> dict[str, str]:
    """``{path in the wheel: text}`` of the generated package data."""
    return {f"pgflow/{rel}": text for rel, text in load_build().package_files().items()}


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build inputs of the checkout as a clone of it would hold them."""
    listed = subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
            *BUILD_INPUTS,
            PACKAGE,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    target = tmp_path_factory.mktemp("clone")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():  # not deleted in the work tree
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    assert not (target / PACKAGE / "pgflow" / "sql").exists(), "generated SQL is not committed"
    assert not (target / "extension" / f"pgflow--{pgflow.__version__}.sql").exists()
    return target


def pip_wheel(source: Path, out: Path) -> Path:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = out.glob("pgflow-*.whl")
    return wheel


def assert_carries_the_generated_files(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        expected = expected_files()
        for path in (
            f"pgflow/sql/pgflow--{pgflow.__version__}.sql",
            f"pgflow/sql/pgflow--0.1.0--{pgflow.__version__}.sql",
            "pgflow/sql/pgflow--0.1.0.sql",
            "pgflow/compat/manifest.json",
        ):
            assert path in expected, f"the build does not make {path}"
        for path, text in expected.items():
            assert path in names, f"{wheel.name} lacks {path}"
            assert archive.read(path).decode() == text, f"{path} differs from the build's"
        extra = {n for n in names if n.startswith(("pgflow/sql/", "pgflow/compat/"))} - set(
            expected
        )
        assert not extra, f"{wheel.name} has files the build does not make: {extra}"
        # The dashboard's templates and stylesheet are package data, not Python modules.
        for page in ("base.html", "runs.html", "run.html", "flow.html", "workers.html"):
            assert f"pgflow/dashboard/templates/{page}" in names, f"{wheel.name} lacks {page}"
        assert "pgflow/dashboard/static/dashboard.css" in names, f"{wheel.name} lacks the CSS"


@pytest.mark.slow
def test_a_wheel_built_from_a_fresh_clone_carries_the_sql_and_the_manifest(
    fresh_clone: Path, tmp_path: Path
) -> None:
    assert_carries_the_generated_files(pip_wheel(fresh_clone, tmp_path))


@pytest.mark.slow
def test_the_sdist_holds_sources_only_and_builds_the_same_wheel(
    fresh_clone: Path, tmp_path: Path
) -> None:
    work = tmp_path / "clone"
    shutil.copytree(fresh_clone, work)
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))",
            str(tmp_path / "sdist"),
        ],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    sdist = tmp_path / "sdist" / built.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert f"extension/upgrades/0.1.0--{pgflow.__version__}.sql" in names
    assert {"extension/build.py", "extension/pgflow--0.1.0.sql", "compat/manifest.json"} <= names
    assert not [n for n in names if n.startswith("python_worker/pgflow/sql")]
    assert f"extension/pgflow--{pgflow.__version__}.sql" not in names

    assert_carries_the_generated_files(pip_wheel(sdist, tmp_path / "wheel"))


def test_install_without_the_generated_sql_says_to_run_make_build(monkeypatch) -> None:
    install_module = importlib.import_module("pgflow.schema.install")
    monkeypatch.setattr(install_module, "__version__", "0.0.0-never-built")

    with pytest.raises(InstallError, match="make build"):
        install_module._read_pgflow_sql()


def test_migrate_without_the_generated_sql_says_to_run_make_build(monkeypatch, tmp_path) -> None:
    migrate_module = importlib.import_module("pgflow.schema.migrate")
    monkeypatch.setattr(migrate_module.importlib.resources, "files", lambda _package: tmp_path)

    with pytest.raises(InstallError, match="make build"):
        migrate_module.upgrade_path("0.1.0", pgflow.__version__)
