"""The PNG chart (bench/results/chart.png), drawn with matplotlib (the ``bench`` extra)."""

from __future__ import annotations

from pathlib import Path

from bench.procs import DEFAULTS
from bench.report import Results
from bench.stats import Measurement

THROUGHPUT_ORDER = (
    "ceiling.a.p{n}",
    "ceiling.b.p{n}",
    "ceiling.b.p1",
    "W1",
    "W1.defaults",
    "W2",
    "W3",
    "W4",
    "START",
    "peer.procrastinate.W1",
    "peer.procrastinate.W2",
    "peer.dbos.W1",
    "peer.dbos.W2",
)
SHORT = {
    "ceiling.a.p{n}": "ceiling (a)\n{n} proc",
    "ceiling.b.p{n}": "ceiling (b)\n{n} proc",
    "ceiling.b.p1": "ceiling (b)\n1 proc",
    "W1": "W1\n1-step",
    "W1.defaults": f"W1 at worker\ndefaults {DEFAULTS.max_concurrency}/{DEFAULTS.batch_size}",
    "W2": "W2\nchain",
    "W3": "W3\nmap",
    "W4": "W4\nmap of map",
    "START": "start_flow\n1 client",
    "peer.procrastinate.W1": "Procrastinate\nW1",
    "peer.procrastinate.W2": "Procrastinate\nW2",
    "peer.dbos.W1": "DBOS\nW1",
    "peer.dbos.W2": "DBOS\nW2",
}


def _bars(ax, items: list[tuple[str, Measurement]], title: str, ylabel: str, color: str) -> None:  # type: ignore[no-untyped-def]
    labels = [label for label, _ in items]
    medians = [m.median for _, m in items]
    errors = [[m.median - m.low for _, m in items], [m.high - m.median for _, m in items]]
    bars = ax.bar(range(len(items)), medians, yerr=errors, capsize=3, color=color)
    ax.set_xticks(range(len(items)), labels, fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    for bar, (_, m) in zip(bars, items, strict=True):
        value = m.median
        ax.annotate(
            f"{value:,.0f}" if value >= 10 else f"{value:.2f}",
            (bar.get_x() + bar.get_width() / 2, max(m.high, value)),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=7,
        )


def render_chart(results: Results, path: Path) -> None:
    """Draw throughput, L1 latency, S1 costs and the W3 map pace into one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = int(results.meta.get("config", {}).get("processes", 2))
    fig = plt.figure(figsize=(14, 9))
    grid = fig.add_gridspec(2, 3)
    top = fig.add_subplot(grid[0, :])
    bottom = [fig.add_subplot(grid[1, col]) for col in range(3)]
    items = []
    for pattern in THROUGHPUT_ORDER:
        m = results.get(pattern.format(n=n))
        if m is not None:
            items.append((SHORT[pattern].format(n=n), m))
    _bars(top, items, "Throughput (median, whiskers = min–max)", "tasks or messages / s", "#4C72B0")

    ax = bottom[0]
    modes = [
        ("notify", "NOTIFY"),
        ("notify0", "NOTIFY, throttle 0 (diagnostic)"),
        ("poll", "polling only"),
    ]
    width = 0.27
    for i, (mode, name) in enumerate(modes):
        values = [results.get(f"L1.{mode}.{q}") for q in ("p50", "p95", "p99")]
        if all(v is not None for v in values):
            xs = [x + (i - 1) * width for x in range(3)]
            ax.bar(xs, [v.median for v in values], width, label=name)  # type: ignore[union-attr]
    ax.set_xticks(range(3), ["p50", "p95", "p99"], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms (log)", fontsize=8)
    ax.axhline(10, color="red", linestyle="--", linewidth=0.8, label="target p50 10 ms")
    ax.set_title("L1 start-to-handler latency (median of repeats)", fontsize=9)
    ax.legend(fontsize=7)

    s1 = []
    for call in ("start_flow", "complete_task"):
        for state in ("empty", "history"):
            m = results.get(f"S1.{call}.{state}")
            if m is not None:
                runs = m.details.get("history_runs", 0)
                s1.append((f"{call}\n" + (f"{runs:,} runs" if runs else "empty"), m))
    _bars(bottom[1], s1, "S1 per-call cost", "ms per call", "#55A868")

    ax = bottom[2]
    w3 = results.get("W3")
    tenths = w3.details.get("rate_by_tenth") if w3 is not None else None
    if tenths:
        ax.plot(range(1, len(tenths) + 1), tenths, marker="o")
        ax.set_ylim(bottom=0)
    ax.set_xlabel("tenth of the map (last repeat)", fontsize=8)
    ax.set_ylabel("map tasks / s", fontsize=8)
    ax.set_title("W3 map pace (must not slow down)", fontsize=9)
    for axis in (top, *bottom):
        axis.tick_params(labelsize=7)
    quick = " (quick sizes)" if results.meta.get("config", {}).get("quick") else ""
    fig.suptitle(f"pgflow-py benchmark{quick}", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
