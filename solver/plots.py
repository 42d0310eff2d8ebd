"""Plots for the CLI (matplotlib, non-interactive Agg backend).

Imported only by commands given --plot, so matplotlib is needed only there.
Every figure is FIG_SIZE inches at DPI, i.e. 1000 x 560 pixels.
"""

from __future__ import annotations

import io

import numpy as np

from .errors import Param, UsageError
from .output import write_output

FIG_SIZE = (10.0, 5.6)
DPI = 100


def _plt():
    try:
        import matplotlib
    except ImportError:
        raise UsageError(Param("plot"), " needs matplotlib (pip install 'wordle-dp[plot]')"
                         ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path) -> None:
    """Render to memory, then write atomically: a failed write leaves no half PNG."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, dpi=DPI, format="png")
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    write_output("--plot", str(path), lambda f: f.write(buf.getvalue()), binary=True)


def histograms(series: list[tuple[str, dict[int, int]]], path, title: str,
               cap: int = 0, counted: str = "answers") -> None:
    """Guess-count histograms side by side: series = [(label, {guesses: games})];
    a dashed line after the cap when one is given and some game exceeds it."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    ks = sorted({k for _, h in series for k in h})
    x = np.arange(len(ks))
    width = 0.8 / max(len(series), 1)
    for i, (label, h) in enumerate(series):
        vals = [h.get(k, 0) for k in ks]
        bars = ax.bar(x + (i - (len(series) - 1) / 2) * width, vals, width, label=label)
        if len(series) <= 4:
            ax.bar_label(bars, labels=[str(v) if v else "" for v in vals], fontsize=7,
                         padding=1)
    ax.set_xticks(x, [str(k) for k in ks])
    if cap and ks and ks[-1] > cap:
        at = ks.index(cap) + 0.5 if cap in ks else -0.5
        ax.axvline(at, color="grey", linestyle="--", linewidth=1)
        ax.annotate(f"cap {cap}", xy=(at, ax.get_ylim()[1] * 0.95), xytext=(4, 0),
                    textcoords="offset points", color="grey")
    ax.set_xlabel("guesses needed")
    ax.set_ylabel(counted)  # what one game is: an answer, or a tuple of answers
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=2 if len(series) > 6 else 1)
    fig.tight_layout()
    _save(fig, path)


def regret_bars(rows: list[dict], path, title: str) -> None:
    """Regret (extra guesses over all answers vs the exact optimum) per strategy,
    one group of bars per opener: rows have opener, strategy, regret."""
    plt = _plt()
    openers = list(dict.fromkeys(r["opener"] for r in rows))
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    y = np.arange(len(strategies))
    height = 0.8 / max(len(openers), 1)
    for i, op in enumerate(openers):
        reg = {r["strategy"]: r["regret"] for r in rows if r["opener"] == op}
        vals = [reg.get(s, 0) for s in strategies]
        bars = ax.barh(y + (i - (len(openers) - 1) / 2) * height, vals, height, label=op)
        ax.bar_label(bars, fontsize=7, padding=2)
    ax.set_yticks(y, strategies)
    ax.invert_yaxis()
    ax.set_xlabel("regret: extra guesses over all answers vs the exact optimum")
    ax.set_title(title)
    ax.legend(title="opener", fontsize=8)
    fig.tight_layout()
    _save(fig, path)


def opener_values(averages: np.ndarray, best: tuple[str, float], path, title: str,
                  n_answers: int | None = None) -> None:
    """Distribution of the openers' exact averages (log count axis, so the few
    best openers stay visible), the best one marked. With n_answers the bins are
    one total apart while that gives at most 200 bins (totals are integers)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    bins: object = 80
    if n_answers:
        lo, hi = round(averages.min() * n_answers), round(averages.max() * n_answers)
        if hi - lo < 200:
            bins = (np.arange(lo, hi + 2) - 0.5) / n_answers
    ax.hist(averages, bins=bins, color="#4a7ab5")
    ax.set_yscale("log")
    ax.axvline(best[1], color="#c0392b", linewidth=1.2, linestyle="--")
    ax.annotate(f"best: {best[0]} {best[1]:.4f}", xy=(best[1], 0.92),
                xycoords=("data", "axes fraction"), xytext=(6, 0),
                textcoords="offset points", color="#c0392b")
    ax.set_xlabel("exact average guesses per answer")
    ax.set_ylabel("openers (log scale)")
    ax.set_title(title)
    fig.tight_layout()
    _save(fig, path)
