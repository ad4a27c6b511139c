"""``make demo``: analyse the Python standard library with pgflow, end to end.

What it does, and the commands it stands for:

1. start the embedded dev cluster (``pgflow dev up``) and install pgflow (``pgflow install``);
2. start worker processes (``pgflow-worker examples.stdlib_analysis:flow``), logging to
   ``.pgflow/demo-worker-<n>.log`` (in ``$PGFLOW_HOME`` when set);
3. start a run (``pgflow start stdlib_analysis``) and show its progress, read from
   ``pgflow.step_states`` / ``pgflow.step_tasks``;
4. print the report, stop the workers with SIGTERM, and stop the cluster if this demo
   started it (its data stays: ``pgflow runs`` starts it again on demand).

Run from the repository root: ``python -m examples.demo [--limit N] [--workers N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import pgflow
from pgflow import dev
from pgflow.client import Client, RunState
from pgflow.errors import FlowNotFound

ROOT = Path(__file__).resolve().parent.parent
FLOW_REF = "examples.stdlib_analysis:flow"
FLOW_SLUG = "stdlib_analysis"
FLOW_READY_TIMEOUT_SECONDS = 60.0
RUN_TIMEOUT_SECONDS = 900.0
REFRESH_SECONDS = 0.25
WORKER_STOP_TIMEOUT_SECONDS = 45.0


def worker_command() -> list[str]:
    """Return the argv prefix of ``pgflow-worker`` for this Python."""
    script = Path(sys.executable).parent / "pgflow-worker"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "pgflow.cli.worker"]


def start_workers(dsn: str, count: int, concurrency: int, log_dir: Path) -> list[Any]:
    """Start ``count`` worker processes; return (process, log path) pairs."""
    workers = []
    for n in range(1, count + 1):
        log_path = log_dir / f"demo-worker-{n}.log"
        argv = [
            *worker_command(),
            FLOW_REF,
            "--dsn",
            dsn,
            "--max-concurrency",
            str(concurrency),
            "--app-dir",
            str(ROOT),
        ]
        log = log_path.open("w")
        process = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        workers.append((process, log_path))
        print(f"   worker {n}: pid {process.pid}, log {display(log_path)}")
    return workers


def stop_workers(workers: list[Any]) -> None:
    """SIGTERM every worker, wait for them to drain, kill the ones that do not stop."""
    for process, _ in workers:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for n, (process, _) in enumerate(workers, 1):
        try:
            code = process.wait(timeout=WORKER_STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        print(f"   worker {n} stopped (exit {code})")


def check_workers(workers: list[Any]) -> None:
    """Exit with the log tail of a worker that died."""
    for process, log_path in workers:
        if process.poll() is not None:
            tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-20:])
            raise SystemExit(f"worker pid {process.pid} exited ({process.returncode}):\n{tail}")


def start_run(client: Client, workers: list[Any], run_input: dict[str, Any]) -> RunState:
    """Start the run once a worker has created the flow in the database."""
    deadline = time.monotonic() + FLOW_READY_TIMEOUT_SECONDS
    while True:
        try:
            return client.start_flow(FLOW_SLUG, run_input)
        except FlowNotFound:
            check_workers(workers)
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def follow(client: Client, run_id: str, workers: list[Any], out: TextIO) -> RunState:
    """Show live progress until the run finishes; return its final state."""
    interactive = out.isatty()
    started = time.monotonic()
    last_print = 0.0
    deadline = started + RUN_TIMEOUT_SECONDS
    while True:
        state = client.get_run(run_id)
        running = sum(c.get("started", 0) for c in client.task_counts(run_id).values())
        line = progress_line(state, running, time.monotonic() - started)
        now = time.monotonic()
        if interactive:
            out.write(f"\r\033[K   {line}")
            out.flush()
        elif state.finished or now - last_print >= 2.0:
            out.write(f"   {line}\n")
            last_print = now
        if state.finished:
            if interactive:
                out.write("\n")
            return state
        check_workers(workers)
        if now > deadline:
            raise SystemExit(f"run {run_id} did not finish in {RUN_TIMEOUT_SECONDS:g} s")
        time.sleep(REFRESH_SECONDS)


def progress_line(state: RunState, running: int, elapsed_seconds: float) -> str:
    """One line: a bar over all tasks, the current step, tasks in flight, elapsed time."""
    total = sum(s.initial_tasks or 0 for s in state.steps)
    done = sum(s.completed_tasks for s in state.steps)
    width = 30
    filled = width * done // total if total else 0
    bar = "#" * filled + "-" * (width - filled)
    current = next((s for s in state.steps if s.status in ("started", "created")), None)
    where = f"step {current.step_slug}" if current and not state.finished else state.status
    return (
        f"[{bar}] {done:>5}/{total:<5} tasks  {where:<16} {running:>3} running  "
        f"{elapsed_seconds:6.1f} s"
    )


def print_report(state: RunState) -> None:
    """Print the run's report in a readable form."""
    report = state.output["report"]
    totals = report["totals"]
    took = state.duration_seconds or 0.0
    print(f"\nReport of run {state.run_id} ({took:.1f} s)\n")
    print(
        f"   files      {totals['files']:>9,}  ({totals['parsed']:,} parsed, "
        f"{totals['parse_errors']} with parse errors)"
    )
    print(f"   lines      {totals['lines']:>9,}")
    print(f"   functions  {totals['functions']:>9,}  (def and async def, methods included)")
    print(f"   classes    {totals['classes']:>9,}")
    print(f"   imports    {totals['distinct_imports']:>9,}  distinct modules imported")
    print("\nLargest modules (lines)")
    for n, entry in enumerate(report["largest_modules"], 1):
        print(f"   {n:>2}. {entry['module']:<40} {entry['lines']:>8,}")
    print("\nMost imported modules (files importing them)")
    for n, entry in enumerate(report["most_imported"], 1):
        print(f"   {n:>2}. {entry['module']:<40} {entry['files']:>8,}")
    errors = report["parse_errors"]
    print(f"\nFiles that do not parse ({len(errors)}; recorded as results, not task failures)")
    for entry in errors:
        print(f"   {entry['path']:<45} {shorten(entry['error'], 70)}")


def shorten(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def display(path: Path) -> str:
    """Return ``path`` relative to the current directory when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the demo's command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--limit", type=int, help="analyse only the first N files")
    parser.add_argument("--root", help="directory to analyse (default: the stdlib)")
    parser.add_argument(
        "--workers",
        type=int,
        default=max(1, min(2, os.cpu_count() or 1)),
        help="worker processes (default: 2, or 1 on a single core)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=8, help="tasks in flight per worker (default: 8)"
    )
    parser.add_argument(
        "--keep-running", action="store_true", help="leave the dev cluster running afterwards"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the demo; return the exit code."""
    args = parse_args(argv)
    # SIGTERM / SIGHUP unwind like Ctrl-C, so the workers and the cluster get stopped.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda number, frame: sys.exit(128 + number))
    os.chdir(ROOT)  # .pgflow/ and the flow module are found from the repository root
    run_input: dict[str, Any] = {}
    if args.root:
        run_input["root"] = args.root
    if args.limit:
        run_input["limit"] = args.limit
    began = time.monotonic()
    print("pgflow demo: analyse the Python standard library with a flow of 3 steps")
    print("   list_files -> parse (one task per .py file) -> report\n")

    print("1. dev cluster (pgflow dev up; pgflow install)")
    was_running = dev.status().running
    dsn = dev.up(echo=lambda line: print(f"   {line}"))
    print(f"   {dsn}")
    print(f"   {str(pgflow.install(dsn)).replace(chr(10), '; ')}")

    print(f"\n2. {args.workers} worker(s) (pgflow-worker {FLOW_REF})")
    workers = start_workers(dsn, args.workers, args.concurrency, dev.home_dir())
    try:
        with Client(dsn) as client:
            print(f"\n3. run (pgflow start {FLOW_SLUG} --input '{json.dumps(run_input)}')")
            state = start_run(client, workers, run_input)
            print(f"   run {state.run_id}")
            final = follow(client, state.run_id, workers, sys.stdout)
        if final.status == "completed":
            print_report(final)
        else:
            step = final.failed_step
            detail = f" at step {step.step_slug}: {step.error_message}" if step else ""
            print(f"\nrun {final.run_id} {final.status}{detail}", file=sys.stderr)
    finally:
        print("\n4. stopping (SIGTERM)")
        stop_workers(workers)
        if not was_running and not args.keep_running:
            dev.down(echo=lambda line: print(f"   {line}"))
            print("   its data stays; `pgflow runs` starts it again on demand")
    if final.status != "completed":
        return 1
    print(f"\ndemo done in {time.monotonic() - began:.1f} s; look again with:")
    print(f"   pgflow runs   |   pgflow status {final.run_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
