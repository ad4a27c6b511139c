"""The workloads ``make bench`` knows, and the sizes it runs them at.

``python -m bench.run`` picks :data:`FULL` (the committed results) or, with ``--quick``,
:data:`QUICK` (tiny sizes for development).
"""

from __future__ import annotations

from dataclasses import dataclass

ALL_WORKLOADS = (
    "ceiling",
    "W1",
    "W2",
    "W3",
    "W4",
    "START",
    "KEYED",
    "CLOCK",
    "L1",
    "S1",
    "P",
    "peers",
)
DEFAULT_WORKLOADS = ALL_WORKLOADS[:-1]
#: The headline runs with PostgreSQL's default synchronous_commit = on; these workloads are
#: measured again with synchronous_commit = off (keys suffixed ".sc_off").
SC_OFF_WORKLOADS = ("ceiling", "W1", "W2", "W3", "W4", "START", "KEYED")
SC_OFF_VARIANT = (".sc_off", ", synchronous_commit off")
#: L1 modes: key, LISTEN on, pgmq NOTIFY throttle (None: the worker default, 20 ms).
L1_MODES = (("notify", True, None), ("notify0", True, 0), ("poll", False, None))
L1_NAMES = {
    "notify": "NOTIFY",
    "notify0": "NOTIFY unthrottled (diagnostic)",
    "poll": "polling only",
}


@dataclass(frozen=True)
class Sizes:
    """Workload sizes (full: the issue's; quick: for development)."""

    ceiling_a: int = 24_000
    ceiling_b: int = 8_000
    ceiling_b1: int = 5_000
    ceiling_a1: int = 24_000
    w1_runs: int = 5_000
    w2_runs: int = 1_000
    w3_items: int = 10_000
    w4_items: int = 10_000
    start_calls: int = 3_000
    keyed_calls: int = 200
    keyed_rounds: int = 10
    clock_calls: int = 100_000
    clock_runs: int = 500
    l1_rate: float = 20.0
    l1_seconds: float = 8.0
    s1_history: int = 1_000_000
    s1_calls: int = 500
    s1_page_calls: int = 20
    p_items: int = 100_000


FULL = Sizes()
QUICK = Sizes(
    ceiling_a=2_000,
    ceiling_b=1_000,
    ceiling_b1=500,
    ceiling_a1=1_000,
    w1_runs=200,
    w2_runs=50,
    w3_items=300,
    w4_items=300,
    start_calls=200,
    keyed_calls=20,
    keyed_rounds=5,
    clock_calls=5_000,
    clock_runs=30,
    l1_seconds=2.0,
    s1_history=20_000,
    s1_calls=50,
    s1_page_calls=3,
    p_items=2_000,
)
