"""The benchmark report renders targets, markdown and chart from measurements (no database)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.markdown import render_markdown
from bench.report import Results, evaluate_targets, target_lines, write
from bench.stats import Measurement, percentile


def sample_results() -> Results:
    results = Results(meta={"config": {"processes": 2, "repeat": 3, "quick": False}})
    add = results.add
    add(Measurement("ceiling.b.p2", "Ceiling (b)", "msg/s", [2900.0, 2980.0, 3010.0]))
    add(Measurement("ceiling.b.p1", "Ceiling (b) 1", "msg/s", [1600.0, 1650.0, 1700.0]))
    add(
        Measurement(
            "W1",
            "W1 one-step runs",
            "tasks/s",
            [1790.0, 1850.0, 1900.0],
            details={"tasks": 5000, "drain_s": 2.7},
        )
    )
    add(Measurement("W3.pace", "W3 map pace", "x", [0.95, 0.97, 1.01]))
    add(Measurement("W4.pace", "W4 dependent map pace", "x", [0.62, 0.7, 0.75]))
    add(
        Measurement(
            "L1.notify.p50",
            "L1 p50 with NOTIFY",
            "ms",
            [120.0, 114.0, 130.0],
            higher_is_better=False,
        )
    )
    add(Measurement("S1.start_flow.empty", "S1 start_flow empty", "ms", [0.8, 0.82, 0.85]))
    add(
        Measurement(
            "S1.start_flow.history",
            "S1 start_flow 1M",
            "ms",
            [0.9, 0.93, 0.95],
            details={"history_runs": 1_000_000},
        )
    )
    results.peers["dbos"] = {"status": "unavailable", "reason": "not installed"}
    return results


def test_percentile_interpolates_between_samples():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 99) == 5


def test_target_line_states_median_spread_ratio_and_verdict():
    lines = target_lines(sample_results())
    assert lines[0] == (
        "W1 one-step runs: 1,850 tasks/s (median of 3, spread 1,790–1,900) = 62% of "
        "ceiling (b) 2,980/s (2 processes) — target >= 150%: NOT MET"
    )


def test_targets_are_met_not_met_or_not_measured():
    by_name = {t.name: t for t in evaluate_targets(sample_results())}
    assert by_name["W3.pace"].met is True
    assert by_name["W4.pace"].met is False  # a map that slows down as it goes
    assert by_name["L1.notify.p50"].met is False
    assert by_name["S1 start_flow"].met is True
    assert by_name["S1 start_flow"].ratio == pytest.approx(0.93 / 0.82)
    assert by_name["W2.defaults vs ceiling (b)"].met is None
    assert by_name["W2.sc_off vs ceiling (b)"].met is None
    assert by_name["P"].line.endswith("NOT MEASURED")


def test_markdown_lists_targets_measurements_and_peers():
    text = render_markdown(sample_results(), chart_name="chart.png")
    assert "## Targets" in text
    assert "| W1 one-step runs | 1,850 tasks/s | 1,790–1,900 | 3 |" in text
    assert "| dbos | unavailable | not installed |" in text
    assert "![chart](chart.png)" in text


def test_write_produces_json_markdown_and_png(tmp_path: Path):
    pytest.importorskip("matplotlib")
    paths = write(sample_results(), tmp_path)
    assert [p.name for p in paths] == ["results.json", "results.md", "chart.png"]
    assert paths[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    reloaded = Results.load(paths[0])
    assert reloaded.get("W1").median == 1850.0  # type: ignore[union-attr]
