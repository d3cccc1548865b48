"""The one percentile every benchmark here reports with."""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank value below which a share `q` of `values` lies (nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pct(values: list[float], q: float) -> float:
    """`percentile` of seconds, in milliseconds."""
    return percentile(values, q) * 1000
