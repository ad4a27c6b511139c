"""The SQL side of the model property tests: a simulated worker and operator that drive one
run of a drawn flow purely through the SQL API (test_model_property.py); wait_driver.py
holds the calls about waits and signals."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from tests.integration.flow_model import Key
from tests.integration.flow_spec import FlowSpec
from tests.integration.wait_driver import define_wait

ACTOR = "property-test"
#: the run_events event each run-control verb records first
VERB_EVENTS = {
    "cancel_run": "run:cancelled",
    "pause_run": "run:paused",
    "resume_run": "run:resumed",
    "retry_run": "run:retried",
    "skip_step": "step:skipped",
}


def add_step(
    conn: psycopg.Connection[Any], flow_slug: str, s: Any, max_in_flight: int | None = None
) -> None:
    """``pgflow.add_step`` of step ``s`` (a flow_spec step) of flow ``flow_slug``, every option."""
    conn.execute(
        "select pgflow.add_step(%s, %s, %s, max_attempts => %s, base_delay => %s,"
        " start_delay => %s, step_type => %s, required_input_pattern => %s::jsonb,"
        " forbidden_input_pattern => %s::jsonb, when_unmet => %s, when_exhausted => %s,"
        " max_in_flight => %s)",
        (
            flow_slug,
            s.slug,
            list(s.deps),
            s.max_attempts,
            s.base_delay,
            s.start_delay,
            s.kind,
            None if s.required is None else json.dumps(s.required),
            None if s.forbidden is None else json.dumps(s.forbidden),
            s.when_unmet,
            s.when_exhausted,
            max_in_flight,
        ),
    )


class Driver:
    """Creates a flow and drives one run of it through the SQL API."""

    def __init__(self, conn: psycopg.Connection, slug: str, flow: FlowSpec) -> None:
        self.conn, self.slug, self.flow = conn, slug, flow
        self.worker_id = uuid.uuid4()
        self.run_id: str | None = None
        #: completed_at values complete_task returned per task (one = completed once)
        self.completions: dict[Key, set[Any]] = {}
        #: handler calls per task, across the runs of its step (a retried step calls again)
        self.calls: dict[Key, int] = {}

    def define(self) -> None:
        flow = self.flow
        self.conn.execute(
            "select pgflow.create_flow(%s, max_attempts => %s, base_delay => %s)",
            (self.slug, flow.max_attempts, flow.base_delay),
        )
        for s in flow.steps:
            add_step(self.conn, self.slug, s)
            if s.wait is not None:
                define_wait(self.conn, self.slug, s)
        self.conn.execute(
            "select pgflow.register_worker(%s, %s, 'property-test')", (self.worker_id, self.slug)
        )

    def start(self, run_input: Any) -> None:
        row = self.conn.execute(
            "select run_id from pgflow.start_flow(%s, %s::jsonb)",
            (self.slug, json.dumps(run_input)),
        ).fetchone()
        assert row is not None
        self.run_id = str(row[0])

    def read_visible(self) -> dict[Key, int]:
        """Make every message visible now, read them all: (step, task_index) -> msg_id."""
        self.conn.execute(
            sql.SQL("update pgmq.{} set vt = clock_timestamp() - interval '1 second'").format(
                sql.Identifier(f"q_{self.slug}")
            )
        )
        rows = self.conn.execute(
            "select msg_id, message from pgmq.read(%s, 30, 1000)", (self.slug,)
        ).fetchall()
        visible = {}
        for msg_id, message in rows:
            assert message["run_id"] == self.run_id
            key = (message["step_slug"], message["task_index"])
            assert key not in visible, f"two visible messages for task {key}"
            visible[key] = msg_id
        return visible

    def start_tasks(self, msg_ids: list[int]) -> dict[Key, tuple[Any, Any]]:
        rows = self.conn.execute(
            "select step_slug, task_index, input, flow_input"
            " from pgflow.start_tasks(%s, %s::bigint[], %s)",
            (self.slug, msg_ids, self.worker_id),
        ).fetchall()
        return {
            (step, index): (task_input, flow_input) for step, index, task_input, flow_input in rows
        }

    def handler_call(self, key: Key) -> int:
        """The handler of a claimed task is called: the how-manieth call of it this is."""
        self.calls[key] = self.calls.get(key, 0) + 1
        return self.calls[key]

    def complete(self, key: Key, output: Any) -> None:
        row = self.conn.execute(
            "select completed_at from pgflow.complete_task(%s::uuid, %s, %s, %s::jsonb)",
            (self.run_id, key[0], key[1], json.dumps(output)),
        ).fetchone()
        if row is not None and row[0] is not None:
            self.completions.setdefault(key, set()).add(row[0])

    def complete_many(self, items: list[tuple[Key, Any]]) -> None:
        """Report several outputs in one pgflow.complete_tasks call, in list order."""
        rows = self.conn.execute(
            "select step_slug, task_index, status"
            " from pgflow.complete_tasks(%s::uuid[], %s::text[], %s::int[], %s::jsonb[])",
            (
                [self.run_id] * len(items),
                [key[0] for key, _ in items],
                [key[1] for key, _ in items],
                [json.dumps(output) for _, output in items],
            ),
        ).fetchall()
        assert [(r[0], r[1]) for r in rows] == [key for key, _ in items], "one row per item"

    def fail(self, key: Key, error: str) -> None:
        self.conn.execute(
            "select pgflow.fail_task(%s::uuid, %s, %s, %s)", (self.run_id, key[0], key[1], error)
        )

    def control(self, verb: str, step: str | None, reason: str) -> tuple[Any, ...]:
        """Call run-control verb ``verb`` (skip_step: of ``step``); returns its result row
        (run_id, status, changed, detail)."""
        if verb == "skip_step":
            query = f"select * from pgflow.{verb}(%s::uuid, %s, %s, %s)"
            params: tuple[Any, ...] = (self.run_id, step, ACTOR, reason)
        else:
            query = f"select * from pgflow.{verb}(%s::uuid, %s, %s)"
            params = (self.run_id, ACTOR, reason)
        rows = self.conn.execute(query, params).fetchall()
        assert len(rows) == 1, f"{verb} returned {len(rows)} rows"
        return tuple(rows[0])

    def last_event_id(self) -> int:
        row = self.conn.execute(
            "select coalesce(max(id), 0) from pgflow.run_events where run_id = %s", (self.run_id,)
        ).fetchone()
        assert row is not None
        return int(row[0])

    def events_since(self, event_id: int) -> list[tuple[str, str | None, str]]:
        """(event, step_slug, actor) of the run's events after ``event_id``, in order."""
        rows = self.conn.execute(
            "select event, step_slug, actor from pgflow.run_events"
            " where run_id = %s and id > %s order by id",
            (self.run_id, event_id),
        ).fetchall()
        return [tuple(r) for r in rows]

    def state(self) -> dict[str, Any]:
        """The run, its steps, tasks, queue and archive as they are."""
        with self.conn.cursor(row_factory=dict_row) as cur:
            run = cur.execute(
                "select * from pgflow.runs where run_id = %s", (self.run_id,)
            ).fetchone()
            steps = cur.execute(
                "select * from pgflow.step_states where run_id = %s", (self.run_id,)
            ).fetchall()
            tasks = cur.execute(
                "select * from pgflow.step_tasks where run_id = %s", (self.run_id,)
            ).fetchall()
            queue = cur.execute(
                sql.SQL("select msg_id, vt, read_ct from pgmq.{} order by msg_id").format(
                    sql.Identifier(f"q_{self.slug}")
                )
            ).fetchall()
            archived = cur.execute(
                sql.SQL("select count(*) as n from pgmq.{}").format(
                    sql.Identifier(f"a_{self.slug}")
                )
            ).fetchone()
            events = cur.execute(
                "select count(*) as n from pgflow.run_events where run_id = %s", (self.run_id,)
            ).fetchone()
        return {
            "run": run,
            "steps": {r["step_slug"]: r for r in steps},
            "tasks": {(r["step_slug"], r["task_index"]): r for r in tasks},
            "queue": queue,
            "archived": archived["n"] if archived else 0,
            "events": events["n"] if events else 0,
        }
