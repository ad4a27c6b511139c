"""deploy/Dockerfile holds up, without a Docker daemon.

The Dockerfile is parsed and checked in Python (known instructions, pinned base images, a
non-root user, exec-form ENTRYPOINT/CMD, COPY sources present in the build context = the
repository root, no secrets) and its two stages are replayed: the wheel is built from
exactly what the build stage copies, and the image's command loads its flows from what the
run stage copies. Each check also runs on a broken copy, to show that it can fail.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import pgflow
from tests.unit.deploy_files import (
    DB_URL,
    DOCKERFILE,
    ROOT,
    SECRET_NAME,
    command_problems,
    worker_env_problems,
)

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
