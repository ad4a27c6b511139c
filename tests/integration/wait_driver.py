"""The SQL side of waits (#13) in the model property tests: defining a step's wait, sending
signals, letting a wait's deadline pass, ticking, and reading what the run's waits and
signals look like (model_driver.py drives the rest)."""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from tests.integration.flow_spec import StepSpec
from tests.integration.model_scenarios import SignalDraw


def define_wait(conn: psycopg.Connection, flow_slug: str, step: StepSpec) -> None:
    """``add_wait`` / ``add_timer`` for ``step`` (added already with add_step)."""
    wait = step.wait
    assert wait is not None
    if wait.kind == "timer":
        conn.execute(
            "select pgflow.add_timer(%s, %s, seconds => %s, until_path => %s)",
            (flow_slug, step.slug, wait.seconds, wait.until),
        )
        return
    conn.execute(
        "select pgflow.add_wait(%s, %s, %s, signal_match => %s::jsonb, timeout => %s,"
        " on_timeout => %s, runs_handler => %s)",
        (
            flow_slug,
            step.slug,
            wait.signal_name,
            None if wait.match is None else json.dumps(wait.match),
            wait.timeout,
            wait.on_timeout,
            wait.runs_handler,
        ),
    )


class WaitDriver:
    """The waits and signals of one run, through SQL."""

    def __init__(self, conn: psycopg.Connection, flow_slug: str, run_id: str, actor: str):
        self.conn, self.flow_slug, self.run_id, self.actor = conn, flow_slug, run_id, actor

    def send_signal(self, signal: SignalDraw) -> dict[str, Any]:
        """``pgflow.send_signal`` (payload None: sent as SQL NULL); returns its one row."""
        payload = None if signal.payload is None else json.dumps(signal.payload)
        with self.conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select * from pgflow.send_signal(%s::uuid, %s, %s::jsonb, %s, %s, %s)",
                (self.run_id, signal.name, payload, signal.key, self.actor, "property test"),
            ).fetchall()
        assert len(rows) == 1, f"send_signal returned {len(rows)} rows"
        return rows[0]

    def deadline_waits(self) -> list[str]:
        """The run's unresolved waits that have a deadline, in step order."""
        rows = self.conn.execute(
            "select ws.step_slug from pgflow.wait_states as ws"
            " join pgflow.steps as s on s.flow_slug = ws.flow_slug and s.step_slug = ws.step_slug"
            " where ws.run_id = %s and ws.resolved_at is null and ws.deadline is not null"
            " order by s.step_index",
            (self.run_id,),
        ).fetchall()
        return [r[0] for r in rows]

    def pass_deadline(self, step_slug: str) -> None:
        """Time passes (tests only): the wait's deadline is a second ago."""
        self.conn.execute(
            "update pgflow.wait_states set deadline = now() - interval '1 second'"
            " where run_id = %s and step_slug = %s and resolved_at is null",
            (self.run_id, step_slug),
        )

    def tick(self) -> tuple[bool, int, int]:
        """``pgflow.tick()``: (ran, fired_waits, requeued_tasks)."""
        row = self.conn.execute("select * from pgflow.tick()").fetchone()
        assert row is not None
        return bool(row[0]), int(row[1]), int(row[2])

    def state(self) -> dict[str, Any]:
        """The run's signals, waits, wait events, what get_step_signal says per signal
        wait, what waiting steps hold, and whether fired timers' outputs fit their waits."""
        run, flow = self.run_id, self.flow_slug
        with self.conn.cursor(row_factory=dict_row) as cur:
            signals = cur.execute(
                "select signal_id, signal_name, payload, idempotency_key, status, taken_by_step,"
                " taken_at from pgflow.signals where run_id = %s order by signal_id",
                (run,),
            ).fetchall()
            waits = cur.execute(
                "select step_slug, deadline, deadline <= now() as passed, resolved_at, outcome,"
                " signal_id, error_message from pgflow.wait_states where run_id = %s",
                (run,),
            ).fetchall()
            events = cur.execute(
                "select id, event, step_slug, details from pgflow.run_events"
                " where run_id = %s and (event like 'signal:%%' or event like 'wait:%%'"
                " or event like 'timer:%%' or event = 'step:waiting') order by id",
                (run,),
            ).fetchall()
            step_signals = cur.execute(
                "select w.step_slug, g.signal_id, g.signal_name, g.payload, g.timed_out"
                " from pgflow.step_waits as w"
                " cross join lateral pgflow.get_step_signal(%s, w.step_slug) as g"
                " where w.flow_slug = %s",
                (run, flow),
            ).fetchall()
            holds = cur.execute(
                sql.SQL(
                    "select ss.step_slug,"
                    " (select count(*) from pgflow.step_tasks as t"
                    "   where t.run_id = ss.run_id and t.step_slug = ss.step_slug) as tasks,"
                    " (select count(*) from pgmq.{} as q where q.message->>'run_id' = %s"
                    "   and q.message->>'step_slug' = ss.step_slug) as messages"
                    " from pgflow.step_states as ss where ss.run_id = %s and ss.status = 'waiting'"
                ).format(sql.Identifier(f"q_{flow}")),
                (run, run),
            ).fetchall()
            timers = cur.execute(
                "select ss.step_slug, (ss.output->>'due_at')::timestamptz = ws.deadline as due_ok,"
                " (ss.output->>'fired_at')::timestamptz = ws.resolved_at as fired_ok"
                " from pgflow.step_states as ss"
                " join pgflow.wait_states as ws on ws.run_id = ss.run_id"
                "   and ws.step_slug = ss.step_slug"
                " join pgflow.step_waits as w on w.flow_slug = ss.flow_slug"
                "   and w.step_slug = ss.step_slug"
                " where ss.run_id = %s and ss.status = 'completed' and w.kind = 'timer'",
                (run,),
            ).fetchall()
        return {
            "signals": signals,
            "waits": {r["step_slug"]: r for r in waits},
            "events": events,
            "step_signals": {r["step_slug"]: r for r in step_signals},
            "holds": holds,
            "timers": timers,
        }
