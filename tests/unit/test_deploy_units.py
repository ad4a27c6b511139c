"""The systemd units of deploy/ hold up.

Each unit is parsed, its command line parsed by the program's own option parser (stop
timeout, restart policy, user, environment file, no secrets, hardening), and checked by
``systemd-analyze verify`` and ``security``. Each check also runs on a broken copy.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pgflow.cli.worker import main as worker_main
from tests.unit.deploy_files import (
    DASHBOARD_UNIT,
    DB_URL,
    SECRET_NAME,
    STOP_MARGIN_SECONDS,
    UNIT,
    UNITS,
    command_problems,
    worker_env_problems,
)

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
