"""Handler time without the process's own suspension (pgflow.worker.suspension)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from pgflow.worker.suspension import SuspensionClock, active_timeout


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_gap_between_ticks_counts_as_suspended_time_beyond_one_period():
    mono = FakeMonotonic()
    clock = SuspensionClock(tick_seconds=0.1, stall_seconds=1.0, monotonic=mono)
    for _ in range(5):
        mono.now += 0.1
        assert clock.record_tick() == 0.0
    mono.now += 40.0  # frozen
    assert clock.record_tick() == pytest.approx(39.9)
    assert clock.suspended_seconds() == pytest.approx(39.9)
    assert clock.freezes == 1
    mono.now += 0.1
    clock.record_tick()
    assert clock.active_time() == pytest.approx(mono.now - 39.9)


def test_short_gaps_are_not_freezes():
    mono = FakeMonotonic()
    clock = SuspensionClock(tick_seconds=0.1, stall_seconds=1.0, monotonic=mono)
    mono.now += 0.9  # a slow tick (GIL, a busy machine) is still handler time
    assert clock.record_tick() == 0.0
    assert clock.suspended_seconds() == 0.0


def test_a_freeze_the_ticker_has_not_seen_yet_is_already_left_out():
    mono = FakeMonotonic()
    clock = SuspensionClock(tick_seconds=0.1, stall_seconds=1.0, monotonic=mono)
    mono.now += 30.0  # the loop runs before the ticker thread after the resume
    assert clock.suspended_seconds() == pytest.approx(29.9)
    assert clock.record_tick() == pytest.approx(29.9)  # then the ticker records the same gap
    assert clock.suspended_seconds() == pytest.approx(29.9)


class ShiftedClock:
    """active_time = the loop's time minus a shift the test sets (a simulated freeze)."""

    def __init__(self) -> None:
        self.shift = 0.0

    def active_time(self) -> float:
        return time.monotonic() - self.shift


def test_active_timeout_waits_for_the_rest_after_a_freeze():
    async def scenario() -> str:
        clock = ShiftedClock()
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, lambda: setattr(clock, "shift", 0.3))  # 0.3 s "frozen"
        async with active_timeout(0.2, clock) as deadline:  # type: ignore[arg-type]
            await asyncio.sleep(0.35)  # 0.05 s of active time
        assert not deadline.expired()
        return "finished"

    assert asyncio.run(scenario()) == "finished"


def test_active_timeout_still_times_out_without_a_freeze():
    async def scenario() -> None:
        async with active_timeout(0.1, ShiftedClock()) as deadline:  # type: ignore[arg-type]
            await asyncio.sleep(5)
        raise AssertionError(f"not timed out ({deadline})")

    with pytest.raises(TimeoutError):
        asyncio.run(scenario())


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pgflow.worker.suspension import SuspensionClock, active_timeout

    async def main():
        clock = SuspensionClock()
        clock.start()
        await asyncio.sleep(0.3)
        print("ready", flush=True)
        try:
            async with active_timeout(2, clock):
                await asyncio.sleep(1.5)   # the handler: 1.5 s of its own time
            print("completed", flush=True)
        except TimeoutError:
            print("timed out", flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
def test_a_process_frozen_by_sigstop_does_not_time_out_a_handler_that_finished():
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)  # inside the handler's wait
    child.send_signal(signal.SIGSTOP)
    time.sleep(3)  # longer than the timeout: a wall-clock timeout would fire on resume
    child.send_signal(signal.SIGCONT)
    out, _ = child.communicate(timeout=30)
    assert out.strip() == "completed"
