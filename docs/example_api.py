"""wordle-dp from Python, cell by cell (run it whole, or cell by cell in an editor
that knows `# %%`): the engine, the game layer, then a result store in xarray and
pandas with a plot.

    python docs/example_api.py OUTDIR           # writes OUTDIR/store.zarr, openers.png
    EXAMPLE_ANSWERS=60 python docs/example_api.py OUTDIR   # a quick run (tests)

By default the problem is the first 200 answers of the shipped list, each allowed as
a guess, so that every step, a run over all 200 openers included, takes seconds; set
EXAMPLE_ANSWERS=0 for the full lists (the run over every opener is then a cluster
job: see slurm/README.md).
"""

# %% The problem: two word lists, a mode and a guess cap
import os
import sys
from pathlib import Path

from solver import (
    Position,
    Solver,
    WordLists,
    analyse,
    evaluate,
    make_strategy,
    open_dataset,
    simulate,
    to_dataframe,
    tree,
)

out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-out")
out.mkdir(parents=True, exist_ok=True)
n = int(os.environ.get("EXAMPLE_ANSWERS", "200"))
full = WordLists.load(quiet=True)
if n:  # a smaller problem: the first n answers, allowed as guesses too
    words = full.answers[:n]
    lists = WordLists.from_words(words, words, "answers[:n]", "answers[:n]")
else:
    lists = full
print(f"{len(lists.answers)} answers, {len(lists.guesses)} allowed guesses")

# %% The engine: the exact value of an opener, and the best openers with proof
solver = Solver(lists, mode="easy", max_guesses=6)
opener = lists.answers[0]
r = solver.solve(opener)
print(f"{opener}: {r.status} total {r.total} = {r.total / len(lists.answers):.4f} guesses "
      "per answer")
best = solver.best(3) if len(lists.answers) <= 400 else []  # a cluster job above
print("best openers:", [(b.opener, b.total) for b in best])

# %% The game layer: a position, the optimal next guess, one guess's exact cost
from solver.feedback import score, to_text  # noqa: E402

hidden = lists.answers[1]  # the feedback the game shows when the answer is this word
pos = Position.parse(f"{opener}:{to_text(score(opener, hidden), lists.length)}", lists)
res = analyse(solver, pos, top=2)
print(f"after {pos}: {len(pos.members)} candidates; best {res.best.guess} "
      f"(total {res.best.total}), then {[a.guess for a in res.alternatives]}")
print("the same position with another guess:", evaluate(solver, pos, lists.guesses[-1]))

# %% The whole strategy after an opener, and a heuristic played over every answer
t = tree(solver, opener)
print(f"optimal tree from {opener}: total {t.total}, histogram {t.histogram}")
sim = simulate(solver, make_strategy("entropy", solver), opener)
print(f"entropy from {opener}: total {sim.total} ({sim.total - t.total:+d} guesses)")

# %% Every opener into a result store (what `wordle-dp run --store S` does)
from solver.run import RunConfig, run  # noqa: E402

store_path = out / "store.zarr"
if not store_path.exists():
    a_file, g_file = out / "answers.txt", out / "guesses.txt"
    a_file.write_text("\n".join(lists.answers) + "\n")
    g_file.write_text("\n".join(lists.guesses) + "\n")
    # the fields by name; or its parts: RunConfig(store_path, Problem(answers=...),
    # RunOptions(quiet=True), Tuning()) (solver.run: the problem, options, pace)
    summary = run(RunConfig(store=store_path, answers=str(a_file), guesses=str(g_file),
                            quiet=True))
    print(f"run {summary.state}: {summary.solved} openers valued")

# %% The store in xarray: one Dataset indexed by opener word
import xarray as xr  # noqa: E402

ds = xr.open_zarr(store_path, consolidated=False)  # or solver.open_dataset (any layout)
exact = ds.where(ds.status == 1, drop=True)  # 1: exact (ds.status.attrs flag_meanings)
top = exact.sortby("total").isel(opener=slice(0, 3))
print("best 3 in the store:", [(str(w), int(v)) for w, v in zip(top.opener.values,
                                                                  top.total.values, strict=True)])
print("its second guess after all grey:",
      str(ds.opener.values[int(ds.second.sel(opener=str(top.opener.values[0]),
                                              pattern="BBBBB"))]))
assert float(open_dataset(store_path).average.sel(opener=opener)) == r.total / len(
    lists.answers)

# %% The store in pandas (the columns of `export --csv`, typed)
from solver.store import Store  # noqa: E402

df = to_dataframe(Store.open(store_path))
print(df.groupby("status", observed=True).average.describe()[["count", "mean", "min"]])

# %% A plot from the Dataset: the distribution of opener values
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(8, 4.2), dpi=100)
exact.average.plot.hist(ax=ax, bins=40, color="#2f6fde")
b = exact.sortby("total").isel(opener=0)
ax.axvline(float(b.average), color="#3f9b5a", linestyle="--",
           label=f"best: {str(b.opener.values).upper()} {float(b.average):.4f}")
ax.set_xlabel("average guesses per answer with best play (exact openers)")
ax.set_ylabel("openers")
ax.set_title(f"opener values, {len(lists.answers)} answers, {ds.attrs['mode']} mode")
ax.legend()
fig.tight_layout()
fig.savefig(out / "openers.png")
print(f"wrote {out / 'openers.png'}")
