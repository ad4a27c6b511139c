"""KEYED's bookkeeping: round order, medians and ratios, the runs check, the measurements.

No database: the database-facing part (``keyed.measure``) is replaced by canned outcomes.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from bench import keyed
from bench.report import Results
from bench.sizes import ALL_WORKLOADS, DEFAULT_WORKLOADS, FULL, QUICK, SC_OFF_WORKLOADS
from bench.workloads import START_QUERY

NAMES = [v.name for v in keyed.VARIANTS]


def test_keyed_is_a_default_workload_also_measured_with_synchronous_commit_off() -> None:
    assert "KEYED" in ALL_WORKLOADS
    assert "KEYED" in DEFAULT_WORKLOADS
    assert "KEYED" in SC_OFF_WORKLOADS


def test_the_reference_is_starts_query_and_every_kind_of_call_is_measured() -> None:
    assert NAMES == ["plain", "idempotency", "concurrency", "deadline", "duplicate"]
    by_name = {v.name: v for v in keyed.VARIANTS}
    assert by_name["plain"].query == START_QUERY
    assert "idempotency_key => %(key)s" in by_name["idempotency"].query
    assert f"'{keyed.LIMITED_FLOW}'" in by_name["concurrency"].query
    assert "concurrency_key => %(key)s" in by_name["concurrency"].query
    assert "deadline =>" in by_name["deadline"].query
    assert by_name["duplicate"].duplicate is True
    assert by_name["idempotency"].duplicate is False


def test_keys_are_distinct_where_runs_are_created_and_existing_where_duplicated() -> None:
    by_name = {v.name: v for v in keyed.VARIANTS}
    calls, rounds = 50, 4
    idem = by_name["idempotency"].key
    assert idem is not None
    created = [idem(r, c) for r in range(-1, rounds) for c in range(calls)]
    assert len(set(created)) == len(created)
    dup = by_name["duplicate"].key
    assert dup is not None
    seeds = {f"seed-{n}" for n in range(1, keyed._seeds(calls) + 1)}
    assert {dup(r, c) for r in range(-1, rounds) for c in range(calls)} <= seeds
    assert {dup(-1, c) for c in range(keyed.WARM_UP_CALLS)} <= {
        f"seed-{n}" for n in range(1, keyed._seeds(1) + 1)
    }
    conc = by_name["concurrency"].key
    assert conc is not None
    # One run per key and round: a key never holds more than `rounds` runs.
    assert len({conc(r, c) for c in range(calls) for r in range(rounds)}) == calls


def test_each_round_rotates_the_order_so_every_variant_takes_every_position() -> None:
    orders = [[v.name for v in keyed.round_order(r)] for r in range(len(NAMES))]
    assert orders[0] == NAMES
    assert orders[1] == [*NAMES[1:], NAMES[0]]
    for position in range(len(NAMES)):
        assert {o[position] for o in orders} == set(NAMES)


def test_summary_takes_median_rates_and_median_per_round_ratios() -> None:
    per_round = {
        "plain": [100.0, 200.0, 400.0],
        "slow": [50.0, 300.0, 200.0],  # half of plain in 2 of 3 rounds
    }
    out = keyed.summarize(per_round)
    assert out["plain"] == {"rate": 200.0, "ratio": 1.0}
    assert out["slow"]["rate"] == 200.0  # same median rate, yet round by round: half
    assert out["slow"]["ratio"] == pytest.approx(0.5)


def test_summary_refuses_rounds_that_do_not_pair_up() -> None:
    with pytest.raises(ValueError, match="slow: 1 rounds, plain has 2"):
        keyed.summarize({"plain": [1.0, 2.0], "slow": [1.0]})
    with pytest.raises(KeyError):
        keyed.summarize({"slow": [1.0]})


class FakeConn:
    def __init__(self, row: tuple[int, ...]) -> None:
        self.row = row

    def execute(self, query: str) -> FakeConn:
        assert query == keyed.CHECK
        return self

    def fetchone(self) -> tuple[int, ...]:
        return self.row


def expected_runs(calls: int, rounds: int) -> tuple[int, ...]:
    timed = keyed.WARM_UP_CALLS + calls * rounds
    seeds = keyed._seeds(calls)
    return (seeds + 4 * timed, 0, timed, seeds + timed, timed)


def test_runs_check_passes_when_every_run_started_as_asked() -> None:
    keyed._check_runs(FakeConn(expected_runs(30, 3)), 30, 3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "field, what",
    [(1, "a run queued"), (2, "a concurrency_key lost"), (0, "a duplicate written")],
)
def test_runs_check_fails_when_a_run_queued_or_was_not_written_as_asked(
    field: int, what: str
) -> None:
    row = list(expected_runs(30, 3))
    row[field] += 1 if field != 2 else -1
    with pytest.raises(RuntimeError, match="KEYED: runs"):
        keyed._check_runs(FakeConn(tuple(row)), 30, 3)  # type: ignore[arg-type]


def canned(rates: dict[str, float], ratios: dict[str, float]) -> dict[str, Any]:
    out: dict[str, Any] = {n: {"rate": rates[n], "ratio": ratios[n]} for n in NAMES}
    out["per_round"] = {n: [rates[n]] for n in NAMES}
    return out


def test_record_keeps_each_rate_and_its_ratio_to_no_key_per_repeat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ratios = {"plain": 1.0, "idempotency": 0.9, "concurrency": 0.8, "deadline": 1.0}
    outcomes = iter(
        [
            canned({n: 100.0 * (i + 1) for i, n in enumerate(NAMES)}, {**ratios, "duplicate": 5}),
            canned({n: 110.0 * (i + 1) for i, n in enumerate(NAMES)}, {**ratios, "duplicate": 6}),
        ]
    )
    monkeypatch.setattr(keyed, "measure", lambda server, calls, rounds: next(outcomes))
    results = Results()

    def add(m: Any) -> Any:
        return results.add(m)

    bench = SimpleNamespace(
        sizes=FULL, repeat=2, server=None, results=results, add=add, variant=("", "")
    )
    keyed.record(bench)  # type: ignore[arg-type]
    assert results.get("KEYED.plain").values == [100.0, 110.0]  # type: ignore[union-attr]
    assert results.get("KEYED.duplicate").values == [500.0, 550.0]  # type: ignore[union-attr]
    assert results.get("KEYED.duplicate").unit == "calls/s"  # type: ignore[union-attr]
    assert results.get("KEYED.concurrency.ratio").values == [0.8, 0.8]  # type: ignore[union-attr]
    assert results.get("KEYED.duplicate.ratio").median == 5.5  # type: ignore[union-attr]
    assert results.get("KEYED.plain.ratio") is None
    details = results.get("KEYED.idempotency").details  # type: ignore[union-attr]
    assert details["calls"] == FULL.keyed_calls * FULL.keyed_rounds
    assert details["per_round"] == [[200.0], [220.0]]


def test_quick_sizes_keep_several_rounds() -> None:
    assert QUICK.keyed_rounds >= 3
    assert FULL.keyed_rounds >= 5
