"""What can be wrong with a result store on disk, found before zarr reads it: the
folder itself (check_folder), files that are no files (FIFOs, devices, dangling
links), the root attributes, and every array and chunk (inspect). `damage_message`
says what is wrong and how to recover; repair.py mends what `inspect` finds."""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import Hint, StoreError, one_line, quote
from ..variant import MODES, OBJECTIVES
from ..words import kind_of, read_regular
from .layout import EVERY_CHUNK, FORMAT, STATUS_NAMES, decode_words, layout, zarr_module


@dataclass
class Damage:
    """One thing wrong with a store. `rows`: the openers (or answers) it affects,
    None for all of them; `fatal`: repair cannot fix it."""

    what: str
    array: str | None = None
    rows: np.ndarray | None = None
    fatal: bool = False
    whole: bool = False  # the array itself must be made again (metadata, shape, dtype)


_HEX64 = re.compile(r"[0-9a-f]{64}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_attrs(a) -> list[str]:
    """What is wrong with a store's root attributes (empty: nothing)."""
    bad = []
    for k in ("answers_sha256", "guesses_sha256"):
        if not isinstance(a.get(k), str) or not _HEX64.fullmatch(a[k]):
            bad.append(f"{k} is {quote(a.get(k))}, not a sha256")
    for k in ("n_answers", "n_guesses"):
        if not _is_int(a.get(k)) or not 1 <= a[k] <= 26**10:
            bad.append(f"{k} is {quote(a.get(k))}")
    wl = a.get("word_length", 5)
    if not _is_int(wl) or not 3 <= wl <= 10:
        bad.append(f"word_length is {quote(wl)}")
    if a.get("mode") not in MODES:
        bad.append(f"mode is {quote(a.get('mode'))}")
    if not _is_int(a.get("max_guesses")) or not 0 <= a["max_guesses"] <= 1000:
        bad.append(f"max_guesses is {quote(a.get('max_guesses'))}")
    if a.get("objective", "expected") not in OBJECTIVES:
        bad.append(f"objective is {quote(a.get('objective'))}")
    c = a.get("cutoff")
    if c is not None and (not isinstance(c, int | float) or isinstance(c, bool)
                          or not np.isfinite(c) or c <= 0):
        bad.append(f"cutoff is {quote(c)}")
    return bad


_NOTES = ("run", "errors")  # attributes repair may reset: progress notes, not results


def _root_damage(path: Path) -> tuple[dict | None, list[Damage]]:
    """Read the root zarr.json ourselves, for precise messages. (attrs, damage)."""
    meta = path / "zarr.json"
    if not meta.exists() and not meta.is_symlink():
        looks = any((path / n / "zarr.json").exists() for n in ("status", "total"))
        what = ("its root metadata zarr.json is missing" if looks
                else "not a wordle-dp result store (no zarr.json)")
        return None, [Damage(what, fatal=True)]
    try:
        doc = json.loads(read_regular(meta, 16 * 2**20).decode("utf-8"))
    except OSError as exc:
        return None, [Damage(f"zarr.json cannot be read ({exc.strerror or exc})", fatal=True)]
    except (UnicodeDecodeError, ValueError) as exc:
        return None, [Damage(f"zarr.json is not valid JSON ({one_line(exc, 80)})", fatal=True)]
    if not isinstance(doc, dict) or doc.get("node_type") != "group" or doc.get(
            "zarr_format") != 3:
        return None, [Damage("zarr.json is not a Zarr 3 group", fatal=True)]
    a = doc.get("attributes")
    if not isinstance(a, dict) or a.get("format") != FORMAT:
        return None, [Damage("not a wordle-dp result store (no 'format' attribute "
                             f"{FORMAT!r})", fatal=True)]
    bad = _check_attrs(a)
    if bad:
        return None, [Damage("root attributes damaged: " + "; ".join(bad[:4]), fatal=True)]
    notes = [Damage(f"root attribute '{k}' is not a mapping", array="attr:" + k)
             for k in _NOTES if a.get(k) is not None and not isinstance(a[k], dict)]
    return (None if notes else a), notes


def _file_damage(path: Path) -> list[Damage]:
    """FIFOs, devices, dangling links in the store, and a writer.lock that is not a
    file: zarr would block on a FIFO or fail with a raw error."""
    out = []
    lock = path / "writer.lock"
    if lock.is_dir():
        out.append(Damage(f"{lock} is a folder, not a lock file (remove it: rmdir)",
                          array="writer.lock"))
    # only the store's own files: `--store /` must not walk the whole file system
    tops: list[tuple[str, list[str], list[str]]] = [(str(path), [], ["zarr.json",
                                                                      "writer.lock"])]
    walks = itertools.chain(tops, *(os.walk(path / name)
                                    for name in layout(1, 1, objective="wins")))
    for root, _dirs, files in walks:
        for f in files:
            p = Path(root) / f
            try:
                mode = os.stat(p).st_mode
            except OSError as exc:
                if not p.is_symlink():  # gone meanwhile: a writer's temporary file renamed
                    continue
                out.append(Damage(f"{p.relative_to(path)}: {exc.strerror or exc}",
                                  array="file:" + str(p.relative_to(path))))
                continue
            if not stat.S_ISREG(mode) and not (f == "writer.lock" and stat.S_ISDIR(mode)):
                out.append(Damage(f"{p.relative_to(path)} is {kind_of(mode)}",
                                  array="file:" + str(p.relative_to(path))))
    return out


def _array_damage(group, path: Path, attrs: dict) -> tuple[list[Damage], dict]:
    """Check every array: present, right shape/dtype/chunks, every chunk file there
    and decodable, status codes in range, word arrays matching the checksums.
    Returns (damage, the arrays' values as read, for arrays read whole)."""
    from ..words import canonical_sha256

    zarr = zarr_module()
    n_g, n_a = attrs["n_guesses"], attrs["n_answers"]
    length = attrs.get("word_length", 5)
    spec = layout(n_g, n_a, length, attrs.get("objective", "expected"))
    out: list[Damage] = []
    values: dict[str, np.ndarray] = {}
    # the attributes against the arrays: when they disagree the attributes cannot be
    # trusted, and remaking arrays to their sizes would throw results away
    dims: dict[str, int] = {}
    for name in spec:
        try:
            arr = group[name]
            if isinstance(arr, zarr.Array) and arr.ndim >= 1:
                dims[name] = arr.shape[0]
        except Exception:
            pass
    per_opener = [v for k, v in dims.items() if k != "answer_ids"]
    if per_opener:
        common = max(set(per_opener), key=per_opener.count)
        if common != n_g:
            return [Damage(f"root attribute n_guesses ({n_g}) disagrees with the arrays "
                           f"({common} openers)", fatal=True)], values
    if "answer_ids" in dims and dims["answer_ids"] != n_a:
        return [Damage(f"root attribute n_answers ({n_a}) disagrees with the array "
                       f"'answer_ids' ({dims['answer_ids']} answers)", fatal=True)], values
    # stores made before every chunk was written leave out chunks equal to the fill
    # value; there a missing status chunk is damage only if some result was written
    strict = attrs.get(EVERY_CHUNK) is True
    legacy_done = not strict and (path / "finished_at" / "c" / "0").is_file()
    for name, (shape, chunks, dtype, fill) in spec.items():
        try:
            arr = group[name]
        except KeyError:
            out.append(Damage(f"array '{name}' is missing", name, None, whole=True))
            continue
        except Exception as exc:  # bad JSON, unknown codec...
            out.append(Damage(f"array '{name}' metadata unreadable ({one_line(exc, 80)})",
                              name, None, whole=True))
            continue
        if not isinstance(arr, zarr.Array) or arr.shape != shape or arr.dtype != np.dtype(
                dtype) or tuple(arr.chunks) != chunks:
            got = (f"shape {arr.shape}, {arr.dtype}" if isinstance(arr, zarr.Array)
                   else "a group")
            out.append(Damage(f"array '{name}' is {got}, not shape {shape}, {dtype}", name,
                              None, whole=True))
            continue
        full = np.full(shape, fill, dtype=dtype)
        ok = True
        for c in range(-(-shape[0] // chunks[0])):
            key = arr.metadata.encode_chunk_key((c,) + (0,) * (len(shape) - 1))
            lo, hi = c * chunks[0], min((c + 1) * chunks[0], shape[0])
            rows = np.arange(lo, hi)
            f = path / name / key
            if not f.is_file() and not strict and not (name == "status" and legacy_done):
                continue  # a store from before every chunk was written: the fill value
            if not f.is_file():
                out.append(Damage(f"chunk {name}/{key} is missing", name, rows))
                ok = False
                continue
            try:
                full[lo:hi] = arr[lo:hi]
            except Exception as exc:  # truncated, garbage, wrong codec...
                out.append(Damage(f"chunk {name}/{key} is unreadable ({one_line(exc, 60)})",
                                  name, rows))
                ok = False
        if not ok:
            continue
        values[name] = full
        if name == "status":
            wild = np.flatnonzero(full >= len(STATUS_NAMES))
            if len(wild):
                out.append(Damage(f"{len(wild)} status code(s) out of range (first at "
                                  f"opener {int(wild[0])}: {int(full[wild[0]])})", name, wild))
        elif name == "words":
            if full.max(initial=0) > 25 or canonical_sha256(
                    decode_words(full)) != attrs["guesses_sha256"]:
                out.append(Damage("array 'words' does not match the store's guess list "
                                  "checksum", name, None))
        elif name == "answer_ids":
            if full.min(initial=0) < 0 or full.max(initial=0) >= n_g:
                out.append(Damage("array 'answer_ids' has indices outside the guess list",
                                  name, None))
    if "words" in values and "answer_ids" in values and not any(
            d.array == "answer_ids" for d in out):
        words = decode_words(values["words"])
        ans = [words[i] for i in values["answer_ids"]]
        if canonical_sha256(ans) != attrs["answers_sha256"]:
            out.append(Damage("array 'answer_ids' does not match the store's answer list "
                              "checksum", "answer_ids", None))
    return out, values


def inspect(path) -> tuple[object | None, dict | None, list[Damage]]:
    """(zarr group or None, root attributes or None, everything wrong with it)."""
    path = Path(path)
    damage = _file_damage(path)
    if any(d.array and d.array.startswith("file:") for d in damage):
        return None, None, damage  # never let zarr open a FIFO
    attrs, root = _root_damage(path)
    if root:
        return None, None, damage + root
    try:
        group = zarr_module().open_group(str(path), mode="r", zarr_format=3)
    except Exception as exc:
        return None, None, damage + [Damage(f"cannot open ({one_line(exc, 80)})", fatal=True)]
    assert attrs is not None  # (no root damage: _root_damage returned them)
    arrays, _values = _array_damage(group, path, attrs)
    return group, attrs, damage + arrays


def damage_message(path: Path, damage: list[Damage]) -> tuple[str, ...]:
    """The parts of a StoreError saying what is damaged and what to do about it."""
    shown = "; ".join(d.what for d in damage[:3])
    if len(damage) > 3:
        shown += f"; and {len(damage) - 3} more"
    if any(d.fatal for d in damage):
        how: str = ("it cannot be repaired automatically: restore it from a copy, or start a "
                    "new store")
    else:
        how = Hint("repair", "repair it (store.repair) to re-mark the openers in the "
                   "damaged parts as pending (readable results are kept), then resume",
                   path=path)
    return f"result store {path} is damaged: {shown}; ", how


def check_folder(path: Path) -> None:
    """A store path must be a folder (or not exist yet)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if path.is_symlink():
            raise StoreError(f"{path} is a dangling symbolic link, not a result store") from None
        raise StoreError(f"no result store at {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot use {path} as a result store: "
                         f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode):
        raise StoreError(f"{path} is {'a file' if stat.S_ISREG(mode) else kind_of(mode)}, "
                         "not a result store folder")
