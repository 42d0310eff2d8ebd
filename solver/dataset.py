"""A result store in the scientific Python stack: an xarray Dataset, a pandas
DataFrame, a Parquet file (the `analysis` extra: pip install -e '.[analysis]').

A store of today's layout opens directly, `xarray.open_zarr(path,
consolidated=False)`; `open_dataset` gives the same Dataset from any store,
including those written before the layout named its dimensions (read through
`Store`, nothing written). Status codes are `solver.store.STATUS_NAMES`, also in the
`status` variable's `flag_values` / `flag_meanings` attributes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import UsageError
from .store import ATTRS, FIELDS, ROW_KEYS, STATUS_NAMES, Store, averages

__all__ = ["open_dataset", "to_dataframe", "to_dataset", "write_parquet"]


def need(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"this needs {module} (the analysis extra: pip install -e "
                         "'.[analysis]')") from None


def to_dataset(store: Store):
    """The store as an xarray Dataset over the dimensions opener (a coordinate of
    words) and pattern (BBBBB .. GGGGG): status, selected, total, average, depth,
    timings, nodes, rank, finished_at (datetime), the second-guess table, and the
    lists as codes (words over opener and letter, answer_ids over answer). The
    attributes name the problem (lists' sha256, mode, max_guesses, cutoff). A store of
    the objective wins has wins too (total and average are then over those)."""
    xr = need("xarray")
    from .feedback import to_text

    snap = store.snapshot()
    n = store.problem.n_answers
    second = np.asarray(store.group["second"][...])
    data: dict[str, tuple] = {"status": (("opener",), snap.status, ATTRS["status"]),
            "selected": (("opener",), snap.selected, ATTRS["selected"])}
    for name in FIELDS:
        data[name] = (("opener",), snap.fields[name], ATTRS[name])
    wins = snap.fields.get("wins")  # a store of the objective wins
    if wins is not None:
        data["wins"] = (("opener",), wins, ATTRS["wins"])
    data["average"] = (("opener",), averages(snap.status, snap.fields["total"], n, wins),
                       ATTRS["average"])
    data["second"] = (("opener", "pattern"), second, ATTRS["second"])
    data["words"] = (("opener", "letter"), np.asarray(store.group["words"][...]),
                     ATTRS["words"])
    data["answer_ids"] = (("answer",), np.asarray(store.group["answer_ids"][...]),
                          ATTRS["answer_ids"])
    p = store.problem
    attrs = {"answers_sha256": p.answers_sha256, "guesses_sha256": p.guesses_sha256,
             "n_answers": p.n_answers, "n_guesses": p.n_guesses, "mode": p.mode,
             "max_guesses": p.max_guesses, "objective": p.objective}
    if store.cutoff is not None:
        attrs["cutoff"] = store.cutoff
    ds = xr.Dataset(data, coords={"opener": np.array(store.words, dtype=object),
                                  "pattern": [to_text(c, p.length)
                                              for c in range(p.n_patterns)]},
                    attrs=attrs)
    return xr.decode_cf(ds)  # finished_at: seconds since 1970 -> datetime64


def open_dataset(path: str | Path):
    """`to_dataset` of the store at `path` (opened read-only and checked)."""
    return to_dataset(Store.open(path, read_only=True))


def to_dataframe(store: Store):
    """One row per opener, the columns of `export --csv` with types: status an
    ordered categorical of STATUS_NAMES, counts as nullable integers (missing
    where unknown), finished_at a UTC timestamp."""
    pd = need("pandas")
    snap = store.snapshot()
    ranks = snap.ranks()
    rows = [snap.row(i, ranks) for i in range(len(snap.status))]
    df = pd.DataFrame({k: [r[k] for r in rows] for k in ROW_KEYS})
    df["status"] = pd.Categorical(df["status"], categories=list(STATUS_NAMES), ordered=True)
    for k in ("index", "total", "rank", "depth", "nodes", "mpi_rank", "wins", "wins_total"):
        df[k] = df[k].astype("Int64")
    for k in ("average", "cpu_seconds", "wall_seconds"):
        df[k] = df[k].astype("float64")
    df["finished_at"] = pd.to_datetime(df["finished_at"].astype("float64"), unit="s", utc=True)
    df["opener"] = df["opener"].astype("string")
    return df


def write_parquet(store: Store, f) -> None:
    """`to_dataframe` as Parquet into the binary file `f` (the problem in the file's
    key-value metadata as JSON, key wordle-dp)."""
    import json

    pa = need("pyarrow")
    import pyarrow.parquet as pq

    df = to_dataframe(store)
    table = pa.Table.from_pandas(df, preserve_index=False)
    p = store.problem
    meta = {"mode": p.mode, "max_guesses": p.max_guesses, "n_answers": p.n_answers,
            "answers_sha256": p.answers_sha256, "guesses_sha256": p.guesses_sha256,
            "cutoff": store.cutoff}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"wordle-dp": json.dumps(meta).encode()})
    pq.write_table(table, f)
