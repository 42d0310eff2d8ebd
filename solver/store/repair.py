"""Make a damaged result store usable again, keeping every readable result: what
damage.inspect finds is mended, and the openers of unreadable parts are pending
again."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np

from ..errors import Param, StoreError
from .damage import _array_damage, _file_damage, _root_damage, check_folder, damage_message
from .layout import LIST_ARRAYS, PENDING, RESULT_ARRAYS, layout, zarr_module
from .store import Store


def repair(path, lists=None) -> list[str]:
    """Make a damaged store usable again, keeping every readable result.

    Openers whose status, total, depth or second-guess rows are unreadable (missing
    or garbage chunks, arrays of the wrong shape, status codes out of range) are
    re-marked pending, so a resumed run values them again; run-information arrays
    (timings, ranks) are refilled; the word arrays are rebuilt from `lists` (a
    WordLists with the checksums the store names). Root attributes (which problem
    the numbers belong to) cannot be guessed: such a store is refused. Returns one
    line per action taken (empty: nothing was wrong).
    """
    path = Path(path)
    check_folder(path)
    done: list[str] = []
    for d in _file_damage(path):  # FIFOs/devices/links in place of files, lock folder
        rel = d.array[5:] if d.array and d.array.startswith("file:") else "writer.lock"
        target = path / rel
        if target.is_dir() and not target.is_symlink():
            try:
                target.rmdir()
            except OSError:
                raise StoreError(f"{target} is a folder that is not empty; move it away "
                                 "and repair again") from None
        else:
            target.unlink()
        done.append(f"removed {rel} ({d.what.split(' is ', 1)[-1]})")
    attrs, root = _root_damage(path)
    if any(d.fatal for d in root):
        raise StoreError(*damage_message(path, root))
    zarr = zarr_module()
    group = zarr.open_group(str(path), mode="r+", zarr_format=3)
    for d in root:  # a progress note that is not a mapping: reset it
        assert d.array is not None  # ("attr:NAME": only notes are not fatal)
        group.attrs[d.array[5:]] = {}
        done.append(f"fixed: {d.what} (reset)")
    if root:
        attrs, _ = _root_damage(path)
    assert attrs is not None  # fatal root damage was refused above
    st = Store(group, path, read_only=False)
    st.lock()
    try:
        damage, _values = _array_damage(group, path, attrs)
        if not damage:
            st.write_every_chunk()
            return done + st.upgrade_layout()
        n_g, n_a = attrs["n_guesses"], attrs["n_answers"]
        spec = layout(n_g, n_a, attrs.get("word_length", 5), attrs.get("objective", "expected"))
        if any(d.array in LIST_ARRAYS for d in damage):
            if lists is None or lists.guesses_sha256 != attrs["guesses_sha256"] or (
                    lists.answers_sha256 != attrs["answers_sha256"]):
                raise StoreError(
                    f"{path}: the word arrays are damaged; repair needs the lists the store "
                    "was made with (", Param("answers"), "/", Param("guesses"),
                    " with sha256 "
                    f"{attrs['answers_sha256'][:12]} / {attrs['guesses_sha256'][:12]})")
        lost = np.zeros(n_g, dtype=bool)
        status_lost = False
        for d in damage:
            assert d.array is not None  # array damage always names its array
            shape, chunks, dtype, fill = spec[d.array]
            if d.whole:  # metadata, shape or dtype wrong: make the array again
                node = path / d.array
                if node.is_dir() and not node.is_symlink():
                    shutil.rmtree(node)
                elif node.exists() or node.is_symlink():
                    node.unlink()
                group.create_array(d.array, shape=shape, chunks=chunks, dtype=dtype,
                                   fill_value=fill)
            rows = np.arange(shape[0]) if d.rows is None else d.rows
            if d.array == "words":
                from ..words import encode_words

                group["words"][...] = encode_words(lists.guesses)
            elif d.array == "answer_ids":
                group["answer_ids"][...] = lists.answer_guess_ids
            elif d.array == "status" and d.rows is not None and not d.whole and (
                    "out of range" in d.what):
                lost[rows] = True
            else:
                arr = group[d.array]
                if d.whole or d.rows is None:
                    arr[...] = np.full(shape, fill, dtype=dtype)
                else:
                    arr[int(rows[0]):int(rows[-1]) + 1] = np.full(
                        (len(rows),) + shape[1:], fill, dtype=dtype)
                if d.array in RESULT_ARRAYS:
                    lost[rows] = True
                    status_lost |= d.array == "status"
            done.append(f"fixed: {d.what}")
        status = np.asarray(group["status"][...])
        known = int((status[lost] != PENDING).sum())
        status[lost] = PENDING
        group["status"][...] = status  # last, as in every batch
        if status_lost:
            done.append(f"the status array was lost: all {int(lost.sum())} opener(s) in it "
                        "are pending again and will be valued again")
        elif lost.any():
            done.append(f"{known} finished result(s) in the damaged parts re-marked pending "
                        f"({int(lost.sum())} opener(s) affected); every other result is kept")
        hist = list(group.attrs.get("repairs", []) or [])[-20:]
        group.attrs["repairs"] = hist + [{"at": time.time(), "actions": done[-50:]}]
        st.write_every_chunk()
        return done + st.upgrade_layout()
    finally:
        st.unlock()
