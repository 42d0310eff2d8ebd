"""Merge result stores of the same problem into one: each opener takes the result
that knows most."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..errors import StoreError
from .layout import EXACT, FAILED, INFEASIBLE, LOWER_BOUND, UPPER_BOUND, Record, fields_of
from .store import Store


def _merge_rank(status: np.ndarray, total: np.ndarray) -> np.ndarray:
    """How much a result knows, to choose among stores: a final one (exact,
    infeasible, upper bound) over any lower bound, a higher lower bound over a lower
    one, any of them over failed, failed over pending."""
    rank = np.zeros(len(status), np.int64)
    rank[status == FAILED] = 1
    lb = status == LOWER_BOUND
    rank[lb] = 2 + np.maximum(total[lb], 0)
    rank[np.isin(status, (EXACT, INFEASIBLE, UPPER_BOUND))] = np.int64(1) << 62
    return rank


def merge(out_path, in_paths, quiet: bool = False) -> dict:
    """Merge stores of the same problem into `out_path` (created from the first one).

    An opener takes the result that knows most (see _merge_rank; the first store's
    among equals); pending ones stay pending. Returns counts.
    """
    ins = [Store.open(p, read_only=True) for p in in_paths]
    if not ins:
        raise StoreError("merge needs at least one input store")
    first = ins[0]
    for s in ins[1:]:
        first.check_problem(s.problem)
        if s.words != first.words:
            raise StoreError(f"{s.path} holds another guess list")
    out_path = Path(out_path)
    from ..words import WordLists

    lists = WordLists(first.answers, first.words, first.group.attrs.get("answers_source", ""),
                      first.group.attrs.get("guesses_source", ""))
    # every lower bound holds its own proven total, so stores of different cutoffs
    # merge: the result keeps the highest (a resumed run then values again the lower
    # bounds below it)
    cutoffs = [s.cutoff for s in ins if s.cutoff is not None]
    out, _ = Store.open_or_create(out_path, lists, first.problem.mode,
                                  first.problem.max_guesses,
                                  max(cutoffs) if cutoffs else None, first.solver_version,
                                  first.problem.objective)
    cur = out.snapshot()
    status = cur.status.copy()
    total = cur.fields["total"].copy()
    records: list[Record] = []
    taken: set[int] = set()
    selected = cur.selected.copy()
    for s in ins:
        snap = s.snapshot()
        selected |= snap.selected
        better = _merge_rank(snap.status, snap.fields["total"]) > _merge_rank(status, total)
        idx = np.flatnonzero(better)
        if len(idx):
            second = np.asarray(s.group["second"].get_orthogonal_selection(
                (idx, slice(None))))
        for k, i in enumerate(idx):
            rec = Record(int(i), int(snap.status[i]),
                         **{n: snap.fields[n][i].item()
                            for n in fields_of(first.problem.objective)},
                         second=second[k])
            records.append(rec)
            status[i] = snap.status[i]
            total[i] = snap.fields["total"][i]
            taken.add(int(i))
    out.group["selected"][...] = selected
    for start in range(0, len(records), 4096):
        out.write(records[start:start + 4096])
    out.set_attrs(run={"state": "merged", "updated_at": time.time(),
                       "inputs": [str(p) for p in in_paths]})
    return {"inputs": len(ins), "copied": len(taken), "counts": out.snapshot().counts()}
