"""What keyed starts, concurrency slots and deadlines return, as frozen records.

:class:`StartedRun` is what ``start_flow`` returns (a :class:`~pgflow.client.RunState`
that also says whether the start was a duplicate); :class:`RunSlot` where a run with a
concurrency key stands (``pgflow.get_run_slot``); :class:`RunDeadline` a run's deadline
with the time left on the database clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pgflow.client.records import RunState


@dataclass(frozen=True)
class StartedRun(RunState):
    """The run ``start_flow`` started, or found: a :class:`RunState` and ``duplicate``.

    Attributes:
        duplicate: True when an earlier start of the flow with the same
            ``idempotency_key`` had created the run: this call wrote nothing and the run
            is returned as it is now, in whatever status (its input may differ from the
            one just given). False when this call created the run.
    """

    duplicate: bool = False


@dataclass(frozen=True)
class RunSlot:
    """Where a run with a concurrency key stands (a ``pgflow.get_run_slot`` row).

    Attributes:
        concurrency_key: the run's key.
        concurrency_limit: at most this many runs of the flow with the key are started or
            paused at once; None when the flow has no limit (the key is only recorded).
        on_limit: what a start over the limit does: ``queue`` or ``reject``.
        queue_position: for a queued run, its place in the key's queue (1 = the next to
            start); None otherwise.
        holders: the runs (ids as text) of the flow with the key that hold a slot now
            (started or paused), oldest first; may include the run itself.
    """

    concurrency_key: str
    concurrency_limit: int | None
    on_limit: str
    queue_position: int | None
    holders: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RunSlot:
        """Build from a ``pgflow.get_run_slot`` row (``holders`` a list of uuids)."""
        key, limit, on_limit, position, holders = row
        return cls(key, limit, on_limit, position, tuple(str(h) for h in holders or ()))


@dataclass(frozen=True)
class RunDeadline:
    """A run's deadline, with the time left measured on the database clock.

    Attributes:
        deadline: when the run expires if it is still unfinished then.
        seconds_left: seconds from the engine's time (``pgflow._now()``) to the deadline,
            read in the same statement; zero or negative once it has passed (the next tick
            expires the run if it is still queued, started or paused).
        expired_at: when the tick expired the run, or None.
    """

    deadline: datetime
    seconds_left: float
    expired_at: datetime | None

    @property
    def passed(self) -> bool:
        """True once the deadline is not in the future any more (database clock)."""
        return self.seconds_left <= 0
