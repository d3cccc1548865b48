"""`cardtable tournament --plot`: the ladder as a PNG (matplotlib, the `plot` extra)."""

from __future__ import annotations


def plot(result, path: str, options: dict | None = None) -> None:
    """Each side's win rate with its 95% interval, and the even share as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.level for s in result.sides]
    rates = [s.rate for s in result.sides]
    errs = [
        [s.rate - s.interval()[0] for s in result.sides],
        [s.interval()[1] - s.rate for s in result.sides],
    ]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar(names, rates, yerr=errs, capsize=6, color="#4c72b0")
    ax.axhline(1 / len(names), color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% CI)")
    # The options in the title: two ladders of one game (Zhol small and large) must differ.
    given = ", ".join(f"{k} {v}" for k, v in sorted((options or {}).items()))
    ax.set_title(f"{result.game}{f' ({given})' if given else ''}: {result.sides[0].matches} matches")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
