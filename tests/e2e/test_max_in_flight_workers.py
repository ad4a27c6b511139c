"""Two real workers serve a map step with max_in_flight 2: never more than 2 of its tasks
are started at once, nor are more than 2 of its handlers running, and the run completes.

Each handler counts itself in and out of a table while it holds for 0.2 s (the most that
ran at once is kept there), and a sampler counts, from its own connection, the step's
started tasks in pgflow.step_tasks during the whole run. Tasks held back by the limit
spend no attempt: every task completes on its first.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.keyed_sessions import Sampler
from tests.integration.worker_harness import start_flow, step_tasks, wait_run

pytestmark = pytest.mark.e2e

THROTTLED = "tests.e2e.flows.throttled:throttled"
ITEMS = 12
STARTED = (
    "select count(*) from pgflow.step_tasks"
    " where flow_slug = 'throttled' and step_slug = 'call_api' and status = 'started'"
)


def test_two_workers_never_run_more_than_max_in_flight_tasks_of_the_step(
    pgflow_conn: psycopg.Connection, pgflow_dsn: str, start_worker
) -> None:
    pgflow_conn.execute("create table e2e_in_flight (running int not null, peak int not null)")
    pgflow_conn.execute("insert into e2e_in_flight values (0, 0)")
    for _ in range(2):
        worker = start_worker(
            THROTTLED,
            "--max-concurrency",
            "5",
            "--batch-size",
            "10",
            "--poll-interval",
            "0.1",
            env={"E2E_DSN": pgflow_dsn},
        )
        worker.wait_running()  # one after the other: the first compiles the flow
    limit = pgflow_conn.execute(
        "select opt_max_in_flight from pgflow.steps where step_slug = 'call_api'"
    ).fetchone()
    assert limit == (2,)

    with Sampler(pgflow_dsn, STARTED) as sampler:
        run_id = start_flow(pgflow_conn, "throttled", list(range(ITEMS)))
        run = wait_run(pgflow_conn, run_id, timeout=60)

    assert run["status"] == "completed"
    assert run["output"] == {"total": 10 * sum(range(ITEMS))}
    assert 1 <= sampler.peak <= 2, sampler.counts()
    handlers = pgflow_conn.execute("select running, peak from e2e_in_flight").fetchone()
    assert handlers is not None
    running, peak = handlers
    assert running == 0 and 1 <= peak <= 2, handlers
    tasks = [t for t in step_tasks(pgflow_conn, run_id) if t["step_slug"] == "call_api"]
    assert [(t["status"], t["attempts_count"]) for t in tasks] == [("completed", 1)] * ITEMS
    assert pgflow_conn.execute("select count(*) from pgflow.throttled_messages").fetchone() == (0,)
