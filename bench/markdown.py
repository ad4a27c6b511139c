"""The markdown report (bench/results/results.md)."""

from __future__ import annotations

from typing import Any

from bench.procs import DEFAULTS_ARGS
from bench.report import Results, fmt, target_lines
from bench.stats import Measurement

L1_LABELS = {
    "notify": "NOTIFY (worker default: pgmq throttle 20 ms)",
    "notify0": "NOTIFY, pgmq throttle 0 ms (diagnostic)",
    "poll": "polling only (--poll-interval 1 s)",
}

METHOD = """\
- Commit setting: the headline runs with PostgreSQL's default `synchronous_commit = on`
  (set on each bench database), so every commit waits for its WAL flush, as in production
  by default. Rows marked "synchronous_commit off" repeat the ceilings, W1–W4 and START
  with it off (commits return before the flush); each is compared with the ceiling measured
  under the same setting. The targets of issue 6 are kept on the "off" rows.
- W1–W4: the worker processes start first, on an empty queue; once each has polled it
  (as the ceiling's clients start together behind a barrier) the runs are started
  (set-based) and the tables analyzed in one transaction, so the tasks appear at once for
  every worker. The drain time runs on the database clock from the first task claimed to
  the last run completed; the time from spawning the workers until every one had polled
  is in results.json as `ready_s`, with `wall_s` from spawning the workers. Throughput =
  completed tasks / drain time. Until 2026-12-02 the runs were started first and the
  workers spawned after: the drain began at the first worker's first claim while the
  second was still starting (about 75 ms later, its start-up work on the same 2 cores).
  Same engine code, runs that day: W1 118% and 140% of ceiling (b) in two runs the old
  way, 153-190% in five runs this way, so W1 numbers before and after that date do not
  compare. Every workload and
  repeat gets a fresh database cloned from a template. W1.defaults to W4.defaults repeat
  each drain with the workers at their own defaults (<defaults>).
- Ceiling: raw pgmq on the same cluster, same number of client processes (one connection
  each), draining a pre-filled queue of pgflow-shaped messages: (a) read 10 + archive the
  batch; (b) read 10 + one archive transaction per message (the per-task commit ceiling).
- START: `select pgflow.start_flow('bench_w1', '{}')` in a loop from one connection
  (one transaction per call), NOTIFY enabled on the queue as a worker leaves it.
- KEYED: START's loop on one fresh database with five kinds of call interleaved (rounds of
  N calls of each, the order rotated each round): no key (START's query), a new
  `idempotency_key` per call, a `concurrency_key` of a copy of bench_w1 with
  `concurrency_limit` 1,000,000 (a pool of N keys: each holds at most one run per round,
  nothing queues), a `deadline`, and a repeated `idempotency_key` (the first run returned,
  nothing written). Rate = median over the rounds; `.ratio` = median of the per-round
  ratios to no key, the number to compare (never absolute rates across runs).
- CLOCK: the cost of the engine's time source, `pgflow._now()` (`now()` plus the test
  clock's offset, an empty table outside tests), for a flow that never moves the clock: one
  `_now()` call minus one `now()` call (timed over 100,000 calls in a PL/pgSQL loop) x the
  `_now()` calls of one `start_flow` of a one-step flow and of claiming and completing its
  task (counted with `track_functions`), over the client-timed engine time of those calls.
- L1: one idle worker; runs started open-loop at a fixed rate; latency = the handler's
  `time.time()` − the client's `time.time()` just before `start_flow`. NOTIFY mode uses
  the worker defaults (pgmq NOTIFY throttled to 20 ms); polling mode `--no-listen` with
  the default `--poll-interval`.
- S1: one client times each call (round trip); tasks are claimed by the benchmark with
  `pgmq.read` + `pgflow.start_tasks`. The history is written straight into the tables
  (runs, step_states, step_tasks, pgmq archive; 2% failed), then vacuumed and analyzed.
- S1 dashboard pages: in S1's filled database, the real dashboard app
  (`pgflow.dashboard.create_app`: queries, templates, pool) driven in-process by
  Starlette's TestClient; each page fetched once untimed (its first visit: a flow page
  then writes the 5-minute stats buckets of its window once), then N times; median and p95
  of the whole GET.
- P: one `start_flow` call with a 100,000-element array input, timed from the client.
- W3 pace: map-task completions per second in the last quarter of the map / in the first
  quarter (target chosen here: >= 0.8, i.e. no slowdown beyond noise).
- W4: one run of a root map over 10,000 items, a map over its output, then a reduce. W4
  pace is W3's measure for the dependent map (from when it started): its claims read each
  task's element, so a claim must cost the same whatever the array's size (>= 0.8).""".replace(
    "<defaults>", DEFAULTS_ARGS
)


def _detail(m: Measurement) -> str:
    d = m.details
    parts = []
    if "tasks" in d:
        parts.append(f"{d['tasks']:,} tasks")
    if "drain_s" in d:
        parts.append(f"drain {d['drain_s']} s")
    if "ready_s" in d:
        parts.append(f"workers polling after {d['ready_s']} s")
    if "startup_s" in d:  # peers: spawn to first claim
        parts.append(f"worker start-up {d['startup_s']} s")
    if "messages" in d:
        parts.append(f"{d['messages']:,} messages")
    if "calls" in d:
        parts.append(f"{d['calls']:,} calls")
    if "items" in d:
        parts.append(f"{d['items']:,} items")
    cpu = d.get("cpu") or {}
    if cpu.get("worker_cpu_ms_per_task") is not None:
        parts.append(
            f"CPU per task: workers {cpu['worker_cpu_ms_per_task']} ms, their PostgreSQL "
            f"backends {cpu.get('backend_cpu_ms_per_task')} ms "
            f"({cpu.get('window_cores_used')} cores busy)"
        )
    if "commits_per_task" in d:
        parts.append(f"≈{d['commits_per_task']} commits per task")
    if "rate_by_tenth" in d:
        parts.append(
            "tasks/s by tenth of the map: " + ", ".join(fmt(r) for r in d["rate_by_tenth"])
        )
    if "note" in d:
        parts.append(str(d["note"]))
    return "; ".join(str(p) for p in parts)


def _row(m: Measurement) -> str:
    spread = f"{fmt(m.low)}–{fmt(m.high)}" if len(m.values) > 1 else ""
    return f"| {m.label} | {fmt(m.median, m.unit)} | {spread} | {len(m.values)} | {_detail(m)} |"


def _environment(meta: dict[str, Any]) -> list[str]:
    env = meta.get("environment", {})
    s = env.get("settings", {})
    cfg = meta.get("config", {})
    lines = [
        f"Run {meta.get('started_at', '?')}, {meta.get('duration_s', '?')} s in total, "
        f"`{meta.get('command', 'python -m bench.run')}`"
        + (" — **quick sizes, not comparable**" if cfg.get("quick") else "")
        + ".",
        "",
        f"Server: PostgreSQL {s.get('server_version', '?')}, {env.get('server', '?')}, "
        f"server synchronous_commit={s.get('synchronous_commit')} (each bench database sets "
        f"its own: {cfg.get('synchronous_commit', 'server default')}), fsync={s.get('fsync')}, "
        f"shared_buffers={s.get('shared_buffers')}; {env.get('cpu_count', '?')} cores"
        + (
            f" (load average {env['load_average_at_start'][0]} at the start)"
            if env.get("load_average_at_start")
            else ""
        )
        + f"; Python {env.get('python', '?')}; pgflow {env.get('pgflow', '?')}.",
        "",
        f"Workers: {cfg.get('processes')} `pgflow-worker` processes, --max-concurrency "
        f"{cfg.get('max_concurrency')}, --batch-size {cfg.get('batch_size')}, "
        f"--complete-batch-size {cfg.get('complete_batch_size', 100)}, "
        f"--max-connections {cfg.get('max_connections')}, async no-op handlers, log level "
        f"{cfg.get('log_level')}. Ceiling: the same number of client processes (and 1 for "
        f"the start_flow target). Each workload repeated {cfg.get('repeat')} times; medians, "
        "spread = min–max over the repeats.",
    ]
    for merged in meta.get("merged_runs", []):
        lines += [
            "",
            f"Merged: {', '.join(merged.get('workloads', []))} from a run at "
            f"{merged.get('started_at')} ({merged.get('duration_s')} s, "
            f"`{merged.get('command')}`), same cluster and settings.",
        ]
    return lines


def _dashboard_pages(ms: dict[str, Measurement]) -> list[str]:
    """The S1 dashboard pages' table (bench/dashboard_pages.py), when measured."""
    pages = [m for key, m in ms.items() if key.startswith("S1.dashboard.") and m.values]
    if not pages:
        return []
    out = [
        "",
        "## S1 dashboard pages (ms per GET over the S1 history)",
        "",
        "| page | median | p95 | first visit | GETs |",
        "|---|---|---|---|---|",
    ]
    for m in pages:
        page = m.label.removeprefix("S1 dashboard ").split(", 1")[0]
        d = m.details
        out.append(
            f"| {page} | {fmt(m.median)} | {fmt(d.get('p95_ms', float('nan')))} | "
            f"{fmt(d.get('first_visit_ms', float('nan')))} | {d.get('calls', '')} |"
        )
    return out


def render_markdown(results: Results, chart_name: str) -> str:
    """The whole report as markdown."""
    ms = results.measurements
    out = ["# pgflow-py benchmark results", "", *_environment(results.meta), ""]
    out += ["## Targets", ""] + [f"- {line}" for line in target_lines(results)] + [""]
    out += [
        "## Measurements",
        "",
        "| measurement | median | spread (min–max) | repeats | details |",
        "|---|---|---|---|---|",
    ]
    skip = ("L1.", "S1.")
    out += [_row(m) for key, m in ms.items() if m.values and not key.startswith(skip)]
    l1 = [(mode, [ms.get(f"L1.{mode}.{q}") for q in ("p50", "p95", "p99")]) for mode in L1_LABELS]
    if any(all(q is not None and q.values for q in qs) for _, qs in l1):
        out += [
            "",
            "## L1 start-to-handler latency (ms, median of the repeats' percentiles)",
            "",
            "| mode | p50 | p95 | p99 |",
            "|---|---|---|---|",
        ]
        for mode, qs in l1:
            if all(q is not None and q.values for q in qs):
                cells = " | ".join(
                    f"{fmt(q.median)} ({fmt(q.low)}–{fmt(q.high)})"
                    for q in qs  # type: ignore[union-attr]
                )
                out.append(f"| {L1_LABELS[mode]} | {cells} |")
    s1 = [
        (c, ms.get(f"S1.{c}.empty"), ms.get(f"S1.{c}.history"))
        for c in ("start_flow", "complete_task")
    ]
    if any(e is not None and h is not None and e.values and h.values for _, e, h in s1):
        runs = next((h.details.get("history_runs", 0) for _, _, h in s1 if h is not None), 0)
        out += [
            "",
            "## S1 per-call cost (ms, median of the repeats' per-call medians)",
            "",
            f"| call | empty | {runs:,} finished runs | ratio |",
            "|---|---|---|---|",
        ]
        for call, e, h in s1:
            if e is not None and h is not None and e.values and h.values:
                out.append(
                    f"| {call} | {fmt(e.median)} ({fmt(e.low)}–{fmt(e.high)}) | "
                    f"{fmt(h.median)} ({fmt(h.low)}–{fmt(h.high)}) | "
                    f"{h.median / e.median:.2f}x |"
                )
        fill = next((h.details.get("fill") for _, _, h in s1 if h is not None), None)
        if fill:
            out += ["", "History fill (s): " + ", ".join(f"{k} {v}" for k, v in fill.items())]
    out += _dashboard_pages(ms)
    if results.peers:
        out += ["", "## Peers", "", "| peer | status | details |", "|---|---|---|"]
        for name, info in results.peers.items():
            out.append(
                f"| {name} | {info.get('status')} | {info.get('reason') or info.get('note', '')} |"
            )
    profiled = [m for m in ms.values() if m.details.get("profile")]
    if profiled:
        out += ["", "## Profile (track_functions = all; last repeat; top functions by self time)"]
        for m in profiled:
            out += [
                "",
                f"{m.label}:",
                "",
                "| function | calls per task | self µs per task | total µs per call |",
                "|---|---|---|---|",
            ]
            out += [
                f"| {p['function']} | {p['calls_per_task']} | {p['self_us_per_task']} | "
                f"{p['total_us_per_call']} |"
                for p in m.details["profile"]
            ]
    if results.errors:
        out += ["", "## Errors", ""] + [f"- {k}: {v}" for k, v in results.errors.items()]
    out += ["", "## Method", "", METHOD, "", f"![chart]({chart_name})", ""]
    return "\n".join(out)
