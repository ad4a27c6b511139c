"""Small statistics: medians, spreads and percentiles of repeated measurements."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """Return the ``q`` percentile (0-100) with linear interpolation between samples.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass
class Measurement:
    """One metric measured once per repeat.

    Attributes:
        key: stable id, e.g. ``W1`` or ``ceiling.b.p2``.
        label: human name, e.g. ``W1 one-step runs``.
        unit: ``tasks/s``, ``msg/s``, ``ms``, ``s``, ``ratio``...
        values: one value per repeat, in order.
        higher_is_better: for the chart and the wording.
        details: anything else worth keeping (sizes, per-repeat extras).
    """

    key: str
    label: str
    unit: str
    values: list[float] = field(default_factory=list)
    higher_is_better: bool = True
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        """Median of the repeats (NaN when none)."""
        return statistics.median(self.values) if self.values else math.nan

    @property
    def low(self) -> float:
        """Smallest repeat (NaN when none)."""
        return min(self.values) if self.values else math.nan

    @property
    def high(self) -> float:
        """Largest repeat (NaN when none)."""
        return max(self.values) if self.values else math.nan

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form (values plus median, min, max)."""
        return {
            "label": self.label,
            "unit": self.unit,
            "values": [round(v, 4) for v in self.values],
            "median": _round(self.median),
            "min": _round(self.low),
            "max": _round(self.high),
            "higher_is_better": self.higher_is_better,
            "details": self.details,
        }

    @classmethod
    def from_json(cls, key: str, data: dict[str, Any]) -> Measurement:
        """Rebuild a measurement written by :meth:`to_json`."""
        return cls(
            key=key,
            label=data["label"],
            unit=data["unit"],
            values=list(data["values"]),
            higher_is_better=data.get("higher_is_better", True),
            details=dict(data.get("details") or {}),
        )


def _round(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)
