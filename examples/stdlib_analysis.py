"""Analyse the Python standard library's source with a pgflow flow (the ``make demo`` flow).

Three steps over real input, the source tree of the running Python
(``sysconfig.get_paths()["stdlib"]``, about 1,800 ``.py`` files for CPython 3.11 with its
test suite):

- ``list_files`` (root, array): the ``.py`` files under ``root``, as
  ``{"root": ..., "path": <relative path>}`` objects, sorted; ``site-packages`` /
  ``dist-packages`` and ``__pycache__`` are skipped, test directories are kept.
- ``parse`` (map, one task per file): reads the file and parses it with :mod:`ast`:
  lines, functions (incl. methods, async), classes, imported modules. A file that does not
  parse (a few stdlib files are broken on purpose, e.g. lib2to3 test data) gives a result
  with ``error`` set instead of failing the task.
- ``report`` (reduce): totals, the largest modules by lines, the most imported modules
  (by number of importing files), and the files that did not parse.

Run it with a worker from the repository root::

    pgflow-worker examples.stdlib_analysis:flow
    pgflow start stdlib_analysis --input '{"limit": 200}' --wait

Input: ``{"root": <directory, default the stdlib>, "limit": <max files, default all>}``.
Handlers read files by path, so workers must run on the machine that has them.
"""

from __future__ import annotations

import ast
import os
import sysconfig
from collections import Counter
from pathlib import Path
from typing import Any

from pgflow.dsl import Flow

#: How many entries the report's top lists hold.
TOP = 10
#: Directory names never descended into.
SKIPPED_DIRS = frozenset({"site-packages", "dist-packages", "__pycache__"})

flow = Flow("stdlib_analysis", max_attempts=3, base_delay=1, timeout=30)


def stdlib_root() -> str:
    """Return the standard library directory of the running Python."""
    return sysconfig.get_paths()["stdlib"]


def find_python_files(root: str | os.PathLike[str]) -> list[str]:
    """Return the ``.py`` files under ``root`` as sorted POSIX paths relative to it.

    Skips the directories in :data:`SKIPPED_DIRS` and does not follow symlinked
    directories.
    """
    base = Path(root)
    found: list[str] = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
        for name in files:
            if name.endswith(".py"):
                found.append((Path(directory) / name).relative_to(base).as_posix())
    return sorted(found)


def module_name(path: str) -> str:
    """Return the dotted module name of a relative path (``json/__init__.py`` -> ``json``)."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def resolve_import(node: ast.Import | ast.ImportFrom, package: list[str]) -> list[str]:
    """Return the modules one import statement names, relative ones resolved in ``package``.

    ``import a.b`` names ``a.b``; ``from a.b import c`` names ``a.b``; ``from . import x``
    inside package ``p`` names ``p``; ``from .m import x`` names ``p.m``.
    """
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        return [node.module] if node.module else []
    anchor = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    resolved = ".".join([*anchor, *([node.module] if node.module else [])])
    return [resolved] if resolved else []


def analyse_source(source: bytes, path: str) -> dict[str, Any]:
    """Parse one file's bytes and describe it (never raises for bad source).

    Args:
        source: the file's content (its coding cookie, if any, is honoured).
        path: the file's POSIX path relative to the analysed root.

    Returns:
        ``{"path", "module", "lines", "functions", "classes", "imports", "error"}``:
        functions count every ``def`` / ``async def`` (methods and nested ones too),
        imports are the sorted distinct modules imported; ``error`` is None, or
        ``"<ExceptionType>: <message>"`` when the source does not parse (then
        functions, classes and imports are 0 / empty).
    """
    module = module_name(path)
    result: dict[str, Any] = {
        "path": path,
        "module": module,
        "lines": len(source.splitlines()),
        "functions": 0,
        "classes": 0,
        "imports": [],
        "error": None,
    }
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    is_package = path.endswith("__init__.py")
    package = module.split(".") if is_package else module.split(".")[:-1]
    functions = classes = 0
    imports: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions += 1
        elif isinstance(node, ast.ClassDef):
            classes += 1
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imports.update(resolve_import(node, package))
    result.update(functions=functions, classes=classes, imports=sorted(imports))
    return result


def build_report(results: list[dict[str, Any]], top: int = TOP) -> dict[str, Any]:
    """Aggregate :func:`analyse_source` results into the flow's report."""
    parsed = [r for r in results if r["error"] is None]
    importers: Counter[str] = Counter()
    for r in parsed:
        importers.update(r["imports"])
    largest = sorted(results, key=lambda r: (-r["lines"], r["module"]))[:top]
    most_imported = sorted(importers.items(), key=lambda item: (-item[1], item[0]))[:top]
    return {
        "totals": {
            "files": len(results),
            "parsed": len(parsed),
            "parse_errors": len(results) - len(parsed),
            "lines": sum(r["lines"] for r in results),
            "functions": sum(r["functions"] for r in parsed),
            "classes": sum(r["classes"] for r in parsed),
            "distinct_imports": len(importers),
        },
        "largest_modules": [{"module": r["module"], "lines": r["lines"]} for r in largest],
        "most_imported": [{"module": m, "files": n} for m, n in most_imported],
        "parse_errors": [
            {"path": r["path"], "error": r["error"]}
            for r in sorted(results, key=lambda r: r["path"])
            if r["error"] is not None
        ],
    }


# ---------------------------------------------------------------- the flow


@flow.array()
def list_files(input: dict[str, Any]) -> list[dict[str, str]]:
    """List the ``.py`` files to analyse (input ``{"root"?: str, "limit"?: int}``)."""
    root = os.path.abspath(input.get("root") or stdlib_root())
    if not os.path.isdir(root):
        raise NotADirectoryError(f"root {root!r} is not a directory")
    paths = find_python_files(root)
    limit = input.get("limit")
    if limit is not None:
        paths = paths[: int(limit)]
    return [{"root": root, "path": path} for path in paths]


@flow.map(array="list_files")
def parse(item: dict[str, str]) -> dict[str, Any]:
    """Parse one file; a file that does not parse is reported, not raised."""
    source = (Path(item["root"]) / item["path"]).read_bytes()
    return analyse_source(source, item["path"])


@flow.step(depends_on=["parse"])
def report(input: dict[str, Any]) -> dict[str, Any]:
    """Aggregate the per-file results (input ``{"parse": [<parse results>]}``)."""
    return build_report(input["parse"])
