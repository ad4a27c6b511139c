"""What the keyed-runs model property test checks after every SQL call: every run agrees
with the model, the held messages follow the release rules, and the invariants of #14
hold whatever the model says (read from the database alone)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.integration.keyed_model import HOLDING, TERMINAL, Key3, KeyedModel
from tests.integration.keyed_scenarios import KeyedScenario
from tests.integration.model_runner import compare_state


def compare_runs(snap: dict[str, Any], model: KeyedModel, when: str) -> None:
    """Each run (status, output, steps, tasks, its messages) is as the model says."""
    assert len(snap["runs"]) == len(model.runs), f"number of runs {when}"
    for db, run in zip(snap["runs"], model.runs, strict=True):
        compare_state(db, run, f"of run #{run.number} {when}")  # type: ignore[arg-type]
        got = (db["run"]["idempotency_key"], db["run"]["concurrency_key"])
        assert got == (run.idempotency_key, run.concurrency_key), f"keys of run #{run.number}"
        assert (db["run"]["queue_seq"] is not None) == (run.queue_seq is not None), (
            f"queue_seq of run #{run.number} {when}"
        )


def check_invariants(snap: dict[str, Any], scenario: KeyedScenario, when: str) -> None:
    """#14's invariants, from the database alone."""
    runs = [db["run"] for db in snap["runs"]]
    limit = scenario.concurrency_limit
    keys = Counter(r["concurrency_key"] for r in runs if r["status"] in HOLDING)
    for key, holders in keys.items():
        assert key is None or holders <= limit, f"{holders} runs hold key {key} {when}"
    for r in runs:
        # A queued run waits only for a slot (one past its deadline is left for the tick).
        waits = r["status"] == "queued" and not r["past"]
        assert not waits or keys[r["concurrency_key"]] >= limit, (
            f"run {r['run_id']} queued while its key has a free slot {when}"
        )
    idem = Counter(r["idempotency_key"] for r in runs if r["idempotency_key"] is not None)
    assert all(n == 1 for n in idem.values()), f"two runs with one idempotency key {when}"
    if scenario.max_in_flight is not None:
        slug, most = scenario.max_in_flight
        started = [t for t in snap["tasks"] if t["step_slug"] == slug and t["status"] == "started"]
        assert len(started) <= most, f"{len(started)} tasks of {slug} started {when}"
    for db in snap["runs"]:
        status = db["run"]["status"]
        if status in TERMINAL:
            live = [k for k, t in db["tasks"].items() if t["status"] in ("queued", "started")]
            assert not live, f"live tasks {live} of a {status} run {when}"
            assert not db["queue"], f"messages of a {status} run {when}"
        if status == "queued":
            assert not db["tasks"] and not db["queue"], f"tasks of a queued run {when}"
            assert {s["status"] for s in db["steps"].values()} <= {"created"}, f"queued {when}"


def check_held(
    snap: dict[str, Any], model: KeyedModel, before: dict[Key3, int], freed: bool, when: str
) -> None:
    """The messages a claim held back and a release let go.

    ``before``: the held messages (task -> msg_id) before the call (after a claim the model
    has added those it held). A call other than a claim hides nothing new; it releases the
    lowest msg_ids first; when it freed a slot of the limited step (a task of it stopped
    being started, or it is the tick, which always releases), it leaves no message held
    while the step has a free slot unless it released at least as many as there are free
    slots (a release counts free slots, not the messages released before it).
    """
    hidden: dict[Key3, int] = snap["hidden"]
    live = model.live_held()
    assert set(hidden) <= set(live), f"messages held that no claim held back {when}"
    assert all(live[k] == db for k, db in hidden.items()), f"held msg_ids {when}"
    released = {k: db for k, db in live.items() if k not in hidden and k in before}
    assert set(live) - set(hidden) == set(released), f"a claim held too few {when}"
    if released and hidden:
        assert max(released.values()) < min(hidden.values()), f"released out of order {when}"
    if freed and hidden and model.max_in_flight is not None:
        slug, limit = model.max_in_flight
        free = limit - len(model.started(slug))
        assert free <= 0 or len(released) >= free, (
            f"{len(hidden)} messages still held with {free} free slots of {slug} {when}"
        )
