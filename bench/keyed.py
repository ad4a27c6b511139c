"""KEYED: what a keyed ``start_flow`` costs next to an unkeyed one, measured in one run.

One fresh database, one client, one call (transaction) at a time, as START. Five variants
of a start of a one-step flow (bench_w1, and bench_keyed, its copy with a concurrency
limit so high that nothing ever queues):

- ``plain``: START's query, no key (the reference);
- ``idempotency``: a distinct ``idempotency_key`` per call (the run is created);
- ``concurrency``: a ``concurrency_key`` of the limited flow; keys are drawn from a pool
  as large as one round's calls, so each key holds at most one run per round (the slot
  check counts a key's unfinished runs: a handful, as with a real, small limit);
- ``deadline``: ``deadline => now() + 1 hour``;
- ``duplicate``: a repeat of an existing ``idempotency_key`` (nothing written, the first
  run returned).

The variants run interleaved: ``rounds`` rounds, each timing ``calls`` calls of every
variant, the order rotated from round to round, so drift (the tables growing, other load)
touches them alike. Each variant's rate is the median of its rounds; its ratio to
``plain`` is the median of the per-round ratios (each round compared with itself). Compare
ratios, never absolute rates across runs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg

from bench.cluster import BenchServer
from bench.stats import Measurement
from bench.workloads import START_QUERY

if TYPE_CHECKING:
    from bench.run import Bench

#: The flow with a concurrency limit (created in the fresh database, like bench_w1).
LIMITED_FLOW = "bench_keyed"
LIMIT = 1_000_000
WARM_UP_CALLS = 20
SETUP = f"""
select pgflow.create_flow('{LIMITED_FLOW}', concurrency_limit => {LIMIT});
select pgflow.add_step('{LIMITED_FLOW}', 'only');
"""
#: As a worker leaves the queue (and as the template does for bench_w1).
ENABLE_NOTIFY = "select pgmq.enable_notify_insert(%s, %s)"
#: bench_w1's throttle, read back from pgmq: the limited flow gets the same.
NOTIFY_THROTTLE = (
    "select throttle_interval_ms from pgmq.notify_insert_throttle where queue_name = %s"
)
#: The runs the duplicates repeat: keys seed-1 .. seed-<n>, started set-based (not timed).
SEED = """
select count(*) from generate_series(1, %(n)s) as g,
  lateral pgflow.start_flow('bench_w1', '{}'::jsonb, idempotency_key => 'seed-' || g) as s
"""
CHECK = """
select count(*), count(*) filter (where status <> 'started'),
       count(*) filter (where concurrency_key is not null),
       count(*) filter (where idempotency_key is not null),
       count(*) filter (where deadline is not null)
from pgflow.runs
"""
KEYED_START = "select duplicate from pgflow.start_flow('{flow}', '{{}}'::jsonb, {args})"


@dataclass(frozen=True)
class Variant:
    """One way to call start_flow.

    Attributes:
        name: key suffix (``KEYED.<name>``).
        label: human name.
        query: the statement; ``%(key)s`` is the call's key when ``key`` is set.
        key: ``(round, call) -> key`` (rounds from 0, calls from 0; round -1 is the
            warm-up), or None for a query without parameters.
        duplicate: the ``duplicate`` column every call must return (None: not selected).
    """

    name: str
    label: str
    query: str
    key: Callable[[int, int], str] | None
    duplicate: bool | None


def _idempotency_key(rnd: int, call: int) -> str:
    return f"idem-{rnd}-{call}"


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "plain",
        "no key",
        START_QUERY,
        None,
        None,
    ),
    Variant(
        "idempotency",
        "idempotency_key (new key)",
        KEYED_START.format(flow="bench_w1", args="idempotency_key => %(key)s"),
        _idempotency_key,
        False,
    ),
    Variant(
        "concurrency",
        f"concurrency_key (flow concurrency_limit {LIMIT:,})",
        KEYED_START.format(flow=LIMITED_FLOW, args="concurrency_key => %(key)s"),
        lambda rnd, call: f"acct:{call}" if rnd >= 0 else f"warm:{call}",
        False,
    ),
    Variant(
        "deadline",
        "deadline (now + 1 hour)",
        KEYED_START.format(flow="bench_w1", args="deadline => now() + interval '1 hour'"),
        None,
        False,
    ),
    Variant(
        "duplicate",
        "duplicate idempotency_key (existing run returned)",
        KEYED_START.format(flow="bench_w1", args="idempotency_key => %(key)s"),
        lambda rnd, call: f"seed-{call + 1}",
        True,
    ),
)


def round_order(rnd: int, variants: tuple[Variant, ...] = VARIANTS) -> list[Variant]:
    """The variants in round ``rnd``'s order: rotated by one each round."""
    shift = rnd % len(variants)
    return list(variants[shift:] + variants[:shift])


def summarize(per_round: dict[str, list[float]], reference: str = "plain") -> dict[str, Any]:
    """Median rate per variant and median per-round ratio to ``reference``.

    Args:
        per_round: variant name -> its rate in each round (same rounds, same order).
        reference: the variant the ratios are taken against.

    Returns:
        variant name -> ``{"rate": median rate, "ratio": median of rate / reference rate
        over the rounds}``.

    Raises:
        KeyError: ``reference`` is missing.
        ValueError: a variant has no rounds or not as many as ``reference``.
    """
    ref = per_round[reference]
    out: dict[str, Any] = {}
    for name, rates in per_round.items():
        if not rates or len(rates) != len(ref):
            raise ValueError(f"{name}: {len(rates)} rounds, {reference} has {len(ref)}")
        out[name] = {
            "rate": statistics.median(rates),
            "ratio": statistics.median(r / p for r, p in zip(rates, ref, strict=True)),
        }
    return out


def _time_calls(conn: psycopg.Connection[Any], variant: Variant, rnd: int, calls: int) -> float:
    """Run ``calls`` calls of ``variant``; return the seconds, or raise on a wrong answer."""
    rows: list[Any] = []
    started = time.perf_counter()
    if variant.key is None:
        for _ in range(calls):
            rows.append(conn.execute(variant.query).fetchone())
    else:
        for call in range(calls):
            rows.append(conn.execute(variant.query, {"key": variant.key(rnd, call)}).fetchone())
    seconds = time.perf_counter() - started
    if variant.duplicate is not None and any(r[0] is not variant.duplicate for r in rows):
        raise RuntimeError(
            f"KEYED {variant.name}: a call did not return duplicate = {variant.duplicate}"
        )
    return seconds


def measure(server: BenchServer, calls: int, rounds: int) -> dict[str, Any]:
    """One KEYED measurement on a fresh database.

    Returns:
        ``{name: {"rate", "ratio"}}`` per variant (see :func:`summarize`), ``per_round``
        (name -> calls/s per round), ``calls`` per variant and round, ``rounds``.

    Raises:
        RuntimeError: a call returned the wrong ``duplicate``, or some run queued or was
            not written as asked.
    """
    dsn = server.fresh_db()
    per_round: dict[str, list[float]] = {v.name: [] for v in VARIANTS}
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETUP)
        throttle = conn.execute(NOTIFY_THROTTLE, ("bench_w1",)).fetchone()
        if throttle is not None:
            conn.execute(ENABLE_NOTIFY, (LIMITED_FLOW, throttle[0]))
        conn.execute(SEED, {"n": _seeds(calls)})
        for variant in VARIANTS:  # warm-up: plans cached, statements prepared
            _time_calls(conn, variant, -1, WARM_UP_CALLS)
        for rnd in range(rounds):
            for variant in round_order(rnd):
                per_round[variant.name].append(calls / _time_calls(conn, variant, rnd, calls))
        _check_runs(conn, calls, rounds)
    return {
        **summarize(per_round),
        "per_round": {k: [round(r, 1) for r in v] for k, v in per_round.items()},
        "calls": calls,
        "rounds": rounds,
    }


def _seeds(calls: int) -> int:
    """How many runs the duplicates repeat: one per call of a round (and of the warm-up)."""
    return max(calls, WARM_UP_CALLS)


def _check_runs(conn: psycopg.Connection[Any], calls: int, rounds: int) -> None:
    """Every run was created started, with the keys and deadlines asked for."""
    total, not_started, concurrency, idempotency, deadline = conn.execute(  # type: ignore[misc]
        CHECK
    ).fetchone()
    created = len(VARIANTS) - 1  # a duplicate creates nothing
    timed = WARM_UP_CALLS + calls * rounds
    seeds = _seeds(calls)
    expected = (seeds + created * timed, 0, timed, seeds + timed, timed)
    found = (total, not_started, concurrency, idempotency, deadline)
    if found != expected:
        raise RuntimeError(
            "KEYED: runs (total, not started, with concurrency_key, with idempotency_key, "
            f"with deadline) = {found}, expected {expected}"
        )


def record(bench: Bench) -> None:
    """Run KEYED ``bench.repeat`` times; record each variant's rate and its ratio to plain."""
    calls, rounds = bench.sizes.keyed_calls, bench.sizes.keyed_rounds
    outcomes = [measure(bench.server, calls, rounds) for _ in range(bench.repeat)]
    details = {"calls": calls * rounds, "rounds": rounds, "calls_per_round": calls}
    for variant in VARIANTS:
        name = variant.name
        unit = "calls/s" if variant.duplicate else "runs/s"
        m = bench.add(
            Measurement(
                f"KEYED.{name}",
                f"KEYED start_flow, {variant.label}, 1 client",
                unit,
                [o[name]["rate"] for o in outcomes],
                details={**details, "per_round": [o["per_round"][name] for o in outcomes]},
            )
        )
        line = f"    {m.label}: {[round(v) for v in m.values]} {unit}"
        if name != "plain":
            r = bench.add(
                Measurement(
                    f"KEYED.{name}.ratio",
                    f"KEYED {variant.label} / no key",
                    "x",
                    [o[name]["ratio"] for o in outcomes],
                    details={"rounds": rounds},
                )
            )
            line += f", x{[round(v, 3) for v in r.values]} of no key"
        print(line, flush=True)
