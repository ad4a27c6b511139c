"""`pgflow workers` and `pgflow flows` without a database: usage errors and the tables."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from pgflow.cli import observe
from pgflow.cli.main import main
from pgflow.observe.flow_stats import StepStats
from pgflow.observe.workers import DeadWorkerTask, WorkerRow

AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
WORKER = uuid.UUID("3f2a1b0c-0000-4000-8000-000000000001")
RUN = uuid.UUID("7f3e4c1a-0000-4000-8000-000000000002")


def invoke(*args):
    return CliRunner().invoke(main, [*args, "--dsn", "host=/nonexistent"])


def test_both_commands_are_registered():
    result = CliRunner().invoke(main, ["--help"])

    assert result.exit_code == 0
    assert "workers" in result.stdout
    assert "flows" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["flows", "--window", "1h"], "--window needs FLOW"),
        (["flows", "obs", "--window", "2h"], "'2h' is not one of '1h', '24h', '7d'"),
        (["workers", "--dead-after", "0"], "--dead-after"),
        (["workers", "--dead-after", "soon"], "--dead-after"),
    ],
)
def test_usage_errors_exit_2_before_connecting(args, message):
    result = invoke(*args)

    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_an_unreachable_database_exits_1():
    result = invoke("workers")

    assert result.exit_code == 1
    assert "Error:" in result.stderr


def worker(state: str, in_flight: int, age: float) -> WorkerRow:
    return WorkerRow(WORKER, "obs", "fn", AT, AT, age, state, in_flight)  # type: ignore[arg-type]


def test_the_workers_table_writes_dead_in_capitals():
    text = observe.workers_table([worker("live", 1, 4.2), worker("dead", 3, 7300)])

    header, live, dead = text.splitlines()
    assert header.split()[3] == "STATE"
    assert live.split()[3:4] + live.split()[-3:] == ["live", "4s", "ago", "1"]
    assert dead.split()[3:4] + dead.split()[-3:] == ["DEAD", "2h", "ago", "3"]


@pytest.mark.parametrize(
    ("run_status", "sweep_in_s", "cell"),
    [
        ("started", 95.0, "in 1m"),
        ("started", -3.0, "at the next tick"),
        ("paused", 95.0, "after resume"),
    ],
)
def test_the_dead_tasks_table_says_when_the_sweep_requeues(run_status, sweep_in_s, cell):
    task = DeadWorkerTask(
        run_id=RUN,
        flow_slug="obs",
        step_slug="parse",
        task_index=7,
        attempt=2,
        requeued_count=0,
        started_at=AT,
        run_status=run_status,
        worker_id=WORKER,
        worker_state="dead",
        last_heartbeat_at=AT,
        heartbeat_age_s=300.0,
        sweep_at=AT + timedelta(seconds=90),
        sweep_in_s=sweep_in_s,
    )

    header, row = observe.dead_tasks_table([task]).splitlines()

    assert header.split()[:4] == ["RUN", "FLOW", "STEP", "TASK"]
    assert row.split()[:7] == [str(RUN), "obs", "parse", "7", "2", "3f2a1b0c", "dead"]
    assert row.endswith(cell)


def test_the_steps_table_says_rates_and_durations():
    steps = [
        StepStats("fetch", 200, 190, 10, 1, 0, 0.05, 30, 0.15, 0.4321, 12.5),
        StepStats("idle", 0, 0, 0, 0, 0, None, 0, None, None, None),
    ]

    header, fetch, idle = observe.steps_table(steps).splitlines()

    assert header.split()[:3] == ["STEP", "FINISHED", "FAILED"]
    assert fetch.split() == [
        "fetch",
        "200",
        "10",
        "5.0%",
        "30",
        "15.0%",
        "432",
        "ms",
        "12.5",
        "s",
        "1",
    ]
    assert idle.split() == ["idle", "0", "0", "-", "0", "-", "-", "-", "0"]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "-"), (0.0004, "0 ms"), (0.25, "250 ms"), (1.0, "1.0 s"), (75, "1 min 15 s")],
)
def test_took(seconds, text):
    assert observe.took(seconds) == text
