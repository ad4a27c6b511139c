"""What the deployment tests share: the repository's deploy files and the commands they name.

``command_problems`` checks a ``pgflow`` / ``pgflow-worker`` command line against the
commands' own ``--help`` (tests/unit/test_deploy_units.py, test_deploy_docs.py).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import click
from click.testing import CliRunner

from pgflow.cli.main import main as pgflow_main
from pgflow.cli.worker import main as worker_main

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
UNIT = ROOT / "deploy" / "pgflow-worker@.service"
DASHBOARD_UNIT = ROOT / "deploy" / "pgflow-dashboard.service"
UNITS = [UNIT, DASHBOARD_UNIT]
DOCS = [ROOT / "docs" / "deploy.md", ROOT / "deploy" / "README.md"]
#: TimeoutStopSec must exceed --shutdown-grace by this much (seconds): after the drain the
#: worker deregisters and marks itself stopped, each statement given up to 5 s.
STOP_MARGIN_SECONDS = 30
SECRET_NAME = re.compile(r"PASSWORD|PASSWD|SECRET|TOKEN|DSN|DATABASE_URL|API_KEY", re.I)
DB_URL = re.compile(r"postgres(?:ql)?://", re.I)
WORKER_ENV = re.compile(r"\bPGFLOW_WORKER_([A-Z0-9_]*[A-Z0-9])\b")


# ---------------------------------------------------------------- the commands


@functools.cache
def help_text(path: tuple[str, ...]) -> str | None:
    """``--help`` of ``pgflow-worker`` (path ``("pgflow-worker",)``) or ``pgflow ...``."""
    root = worker_main if path[0] == "pgflow-worker" else pgflow_main
    result = CliRunner().invoke(root, [*path[1:], "--help"], prog_name=path[0])
    return result.output if result.exit_code == 0 else None


def has_option(path: tuple[str, ...], option: str) -> bool:
    text = help_text(path) or ""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def command_problems(program: str, args: list[str]) -> list[str]:
    """Problems of ``program args``: an unknown subcommand, options its --help lacks."""
    path, rest = (program,), list(args)
    command: click.Command = worker_main if program == "pgflow-worker" else pgflow_main
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(click.Context(command), rest[0])
        if sub is None:
            return [f"`{' '.join(path)} {rest[0]}`: no such command"]
        command, path, rest = sub, (*path, rest.pop(0)), rest
    if help_text(path) is None:
        return [f"`{' '.join(path)} --help` fails"]
    options = [token.split("=", 1)[0] for token in rest if token.startswith("--")]
    return [f"`{' '.join(path)}` has no option {o}" for o in options if not has_option(path, o)]


def worker_env_problems(text: str) -> list[str]:
    """``PGFLOW_WORKER_<OPTION>`` variables must name options of pgflow-worker."""
    return [
        f"PGFLOW_WORKER_{name}: pgflow-worker has no option {option}"
        for name in WORKER_ENV.findall(text)
        if not has_option(("pgflow-worker",), option := "--" + name.lower().replace("_", "-"))
    ]
