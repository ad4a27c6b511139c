"""The SQL side of the keyed-runs model property test (test_model_keyed_runs.py): defines
the flow with its keyed options and drives several runs of it purely through the SQL API,
as a worker, an operator and the clock would."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from tests.integration.keyed_model import Key3
from tests.integration.keyed_scenarios import KeyedScenario
from tests.integration.model_driver import ACTOR, add_step

#: started_at of a task that looks stalled: far past any step timeout + 30 s
STALLED = "1 day"


class KeyedDriver:
    """Creates a flow and drives its runs; runs are known by number (creation order)."""

    def __init__(self, conn: psycopg.Connection, slug: str, scenario: KeyedScenario) -> None:
        self.conn, self.slug, self.scenario = conn, slug, scenario
        self.worker_id = uuid.uuid4()
        self.run_ids: list[str] = []  # run number -> run_id
        self.queue = sql.Identifier(f"q_{slug}")

    def define(self) -> None:
        sc = self.scenario
        self.conn.execute(
            "select pgflow.create_flow(%s, max_attempts => %s, base_delay => %s,"
            " concurrency_limit => %s, on_limit => %s, run_timeout => %s)",
            (
                self.slug,
                sc.flow.max_attempts,
                sc.flow.base_delay,
                sc.concurrency_limit,
                sc.on_limit,
                sc.run_timeout,
            ),
        )
        for s in sc.flow.steps:
            limited = sc.max_in_flight is not None and sc.max_in_flight[0] == s.slug
            add_step(
                self.conn,
                self.slug,
                s,
                sc.max_in_flight[1] if limited and sc.max_in_flight else None,
            )
        self.conn.execute(
            "select pgflow.register_worker(%s, %s, 'property-test')", (self.worker_id, self.slug)
        )

    # ------------------------------------------------------------ starts
    def start(self, idem: str | None, key: str | None, deadline: bool) -> tuple[int, str, bool]:
        """``start_flow``: (run number, status, duplicate); a new run gets the next number."""
        row = self.conn.execute(
            "select run_id, status, duplicate from pgflow.start_flow(%s, %s::jsonb,"
            " idempotency_key => %s, concurrency_key => %s,"
            " deadline => case when %s then now() + interval '1 hour' end)",
            (self.slug, json.dumps(self.scenario.run_input), idem, key, deadline),
        ).fetchone()
        assert row is not None
        run_id, status, duplicate = str(row[0]), row[1], row[2]
        if run_id not in self.run_ids:
            self.run_ids.append(run_id)
        return self.run_ids.index(run_id), status, duplicate

    def run_count(self) -> int:
        row = self.conn.execute(
            "select count(*) from pgflow.runs where flow_slug = %s", (self.slug,)
        ).fetchone()
        assert row is not None
        return int(row[0])

    # ------------------------------------------------------------ the worker
    def _key(self, message: dict[str, Any]) -> Key3:
        assert message["run_id"] in self.run_ids, f"a message of an unknown run {message}"
        return self.run_ids.index(message["run_id"]), message["step_slug"], message["task_index"]

    def read_visible(self) -> dict[Key3, int]:
        """Make every message visible now but those max_in_flight holds back, read them all:
        task -> msg_id."""
        self.conn.execute(
            sql.SQL(
                "update pgmq.{} set vt = clock_timestamp() - interval '1 second' where msg_id"
                " not in (select message_id from pgflow.throttled_messages where flow_slug = %s)"
            ).format(self.queue),
            (self.slug,),
        )
        rows = self.conn.execute(
            "select msg_id, message from pgmq.read(%s, 30, 1000)", (self.slug,)
        ).fetchall()
        visible: dict[Key3, int] = {}
        for msg_id, message in rows:
            key = self._key(message)
            assert key not in visible, f"two visible messages for task {key}"
            visible[key] = msg_id
        return visible

    def start_tasks(self, msg_ids: list[int]) -> dict[Key3, tuple[Any, Any]]:
        rows = self.conn.execute(
            "select run_id, step_slug, task_index, input, flow_input"
            " from pgflow.start_tasks(%s, %s::bigint[], %s)",
            (self.slug, msg_ids, self.worker_id),
        ).fetchall()
        return {
            (self.run_ids.index(str(run_id)), step, index): (task_input, flow_input)
            for run_id, step, index, task_input, flow_input in rows
        }

    def complete(self, key: Key3, output: Any) -> None:
        self.conn.execute(
            "select pgflow.complete_task(%s::uuid, %s, %s, %s::jsonb)",
            (self.run_ids[key[0]], key[1], key[2], json.dumps(output)),
        )

    def fail(self, key: Key3, error: str) -> None:
        self.conn.execute(
            "select pgflow.fail_task(%s::uuid, %s, %s, %s)",
            (self.run_ids[key[0]], key[1], key[2], error),
        )

    # ------------------------------------------------------------ operator and clock
    def control(self, verb: str, number: int, reason: str) -> tuple[Any, ...]:
        """Call run-control ``verb`` on run ``number``: (run_id, status, changed, detail)."""
        rows = self.conn.execute(
            f"select * from pgflow.{verb}(%s::uuid, %s, %s)",
            (self.run_ids[number], ACTOR, reason),
        ).fetchall()
        assert len(rows) == 1, f"{verb} returned {len(rows)} rows"
        return tuple(rows[0])

    def pass_deadline(self, number: int) -> None:
        """The run's deadline passes (set a second in the past)."""
        self.conn.execute(
            "update pgflow.runs set deadline = now() - interval '1 second' where run_id = %s",
            (self.run_ids[number],),
        )

    def stall(self, key: Key3) -> None:
        """The started task looks stalled: started (and queued) a day ago."""
        self.conn.execute(
            f"update pgflow.step_tasks set queued_at = now() - interval '{STALLED} 1 second',"
            f" started_at = now() - interval '{STALLED}'"
            " where run_id = %s and step_slug = %s and task_index = %s and status = 'started'",
            (self.run_ids[key[0]], key[1], key[2]),
        )

    def tick(self) -> dict[str, Any]:
        with self.conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute("select * from pgflow.tick()").fetchone()
        assert row is not None
        return row

    # ------------------------------------------------------------ what the database holds
    def snapshot(self) -> dict[str, Any]:
        """Per run (by number): the run, its steps, tasks and queue messages as compare_state
        reads them; every task of the flow; the messages held back (``hidden``: task ->
        msg_id, listed in throttled_messages and in the queue, invisible)."""
        with self.conn.cursor(row_factory=dict_row) as cur:
            runs = cur.execute(
                "select *, deadline <= now() as past from pgflow.runs where flow_slug = %s",
                (self.slug,),
            ).fetchall()
            steps = cur.execute(
                "select * from pgflow.step_states where flow_slug = %s", (self.slug,)
            ).fetchall()
            tasks = cur.execute(
                "select * from pgflow.step_tasks where flow_slug = %s", (self.slug,)
            ).fetchall()
            queue = cur.execute(
                sql.SQL(
                    "select msg_id, vt > clock_timestamp() as invisible, message from pgmq.{}"
                    " order by msg_id"
                ).format(self.queue)
            ).fetchall()
            throttled = cur.execute(
                "select message_id from pgflow.throttled_messages where flow_slug = %s",
                (self.slug,),
            ).fetchall()
        by_run: dict[str, dict[str, Any]] = {
            str(r["run_id"]): {"run": r, "steps": {}, "tasks": {}, "queue": []} for r in runs
        }
        for s in steps:
            by_run[str(s["run_id"])]["steps"][s["step_slug"]] = s
        for t in tasks:
            by_run[str(t["run_id"])]["tasks"][(t["step_slug"], t["task_index"])] = t
        in_queue = {}
        for m in queue:
            by_run[m["message"]["run_id"]]["queue"].append(m)
            in_queue[m["msg_id"]] = m
        hidden = {}
        for row in throttled:
            message = in_queue.get(row["message_id"])
            if message is not None:
                hidden[self._key(message["message"])] = row["message_id"]
                assert message["invisible"], f"held message {row['message_id']} is visible"
        known = [by_run[run_id] for run_id in self.run_ids if run_id in by_run]
        assert len(known) == len(by_run), "a run the driver never started"
        return {"runs": known, "tasks": tasks, "hidden": hidden}
