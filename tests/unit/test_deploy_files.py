"""The deployment files hold up: deploy/Dockerfile, the systemd unit, docs/deploy.md.

There is no Docker daemon here, so the Dockerfile is parsed and checked in Python (known
instructions, pinned base images, a non-root user, exec-form ENTRYPOINT/CMD, COPY sources
present in the build context = the repository root, no secrets) and its two stages are
replayed without Docker: the wheel is built from exactly what the build stage copies, and
the image's command loads its flows from what the run stage copies. The unit is parsed,
its command line parsed by pgflow-worker's own option parser, and checked by
``systemd-analyze verify`` and ``security``. Every command, option, SQL object, role,
variable and link the docs name must exist. Each check also runs on a broken copy of its
file, to show that it can fail.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import pgflow
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


# ---------------------------------------------------------------- Dockerfile


@dataclass(frozen=True)
class Instruction:
    line: int
    keyword: str
    args: str


KNOWN_INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK",
    "LABEL", "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}  # fmt: skip


def parse_dockerfile(text: str) -> list[Instruction]:
    """Instructions with their continuation lines joined; comments and blank lines dropped."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # inside a continued instruction too: Docker drops those lines
        if not pending:
            start = number
        pending.append(line[:-1].rstrip() if line.endswith("\\") else line)
        if not line.endswith("\\"):
            keyword, _, args = " ".join(pending).partition(" ")
            instructions.append(Instruction(start, keyword.upper(), args.strip()))
            pending = []
    if pending:
        raise ValueError(f"line {start}: the file ends inside a continued instruction")
    return instructions


def split_flags(args: str) -> tuple[dict[str, str], list[str]]:
    """``--from=build a b`` -> ``({"from": "build"}, ["a", "b"])``."""
    words = shlex.split(args)
    flags = dict(w[2:].partition("=")[::2] for w in words if w.startswith("--"))
    return flags, [w for w in words if not w.startswith("--")]


def stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    result: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.keyword == "FROM" or not result:
            result.append([])
        result[-1].append(instruction)
    return result


def exec_form(instruction: Instruction) -> list[str] | None:
    try:
        value = json.loads(instruction.args)
    except ValueError:
        return None
    ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value if ok else None


def env_pairs(instruction: Instruction) -> dict[str, str]:
    words = shlex.split(instruction.args)
    if words and "=" not in words[0]:  # legacy form: ENV KEY value
        return {words[0]: " ".join(words[1:])}
    return dict(w.partition("=")[::2] for w in words)


def dockerfile_problems(text: str, context: Path) -> list[str]:
    """Everything wrong with a Dockerfile built with ``context`` as its build context."""
    try:
        instructions = parse_dockerfile(text)
    except ValueError as exc:
        return [str(exc)]
    problems = [
        f"line {i.line}: unknown instruction {i.keyword}"
        for i in instructions
        if i.keyword not in KNOWN_INSTRUCTIONS
    ]
    if not instructions or instructions[0].keyword != "FROM":
        problems.append("the first instruction is not FROM")
    names: set[str] = set()
    for instruction in (i for i in instructions if i.keyword == "FROM"):
        words = [w for w in instruction.args.split() if not w.startswith("--")]
        image = words[0] if words else ""
        last = image.rsplit("/", 1)[-1]
        if image not in names and "@sha256:" not in image:
            if ":" not in last:
                problems.append(f"line {instruction.line}: {image} is not pinned by a tag")
            elif last.endswith(":latest"):
                problems.append(f"line {instruction.line}: {image} uses the tag latest")
        if len(words) == 3 and words[1].upper() == "AS":
            names.add(words[2])
    for instruction in (i for i in instructions if i.keyword in ("COPY", "ADD")):
        flags, words = split_flags(instruction.args)
        if "from" in flags:
            if flags["from"] not in names:
                problems.append(f"line {instruction.line}: no earlier stage {flags['from']}")
            continue
        for source in words[:-1]:
            if "://" in source or source.startswith("/") or ".." in Path(source).parts:
                problems.append(f"line {instruction.line}: {source} is outside the context")
            elif not list(context.glob(source.rstrip("/") or ".")):
                problems.append(f"line {instruction.line}: {source} is not in the context")
    for instruction in (i for i in instructions if i.keyword in ("ENV", "ARG", "LABEL")):
        for key, value in env_pairs(instruction).items():
            if SECRET_NAME.search(key) or DB_URL.search(value):
                problems.append(f"line {instruction.line}: a secret baked in: {key}")
    final = stages(instructions)[-1] if instructions else []
    return problems + final_stage_problems(final)


def final_stage_problems(stage: list[Instruction]) -> list[str]:
    problems = []
    users = [i for i in stage if i.keyword == "USER"]
    starts = [i for i in stage if i.keyword in ("ENTRYPOINT", "CMD")]
    if not users or users[-1].args.split(":")[0] in ("root", "0"):
        problems.append("the image runs as root (no USER, or USER root)")
    elif starts and users[-1].line > starts[0].line:
        problems.append("USER comes after ENTRYPOINT/CMD")
    command: list[str] = []
    for instruction in starts:
        words = exec_form(instruction)
        if words is None:
            problems.append(f"line {instruction.line}: {instruction.keyword} is not exec form")
        command += words or []
    if not command or Path(command[0]).name != "pgflow-worker":
        problems.append(f"the image does not run pgflow-worker: {command}")
    else:
        problems += command_problems("pgflow-worker", command[1:])
    signals = [i.args for i in stage if i.keyword == "STOPSIGNAL"]
    if signals[-1:] != ["SIGTERM"]:
        problems.append(f"STOPSIGNAL is {signals[-1:]}, not SIGTERM")
    env = {k: v for i in stage if i.keyword == "ENV" for k, v in env_pairs(i).items()}
    if env.get("PYTHONUNBUFFERED") != "1":
        problems.append("PYTHONUNBUFFERED=1 is not set")
    return problems + worker_env_problems(json.dumps(env))


def test_the_dockerfile_lints_clean() -> None:
    assert dockerfile_problems(DOCKERFILE.read_text(), ROOT) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("WORKDIR /app", "WORKDIT /app", "unknown instruction WORKDIT"),
        ("# syntax=docker/dockerfile:1", "RUN true", "first instruction is not FROM"),
        ("FROM python:3.12.8-slim-bookworm AS build", "FROM python AS build", "not pinned"),
        ("FROM python:3.12.8-slim-bookworm\n", "FROM python:latest\n", "tag latest"),
        ("USER 10001:10001", "USER root", "runs as root"),
        ("USER 10001:10001\n", "", "runs as root"),
        ('ENTRYPOINT ["pgflow-worker", "--app-dir", "/app"]', "ENTRYPOINT pgflow-worker", "exec"),
        ('"--app-dir"', '"--app-directory"', "no option --app-directory"),
        ("COPY examples/ examples/", "COPY no_such_dir/ examples/", "not in the context"),
        ("COPY --from=build", "COPY --from=builder", "no earlier stage builder"),
        ("WORKDIR /app", "ENV PGFLOW_DATABASE_URL=x\nWORKDIR /app", "secret baked in"),
        ("WORKDIR /app", "ENV DB=postgresql://u:p@h/d\nWORKDIR /app", "secret baked in"),
        ("STOPSIGNAL SIGTERM", "STOPSIGNAL SIGKILL", "not SIGTERM"),
        ("PYTHONUNBUFFERED=1", "PYTHONBUFFERED=1", "PYTHONUNBUFFERED"),
        ("    PGFLOW_DEV_CLUSTER=off", "    PGFLOW_WORKER_NO_SUCH=1", "no option --no-such"),
        ('CMD ["examples.stdlib_analysis:flow"]', 'CMD ["x:y"] \\', "ends inside a continued"),
    ],
)
def test_each_dockerfile_check_can_fail(old: str, new: str, problem: str) -> None:
    text = DOCKERFILE.read_text()
    assert old in text
    found = dockerfile_problems(text.replace(old, new, 1), ROOT)
    assert any(problem in p for p in found), found


def copy_into(instructions: list[Instruction], target: Path) -> Path:
    """Replay a stage's WORKDIR and COPY (from the context) into ``target``; the workdir."""
    workdir = target
    for instruction in instructions:
        if instruction.keyword == "WORKDIR":
            workdir = target / instruction.args.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction.keyword == "COPY" and "from" not in split_flags(instruction.args)[0]:
            *sources, dest = split_flags(instruction.args)[1]
            into = workdir / dest if not dest.startswith("/") else target / dest.lstrip("/")
            for source in (s for pattern in sources for s in ROOT.glob(pattern.rstrip("/"))):
                if source.is_dir():
                    shutil.copytree(source, into, dirs_exist_ok=True)
                elif dest.endswith("/"):
                    into.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, into / source.name)
                else:
                    shutil.copy2(source, into)
    return workdir


@pytest.mark.slow
def test_the_build_stage_makes_a_wheel_from_what_it_copies(tmp_path: Path) -> None:
    build, final = stages(parse_dockerfile(DOCKERFILE.read_text()))
    assert "pip wheel" in " ".join(i.args for i in build if i.keyword == "RUN")
    assert any(i.args.startswith("--from=build /wheels/") for i in final if i.keyword == "COPY")
    source = copy_into(build, tmp_path / "root")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-q", "-w", str(tmp_path / "wheels"), str(source)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "wheels").glob("pgflow-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if "entry_points" in n)
    assert f"pgflow/sql/pgflow--{pgflow.__version__}.sql" in names
    assert "pgflow-worker = pgflow.cli.worker:main" in entry_points


def run_image_command(app: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The final stage's ENTRYPOINT + CMD with its workdir moved to ``app``, no DSN given."""
    final = stages(parse_dockerfile(DOCKERFILE.read_text()))[-1]
    workdir = next(i.args for i in reversed(final) if i.keyword == "WORKDIR")
    command = [
        str(app) if word == workdir else word
        for i in final
        if i.keyword in ("ENTRYPOINT", "CMD")
        for word in exec_form(i) or []
    ]
    command[0] = str(Path(sys.executable).parent / command[0])
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PGFLOW", "DATABASE_URL"))}
    return subprocess.run(
        command, cwd=app, env={**clean, **env}, capture_output=True, text=True, check=False
    )


def test_the_image_command_loads_its_flows_from_what_the_image_copies(tmp_path: Path) -> None:
    final = stages(parse_dockerfile(DOCKERFILE.read_text()))[-1]
    env = {k: v for i in final if i.keyword == "ENV" for k, v in env_pairs(i).items()}
    app = copy_into(final, tmp_path / "root")
    # The flows import (they load before the DSN is looked up); then no DSN: exit 2, and no
    # attempt at the dev cluster (PGFLOW_DEV_CLUSTER=off from the image's ENV).
    result = run_image_command(app, env)
    assert result.returncode == 2, result.stderr
    assert "no database given" in result.stderr and "the dev cluster is off" in result.stderr
    # Without what the image copies, the same command cannot import them.
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_image_command(empty, env)
    assert result.returncode == 2 and "cannot import" in result.stderr, result.stderr


# ---------------------------------------------------------------- systemd unit


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """``{section: [(key, value), ...]}``, continuation lines joined, comments dropped."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    logical = re.sub(r"\\\n", " ", text)
    for line in (raw.strip() for raw in logical.splitlines()):
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        else:
            key, _, value = line.partition("=")
            current.append((key.strip(), value.strip()))
    return sections


def timespan_seconds(value: str) -> float:
    """A systemd time span (``90``, ``5s``, ``1min 30s``) in seconds; 0 if it is not one."""
    units = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "": 1}
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", value)
    if "".join(n + u for n, u in parts) != value.replace(" ", ""):
        return 0
    return sum(float(n) * units.get(u, 0) for n, u in parts)


def service_problems(text: str, program: str) -> tuple[list[str], dict[str, str], list[str]]:
    """What any pgflow service unit must have; also its [Service] settings and ExecStart."""
    sections = parse_unit(text)
    problems = [f"no [{s}] section" for s in ("Unit", "Service", "Install") if s not in sections]
    service: dict[str, list[str]] = {}
    for key, value in sections.get("Service", []):
        service.setdefault(key, []).append(value)
    one = {key: values[-1] for key, values in service.items()}
    words = shlex.split(one.get("ExecStart", "").lstrip("@-:+!"))
    if not words or not words[0].startswith("/") or Path(words[0]).name != program:
        problems.append(f"ExecStart does not run {program} by its path: {words}")
    else:
        problems += command_problems(program, words[1:])
    expected = {
        "KillSignal": {"SIGTERM"},
        "Restart": {"on-failure", "always", "on-abnormal"},
        "NoNewPrivileges": {"yes", "true"},
        "ProtectSystem": {"strict"},
        "PrivateTmp": {"yes", "true"},
    }
    for key, allowed in expected.items():
        if one.get(key) not in allowed:
            problems.append(f"{key} is {one.get(key)!r}, not one of {sorted(allowed)}")
    if timespan_seconds(one.get("RestartSec", "0")) <= 0:
        problems.append("no RestartSec: a crash loop would spin")
    if one.get("User", "root") in ("root", "0"):
        problems.append("it runs as root")
    if not service.get("EnvironmentFile"):
        problems.append("no EnvironmentFile: where does the DSN come from?")
    environment = [pair for values in service.get("Environment", []) for pair in values.split()]
    if "PGFLOW_DEV_CLUSTER=off" not in environment:
        problems.append("PGFLOW_DEV_CLUSTER=off is not set")
    problems += [
        f"a secret in the unit: {pair}"
        for pair in environment
        if SECRET_NAME.search(pair.split("=")[0]) or DB_URL.search(pair)
    ]
    if DB_URL.search(text):
        problems.append("a database URL in the unit")
    if not dict(sections.get("Install", [])).get("WantedBy"):
        problems.append("no WantedBy: systemctl enable would not start it at boot")
    return problems + worker_env_problems(text), one, words


def unit_problems(text: str) -> list[str]:
    """Everything wrong with the pgflow-worker unit: a service, stopped after the drain."""
    problems, one, words = service_problems(text, "pgflow-worker")
    try:
        context = worker_main.make_context("pgflow-worker", words[1:], auto_envvar_prefix=None)
        grace = float(context.params["shutdown_grace"])
    except click.ClickException as exc:
        return [*problems, f"ExecStart does not parse: {exc.format_message()}"]
    stop = timespan_seconds(one.get("TimeoutStopSec", ""))
    if stop < grace + STOP_MARGIN_SECONDS:
        problems.append(f"TimeoutStopSec {stop:g} s < --shutdown-grace {grace:g} s + 30 s")
    if one.get("KillMode") != "mixed":
        problems.append(f"KillMode is {one.get('KillMode')!r}: SIGTERM goes to the worker alone")
    return problems


def dashboard_problems(text: str) -> list[str]:
    problems, _, words = service_problems(text, "pgflow")
    if words[1:2] != ["dashboard"]:
        problems.append(f"ExecStart does not run `pgflow dashboard`: {words}")
    return problems


def test_the_units_lint_clean() -> None:
    assert unit_problems(UNIT.read_text()) == []
    assert dashboard_problems(DASHBOARD_UNIT.read_text()) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("[Install]", "[Installed]", "no [Install] section"),
        ("TimeoutStopSec=90", "TimeoutStopSec=40", "TimeoutStopSec 40 s"),
        ("--shutdown-grace 30", "--shutdown-grace 80", "--shutdown-grace 80 s"),
        ("--shutdown-grace 30", "--shutdown-grace soon", "does not parse"),
        ("--app-dir /opt", "--app-directory /opt", "no option --app-directory"),
        ("bin/pgflow-worker ", "bin/pgflow ", "does not run pgflow-worker"),
        ("KillMode=mixed", "KillMode=process", "KillMode"),
        ("KillSignal=SIGTERM", "KillSignal=SIGKILL", "KillSignal"),
        ("Restart=on-failure", "Restart=no", "Restart is 'no'"),
        ("RestartSec=5s", "RestartSec=0", "RestartSec"),
        ("User=pgflow", "User=root", "runs as root"),
        ("NoNewPrivileges=yes", "NoNewPrivileges=no", "NoNewPrivileges"),
        ("EnvironmentFile=", "#EnvironmentFile=", "no EnvironmentFile"),
        ("PGFLOW_DEV_CLUSTER=off", "PGFLOW_DEV_CLUSTER=on", "PGFLOW_DEV_CLUSTER=off"),
        ("Environment=PYTHONUNBUFFERED=1", "Environment=DSN=x", "a secret in the unit"),
        ("WantedBy=multi-user.target", "", "no WantedBy"),
        ("PGFLOW_WORKER_MAX_CONCURRENCY", "PGFLOW_WORKER_MAX_CONCURENCY", "--max-concurency"),
    ],
)
def test_each_unit_check_can_fail(old: str, new: str, problem: str) -> None:
    text = UNIT.read_text()
    assert old in text
    found = unit_problems(text.replace(old, new))
    assert any(problem in p for p in found), found


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("pgflow dashboard", "pgflow dashboards", "no such command"),
        ("pgflow dashboard", "pgflow runs", "does not run `pgflow dashboard`"),
        ("--port 8080", "--listen-port 8080", "no option --listen-port"),
        ("User=pgflow", "User=0", "runs as root"),
    ],
)
def test_each_dashboard_unit_check_can_fail(old: str, new: str, problem: str) -> None:
    text = DASHBOARD_UNIT.read_text()
    assert old in text
    found = dashboard_problems(text.replace(old, new))
    assert any(problem in p for p in found), found


def systemd_analyze(*args: str) -> subprocess.CompletedProcess[str]:
    # systemd-analyze is part of Debian's systemd, on the machines this project runs on: a
    # missing binary fails this test rather than skipping the check.
    binary = shutil.which("systemd-analyze")
    assert binary, "systemd-analyze not found (Debian package systemd)"
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False)


def unit_copy(unit: Path, text: str, directory: Path) -> Path:
    """The unit with ExecStart pointed at this checkout's programs (verify wants them)."""
    path = directory / unit.name
    path.write_text(text.replace("/opt/pgflow/venv/bin/", f"{Path(sys.executable).parent}/"))
    return path


def verify_problems(unit: Path, text: str, directory: Path) -> list[str]:
    result = systemd_analyze("verify", "--man=no", str(unit_copy(unit, text, directory)))
    lines = (result.stdout + result.stderr).splitlines()
    found = [line for line in lines if unit.stem.rstrip("@") in line]
    return found + ([f"exit code {result.returncode}"] if result.returncode else [])


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_verify_finds_nothing(unit: Path, tmp_path: Path) -> None:
    assert verify_problems(unit, unit.read_text(), tmp_path) == []
    broken = re.sub(r"(?m)^TimeoutStopSec=.*$", "TimeoutStopSec=ninety", unit.read_text())
    assert any("time" in p for p in verify_problems(unit, broken, tmp_path))


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_security_rates_the_unit_ok(unit: Path, tmp_path: Path) -> None:
    def exposure_over_2(text: str) -> bool:
        path = unit_copy(unit, text, tmp_path)
        args = ("security", "--offline=yes", "--threshold=20", "--no-pager", str(path))
        return systemd_analyze(*args).returncode != 0

    assert not exposure_over_2(unit.read_text())
    hardening = unit.read_text().split("# Hardening:")[1].split("[Install]")[0]
    assert exposure_over_2(unit.read_text().replace(hardening, "\n"))


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
        ("PGFLOW_WORKER_MAX_CONCURRENCY=20\n", "PGFLOW_WORKER_THREADS=2\n", "--threads"),
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
