"""``python -m bench.run``: run the benchmark and write bench/results/.

Usage::

    python -m bench.run [--dsn DSN] [--only W1,W2,...] [--quick] [--repeat 3]
                        [--processes 2] [--concurrency 50] [--batch-size 50]
                        [--merge] [--out DIR]

Workloads (``--only``, comma-separated): ceiling, W1, W2, W3, W4, START, KEYED, CLOCK, L1, S1, P,
peers
(default: all but peers; ``make bench-peers`` runs ``--only peers --merge``). ``--quick``
uses tiny sizes and one repeat and writes to .pgflow-bench/quick/ unless ``--out`` is
given, so the committed results stay untouched.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from bench import ceiling, clock, flows, keyed, latency, report, s1, workloads
from bench.cluster import BENCH_HOME, ROOT, BenchServer
from bench.procs import DEFAULTS, DEFAULTS_ARGS, WorkerSettings
from bench.report import Results
from bench.sizes import (
    ALL_WORKLOADS,
    DEFAULT_WORKLOADS,
    FULL,
    L1_MODES,
    L1_NAMES,
    QUICK,
    SC_OFF_VARIANT,
    SC_OFF_WORKLOADS,
    Sizes,
)
from bench.stats import Measurement

DEFAULT_OUT = ROOT / "bench" / "results"
QUICK_OUT = BENCH_HOME / "quick"


def echo(line: str) -> None:
    """Print a progress line at once."""
    print(line, flush=True)


class Bench:
    """One benchmark run: the server, the settings, the sizes and the results."""

    def __init__(
        self,
        server: BenchServer,
        settings: WorkerSettings,
        sizes: Sizes,
        repeat: int,
        results: Results,
        profile: bool = False,
    ) -> None:
        self.server = server
        self.settings = settings
        self.sizes = sizes
        self.repeat = repeat
        self.results = results
        self.profile = profile
        #: Appended to every key and label: "" for the headline setting, else e.g.
        #: (".sc_off", ", synchronous_commit off").
        self.variant: tuple[str, str] = ("", "")

    def add(self, m: Measurement) -> Measurement:
        """Record a measurement under the current variant's key and label."""
        suffix, label = self.variant
        m.key, m.label = m.key + suffix, m.label + label
        return self.results.add(m)

    def repeated(
        self,
        key: str,
        label: str,
        unit: str,
        once: Callable[[], dict[str, Any]],
        higher_is_better: bool = True,
        **details: Any,
    ) -> Measurement:
        """Run ``once`` ``repeat`` times; its ``rate`` is the value, the rest the details."""
        m = Measurement(key, label, unit, higher_is_better=higher_is_better, details=details)
        for n in range(self.repeat):
            outcome = once()
            m.values.append(outcome.pop("rate"))
            m.details.update(outcome)
            if self.repeat > 1:
                m.details.setdefault("per_repeat", []).append(outcome)
            echo(f"    {label}{self.variant[1]} #{n + 1}: {report.fmt(m.values[-1], unit)}")
        return self.add(m)

    # ------------------------------------------------------------ workloads

    def ceiling(self) -> None:
        """Raw pgmq (a) and (b) with N client processes, and with 1."""
        n = self.settings.processes
        configs = [("a", n, self.sizes.ceiling_a), ("b", n, self.sizes.ceiling_b)]
        if n != 1:
            configs += [("a", 1, self.sizes.ceiling_a1), ("b", 1, self.sizes.ceiling_b1)]
        for mode, procs, messages in configs:
            what = "read 10 + archive batch" if mode == "a" else "read 10 + archive per message"
            self.repeated(
                f"ceiling.{mode}.p{procs}",
                f"Ceiling ({mode}) raw pgmq, {what}, {procs} process{'es' if procs > 1 else ''}",
                "msg/s",
                lambda mode=mode, procs=procs, messages=messages: ceiling.measure(
                    self.server.fresh_db(), mode, procs, messages
                ),
            )

    def drain(self, key: str, label: str, run: Callable[[WorkerSettings], dict[str, Any]]) -> None:
        """A drain workload with the configured workers, then again at the worker's defaults.

        ``run(settings)`` drains once and returns its outcome; a map's pace is kept for the
        configured workers only (``<key>.pace``).
        """
        paces: list[float] = []

        def configured() -> dict[str, Any]:
            outcome = run(self.settings)
            if "last_quarter_over_first" in outcome:
                paces.append(outcome.pop("last_quarter_over_first"))
            return outcome

        def at_defaults() -> dict[str, Any]:
            outcome = run(defaults)
            outcome.pop("last_quarter_over_first", None)
            return outcome

        self.repeated(key, label, "tasks/s", configured)
        if paces:
            pace_label = (
                f"{key} {'dependent ' if key == 'W4' else ''}map pace, last quarter / first quarter"
            )
            self.add(Measurement(f"{key}.pace", pace_label, "x", paces))
        defaults = replace(
            self.settings, max_concurrency=DEFAULTS.max_concurrency, batch_size=DEFAULTS.batch_size
        )
        if defaults != self.settings:
            self.repeated(
                f"{key}.defaults",
                f"{label}, worker defaults ({DEFAULTS_ARGS})",
                "tasks/s",
                at_defaults,
            )

    def w1(self) -> None:
        """W1: runs of a one-step flow (and again at the worker's default settings)."""
        runs = self.sizes.w1_runs
        self.drain(
            "W1",
            "W1 one-step runs",
            lambda st: workloads.w1(self.server, st, runs, self.profile),
        )

    def w2(self) -> None:
        """W2: runs of a 3-step chain (and at the worker's defaults)."""
        runs = self.sizes.w2_runs
        self.drain(
            "W2",
            "W2 3-step chains",
            lambda st: workloads.w2(self.server, st, runs, self.profile),
        )

    def w3(self) -> None:
        """W3: one run of a root map + reduce, its pace (and at the worker's defaults)."""
        items = self.sizes.w3_items
        self.drain(
            "W3",
            f"W3 map over {items:,} items + reduce",
            lambda st: workloads.w3(self.server, st, items, self.profile),
        )

    def w4(self) -> None:
        """W4: a root map, a map over its output, a reduce; the dependent map's pace."""
        items = self.sizes.w4_items
        self.drain(
            "W4",
            f"W4 map over {items:,} items, map over its output, reduce",
            lambda st: workloads.w4(self.server, st, items, self.profile),
        )

    def start(self) -> None:
        """start_flow throughput from one client."""
        self.repeated(
            "START",
            "start_flow of a one-step flow, 1 client",
            "runs/s",
            lambda: workloads.start_throughput(self.server, self.sizes.start_calls),
        )

    def keyed(self) -> None:
        """KEYED: keyed start_flow variants against an unkeyed one, interleaved."""
        keyed.record(self)

    def clock(self) -> None:
        """CLOCK: the engine's time source's share of a one-step run's engine time."""
        clock.record(self)

    def p(self) -> None:
        """P: start_flow of a large root map."""
        self.repeated(
            "P",
            f"P start_flow of a {self.sizes.p_items:,}-item root map",
            "s",
            lambda: workloads.root_map_start(self.server, self.sizes.p_items),
            higher_is_better=False,
        )

    def l1(self) -> None:
        """L1: start-to-handler latency percentiles per mode."""
        s = self.sizes
        for mode, listen, throttle in L1_MODES:
            outcomes = latency.run_mode(
                self.server, self.settings, listen, s.l1_rate, s.l1_seconds, self.repeat, throttle
            )
            name = L1_NAMES[mode]
            for q in ("p50", "p95", "p99"):
                m = Measurement(
                    f"L1.{mode}.{q}",
                    f"L1 {q} with {name}",
                    "ms",
                    [o[q] for o in outcomes],
                    higher_is_better=False,
                    details={
                        "rate_per_s": s.l1_rate,
                        "seconds": s.l1_seconds,
                        "samples": [o["samples"] for o in outcomes],
                    },
                )
                self.add(m)
                echo(f"    {m.label}: {report.describe(m)}")

    def s1(self) -> None:
        """S1: per-call costs, empty vs with history, and the dashboard's pages (bench/s1.py)."""
        s1.record(self)

    def peers(self) -> None:
        """Procrastinate and DBOS W1/W2 (``make bench-peers``)."""
        from bench import peers

        peers.run_all(self)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dsn", help="server to use instead of the embedded cluster")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(ALL_WORKLOADS)}")
    parser.add_argument(
        "--synchronous-commit",
        choices=("both", "on", "off"),
        default="both",
        help="on: PostgreSQL's default (the headline); off: the drains and ceilings only, keys "
        "suffixed .sc_off; both (default): on, then off",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for development")
    parser.add_argument("--repeat", type=int, help="repeats per workload (3; quick: 1)")
    parser.add_argument(
        "--processes", type=int, default=2, help="worker processes = ceiling client processes (2)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=50, help="--max-concurrency of each worker (50)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=50, help="--batch-size of each worker (50)"
    )
    parser.add_argument(
        "--complete-batch-size",
        type=int,
        default=100,
        help="--complete-batch-size of each worker (100; 1: one report per call)",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="update the existing results.json instead of starting afresh",
    )
    parser.add_argument("--out", type=Path, help="output directory (bench/results)")
    parser.add_argument(
        "--render",
        action="store_true",
        help="only write results.md and chart.png again from results.json (no measurement)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="W1-W4: record time per SQL function (track_functions; slows the engine a little)",
    )
    return parser.parse_args(argv)


def run_workload(bench: Bench, workload: str, commit: str, results: Results) -> None:
    """Run one workload under one synchronous_commit setting; record its error, if any."""
    t0 = time.monotonic()
    name = workload if commit == "on" else f"{workload}{SC_OFF_VARIANT[0]}"
    echo(f"  {workload} (synchronous_commit {commit})")
    try:
        getattr(bench, workload.lower())()
        results.errors.pop(name, None)
    except Exception as exc:  # one failed workload must not lose the others
        traceback.print_exc()
        results.errors[name] = f"{type(exc).__name__}: {exc}"
    echo(f"  {workload} done in {time.monotonic() - t0:.1f} s")


def main(argv: list[str] | None = None) -> int:
    """Run the selected workloads and write the results; return the exit code."""
    args = parse_args(argv)
    selected = (
        DEFAULT_WORKLOADS
        if not args.only
        else tuple(
            w
            for w in ALL_WORKLOADS
            if w.lower() in {x.strip().lower() for x in args.only.split(",")}
        )
    )
    if args.only and not selected:
        echo(f"--only: nothing known in {args.only!r} (known: {', '.join(ALL_WORKLOADS)})")
        return 2
    out = args.out or (QUICK_OUT if args.quick else DEFAULT_OUT)
    repeat = args.repeat or (1 if args.quick else 3)
    sizes = QUICK if args.quick else FULL
    settings = WorkerSettings(
        processes=args.processes,
        max_concurrency=args.concurrency,
        batch_size=args.batch_size,
        complete_batch_size=args.complete_batch_size,
    )
    if args.render:
        paths = report.write(Results.load(out / report.JSON_NAME), out)
        echo(f"bench: wrote {', '.join(str(p) for p in paths)}")
        return 0
    results = Results.load(out / report.JSON_NAME) if args.merge else Results()
    began = time.monotonic()
    started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    echo(f"bench: {', '.join(selected)} x{repeat}{' (quick)' if args.quick else ''}")
    server = BenchServer(args.dsn, echo)
    try:
        server.prepare_template(flows.ALL)
        environment = server.describe()
        bench = Bench(server, settings, sizes, repeat, results, args.profile)
        for commit in (
            ("on", "off") if args.synchronous_commit == "both" else (args.synchronous_commit,)
        ):
            server.synchronous_commit = commit
            bench.variant = ("", "") if commit == "on" else SC_OFF_VARIANT
            for workload in selected:
                if commit == "off" and workload not in SC_OFF_WORKLOADS:
                    continue
                run_workload(bench, workload, commit, results)
    finally:
        server.close()
    command = "python -m bench.run" + (" " + " ".join(sys.argv[1:]) if argv is None else "")
    run_meta = {
        "started_at": started_at,
        "duration_s": round(time.monotonic() - began, 1),
        "command": command.strip(),
        "workloads": list(selected),
    }
    if not args.merge or not results.meta:
        results.meta = {
            **run_meta,
            "environment": environment,
            "config": {
                **asdict(settings),
                "synchronous_commit": args.synchronous_commit,
                "repeat": repeat,
                "quick": args.quick,
                "sizes": asdict(sizes),
            },
        }
    else:
        results.meta.setdefault("merged_runs", []).append(run_meta)
    paths = report.write(results, out)
    echo("")
    for line in report.target_lines(results):
        echo(line)
    echo("")
    echo(f"bench: {time.monotonic() - began:.0f} s; wrote {', '.join(str(p) for p in paths)}")
    return 1 if results.errors else 0


if __name__ == "__main__":
    sys.exit(main())
