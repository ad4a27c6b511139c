"""S1: per-call costs with 1,000,000 finished runs, and the dashboard's pages over them.

``record`` runs bench/history.py (start_flow and complete_task per call, empty tables vs
the history) and, in the filled database, bench/dashboard_pages.py (the runs list and a
flow's page through the real dashboard app), and records every measurement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bench import dashboard_pages, history, report
from bench.stats import Measurement

if TYPE_CHECKING:
    from bench.run import Bench


def record(bench: Bench) -> None:
    """Run S1 once (``bench.repeat`` measurements per state); record what it measured."""
    s = bench.sizes
    outcome = history.run(
        bench.server,
        s.s1_history,
        s.s1_calls,
        bench.repeat,
        with_history=lambda dsn: dashboard_pages.measure_pages(dsn, s.s1_page_calls),
    )
    _echo(f"    history fill: {outcome['fill']}")
    for call in ("start_flow", "complete_task"):
        for state, runs in (("empty", 0), ("history", s.s1_history)):
            per = outcome[state]
            where = "empty tables" if not runs else f"{runs:,} finished runs"
            m = bench.add(
                Measurement(
                    f"S1.{call}.{state}",
                    f"S1 {call} per call, {where}",
                    "ms",
                    [r[call] for r in per],
                    higher_is_better=False,
                    details={
                        "calls": s.s1_calls,
                        "history_runs": runs,
                        "p95_ms": [round(r[f"{call}_p95"], 3) for r in per],
                        **({"fill": outcome["fill"]} if runs else {}),
                    },
                )
            )
            _echo(f"    {m.label}: {report.describe(m)}")
    _record_pages(bench, outcome["with_history"], s.s1_history)


def _record_pages(bench: Bench, pages: dict[str, Any], history_runs: int) -> None:
    for key, label, _path in dashboard_pages.PAGES:
        got = pages[key]
        m = bench.add(
            Measurement(
                f"S1.dashboard.{key}",
                f"S1 dashboard {label}, {history_runs:,} finished runs",
                "ms",
                [got["median_ms"]],
                higher_is_better=False,
                details={
                    "calls": bench.sizes.s1_page_calls,
                    "p95_ms": round(got["p95_ms"], 1),
                    "first_visit_ms": got["first_ms"],
                },
            )
        )
        _echo(f"    {m.label}: {report.describe(m)}")


def _echo(line: str) -> None:
    from bench.run import echo

    echo(line)
