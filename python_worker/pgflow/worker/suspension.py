"""Handler time that leaves out the worker process's own suspension.

A worker process can be frozen as a whole: ``SIGSTOP`` (``docker pause``, a debugger, a
laptop lid), a paused VM, a container throttled to nothing. Its monotonic clock keeps
running meanwhile, so on resume every handler timeout that fell inside the freeze would
fire at once, and handlers that in their own time finished well within their timeout
would be reported as timed out.

:class:`SuspensionClock` runs a daemon thread that ticks every ``tick_seconds``. A freeze
stops every thread of the process, so the ticker sees a gap between two ticks much longer
than its period, and counts it as suspended time. An event loop blocked by a handler is
not a freeze (the ticker thread keeps ticking), so it still counts as handler time.
:meth:`SuspensionClock.active_time` is the monotonic clock minus the suspended time; a gap
the ticker has not seen yet (the loop can run before the thread after a resume) is taken
into account too.

:func:`active_timeout` is ``asyncio.timeout`` measured on that clock: when its deadline comes
it checks the active time spent, and re-arms itself for the rest when part of the wait was
a freeze.

The worker's reports are fenced by attempt anyway (a late report of an older attempt
changes nothing in SQL); this module keeps a resumed worker from reporting handlers that
finished as timed out.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from types import TracebackType


class SuspensionClock:
    """Monotonic time minus the time the whole process was frozen.

    Args:
        tick_seconds: period of the ticker thread.
        stall_seconds: a gap between ticks longer than this counts as a freeze (the
            part beyond ``tick_seconds``).
        monotonic: the clock to read (tests pass a fake one).
    """

    def __init__(
        self,
        *,
        tick_seconds: float = 0.1,
        stall_seconds: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if tick_seconds <= 0 or stall_seconds <= tick_seconds:
            raise ValueError("need 0 < tick_seconds < stall_seconds")
        self._tick = tick_seconds
        self._stall = stall_seconds
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._last_tick = monotonic()
        self._suspended = 0.0
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        #: Freezes seen by the ticker (for logs and tests).
        self.freezes = 0

    def start(self) -> None:
        """Start the ticker thread (a daemon; :meth:`stop` ends it)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="pgflow-suspension-clock", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop the ticker thread."""
        self._stopped.set()

    def _run(self) -> None:
        while not self._stopped.wait(self._tick):
            self.record_tick()

    def record_tick(self) -> float:
        """Record a tick of the ticker at the current time; return the freeze it ended (s)."""
        now = self._monotonic()
        with self._lock:
            gap = now - self._last_tick
            frozen = gap - self._tick if gap > self._stall else 0.0
            if frozen > 0:
                self._suspended += frozen
                self.freezes += 1
            self._last_tick = now
        return frozen

    def suspended_seconds(self) -> float:
        """Seconds the process was frozen so far, including a freeze not ticked yet."""
        now = self._monotonic()
        with self._lock:
            gap = now - self._last_tick
            pending = gap - self._tick if gap > self._stall else 0.0
            return self._suspended + pending

    def active_time(self) -> float:
        """Monotonic seconds minus the suspended seconds (only differences are meaningful)."""
        return self._monotonic() - self.suspended_seconds()


class ActiveTimeout:
    """``asyncio.timeout(seconds)`` measured on a :class:`SuspensionClock`.

    Made by :func:`active_timeout`. A plain class, not a generator-based context manager:
    it is entered once per task, and the generator machinery cost more than the timeout.
    """

    __slots__ = ("_clock", "_deadline", "_handle", "_loop", "_seconds", "_started")

    def __init__(self, seconds: float, clock: SuspensionClock) -> None:
        self._seconds = seconds
        self._clock = clock
        self._deadline: asyncio.Timeout | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = 0.0

    async def __aenter__(self) -> asyncio.Timeout:
        self._loop = asyncio.get_running_loop()
        self._started = self._clock.active_time()
        deadline = self._deadline = asyncio.timeout(None)
        await deadline.__aenter__()
        self._handle = self._loop.call_later(self._seconds, self._check)
        return deadline

    def _check(self) -> None:
        assert self._loop is not None and self._deadline is not None
        left = self._seconds - (self._clock.active_time() - self._started)
        if left > 0:  # part of the wait was a freeze: wait for the rest
            self._handle = self._loop.call_later(left, self._check)
        else:
            self._deadline.reschedule(self._loop.time())

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            self._handle.cancel()
        if self._deadline is not None:  # None: __aenter__ did not get that far
            await self._deadline.__aexit__(exc_type, exc, tb)


def active_timeout(seconds: float, clock: SuspensionClock) -> ActiveTimeout:
    """Like ``asyncio.timeout(seconds)``, with the time measured on ``clock``.

    Use as ``async with active_timeout(seconds, clock) as deadline``: ``deadline`` is the
    underlying ``asyncio.Timeout``, whose ``expired()`` tells, after a ``TimeoutError``,
    that this timeout raised it. When ``seconds`` have passed on the wall clock, the active
    time spent is checked, and the timeout re-arms itself for the rest when part of the
    wait was a freeze of the process.
    """
    return ActiveTimeout(seconds, clock)
