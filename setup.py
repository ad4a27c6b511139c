"""setuptools hook: wheels carry the SQL scripts and the manifest that the build makes.

The project's metadata is in pyproject.toml; this file only adds to ``build_py``. The
package's data files are generated, not committed (extension/build.py says what and from
which sources):

- wheels (``pip install .``, ``pip wheel .``, from a checkout or from the sdist):
  ``pgflow/sql/*.sql`` and ``pgflow/compat/manifest.json`` are written straight into the
  build folder, whatever the checkout holds;
- editable installs (``pip install -e .``, as ``make setup`` does): the package is read
  from ``python_worker/``, so the build writes them there, as ``make build`` does.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _extension_build() -> ModuleType:
    """Load extension/build.py (standard library only) without putting it on sys.path."""
    spec = importlib.util.spec_from_file_location("pgflow_build", ROOT / "extension" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithSQL(build_py):
    """``build_py`` that also writes the generated package data (see the module docstring)."""

    def run(self) -> None:
        """Build the Python files, then the SQL scripts and the manifest."""
        super().run()
        build = _extension_build()
        if self.editable_mode:
            if build.main([]) != 0:
                raise SystemExit("extension/build.py failed (see above)")
        else:
            build.write_package_files(Path(self.build_lib) / "pgflow")


setup(cmdclass={"build_py": BuildPyWithSQL})
