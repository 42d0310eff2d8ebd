"""Bad input, generated: every command refuses it with one clear line.

Each case is a command line (with placeholders for the files it needs) and the
text its one error line must contain. Every case must exit with status 2 and
write exactly one line on stderr, starting 'wordle-dp: error:' (no traceback, no
hang, nothing accepted silently), and must leave any store it names unchanged.
Most cases run in-process through `solver.cli.main` (fast); the few that need a
real process (numba's import, a FIFO, huge output) run as subprocesses. A few
"tolerated" cases (odd cache entries: the table is rebuilt) must exit 0 with a
note instead, still without a traceback or a hang.

To add cases for a new command, append to CASES (or write a generator like the
ones below). Placeholders in argv:
  {A} {G}    small good answer and guess lists      {BIG}  a list whose table
  {S}        a copy of a good store with results           cannot fit in memory
  {T}        this case's empty temporary folder     {C}    a cache folder
  {X}        a file the case's `prep` made ({T}/x)
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from solver import cli
from solver import store as S
from solver.feedback import score, to_text
from solver.table import get_table, gpu_available, memory_bytes
from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade"]
EXTRA = ["salet", "crane", "trace", "adieu", "roate"]
HUGE = "9" * 40  # beyond int64
TIMEOUT = 60  # seconds per case: a hang fails the case, not the suite (a busy machine is no hang)


@dataclass
class Case:
    id: str
    argv: list[str]
    needle: str = ""  # text the error line must contain
    prep: Callable[[Path, Path], None] | None = None  # prep(tmp, store_copy)
    env: dict[str, str] = field(default_factory=dict)
    subprocess: bool = False
    rc: int = 2
    stdout_ok: bool = False  # the refusal comes after output (a full disk behind the file)


# ----------------------------------------------------------------- file contents


def _write(text: str | bytes):
    def prep(tmp: Path, _store: Path) -> None:
        p = tmp / "x"
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")

    return prep


def _fifo(tmp: Path, _store: Path) -> None:
    os.mkfifo(tmp / "x")


def _folder(tmp: Path, _store: Path) -> None:
    (tmp / "x").mkdir()


def _file(tmp: Path, _store: Path) -> None:
    (tmp / "x").write_text("not a store\n")


GOOD = "\n".join(ANSWERS) + "\n"
BAD_LISTS: list[tuple[str, object, str]] = [  # (id, prep or path, needle)
    ("digit", _write(GOOD + "sis5y\n"), "x:9:"),
    ("six-letters", _write(GOOD + "cigars\n"), "'cigars' is not a 5-letter word"),
    ("four-letters", _write("abcd\n"), "same length"),  # 4 letters: not the other list's 5
    ("eleven-letters", _write("abcdefghijk\n"), "has 11 letters"),
    ("two-letters", _write("ab\ncd\n"), "has 2 letters"),
    ("mixed-lengths", _write("cigar\nrebuts\n"), "'rebuts' is not a 5-letter word"),
    ("kelvin-sign", _write(GOOD + "awa\u212ae\n"), "x:9:"),  # lower() would make 'awake'
    ("non-ascii", _write(GOOD + "caf\u00e9s\n"), "x:9:"),
    ("nbsp", _write("\u00a0cigar\n"), "x:1:"),
    ("latin1", _write("cigar\ncaf\u00e9s\n".encode("latin-1")), "not UTF-8"),
    ("empty", _write(""), "empty"),
    ("blank-lines", _write("\n \n\t\n"), "empty"),
    ("duplicate", _write(GOOD + "CIGAR\n"), "duplicate"),
    ("nul-byte", _write("cigar\n\0\0\0\0\0\n"), "x:2:"),
    ("long-line", _write("q" * 200_000 + "\n"), "(200000 characters)"),
    ("bom-twice", _write("\ufeff\ufeffcigar\n"), "x:1:"),
    ("fifo", _fifo, "FIFO"),
    ("folder", _folder, "a folder"),
    ("char-device", "/dev/null", "character device"),
    ("missing", "{T}/missing.txt", "missing.txt"),
    ("under-a-file", "{A}/x.txt", "cannot read word list"),
    ("too-big-for-memory", "{BIG}", "would need"),
]


def _list_cases() -> list[Case]:
    out = []
    commands = {
        "table": ["table", "--cache-dir", "{C}"],
        "solve": ["solve", "salet", "--cache-dir", "{C}"],
        "best": ["best", "--cache-dir", "{C}"],
        "run": ["run", "--store", "{T}/new.zarr", "--cache-dir", "{C}", "--quiet"],
        "repair": ["repair", "--store", "{S}"],
    }
    for (name, src, needle), (cmd, base), opt in itertools.product(
            BAD_LISTS, commands.items(), ("--answers", "--guesses")):
        if name == "too-big-for-memory" and (cmd == "repair" or opt == "--guesses"):
            continue  # repair reads lists only to compare checksums; one variant is enough
        path, prep = (src, None) if isinstance(src, str) else ("{X}", src)
        other = "--guesses" if opt == "--answers" else "--answers"
        good = "{G}" if other == "--guesses" else "{A}"
        if name == "too-big-for-memory":
            good = "{BIG}"
        if name == "too-big-for-memory" and cmd == "solve":
            base = ["solve", "aaaaa", "--cache-dir", "{C}"]  # a word of that list
        out.append(Case(f"list-{name}-{cmd}{opt}", [*base, opt, path, other, good], needle,
                        prep))
    return out


# ----------------------------------------------------------------- numbers


def _number_cases() -> list[Case]:
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    cmds = {
        "solve": ["solve", "salet", *lists],
        "best": ["best", *lists],
        "run": ["run", "--store", "{T}/new.zarr", *lists, "--quiet"],
    }
    bad_int = ["-1", HUGE, "-" + HUGE, "abc", "1.5", "", "0x10", "\u0663", "1e3"]
    bad_float = ["-1", "nan", "inf", "-inf", "1e400", "abc", "", "1e99"]
    out = []
    for cmd, base in cmds.items():
        for v in bad_int + ["65"]:
            out.append(Case(f"max-guesses={v[:12]!r}-{cmd}", [*base, "--max-guesses", v],
                            "--max-guesses"))
    for v in ["0", *bad_int]:
        out.append(Case(f"beam={v[:12]!r}", [*cmds["solve"], "--beam", v], "--beam"))
        out.append(Case(f"best-top={v[:12]!r}", [*cmds["best"], "--top", v], "--top"))
        out.append(Case(f"query-top={v[:12]!r}", ["query", "--store", "{S}", "--top", v],
                        "--top"))
        out.append(Case(f"cutoff={v[:12]!r}", [*cmds["run"], "--cutoff", v], "--cutoff"))
    for v in ["0", "1e9", *bad_float]:
        for cmd in ("solve", "best", "run"):
            out.append(Case(f"memo-mb={v!r}-{cmd}", [*cmds[cmd], "--memo-mb", v], "--memo-mb"))
    for opt in ("--grace", "--flush-seconds", "--progress-seconds"):
        for v in bad_float:
            out.append(Case(f"{opt}={v!r}", [*cmds["run"], opt, v], opt))
    for v in bad_float:
        out.append(Case(f"best-grace={v!r}", [*cmds["best"], "--grace", v], "--grace"))
    book = ["book", "build", *lists, "--store", "{T}/new.zarr", "--out", "{T}/b.npz"]
    for v in ["soon", "nan", "-5", "99999999999999999999d", "1:99:99:99", "1:99:00", "1:00:60",
              "5:75", "x" * 100_000, "9" * 5000 + ":00", "1-" + "9" * 5000 + ":00:00",
              "400d", "9000h"]:
        for cmd, base in (("run", cmds["run"]), ("best", cmds["best"]), ("book", book)):
            out.append(Case(f"time-limit={v[:16]!r}-{len(v)}-{cmd}",
                            [*base, "--time-limit", v], "time limit"))
    for v in ["4/4", "-1/2", "1/0", "a/b", "", "9" * 5000 + "/2", "1/" + "9" * 5000]:
        out.append(Case(f"shard={v[:12]!r}-{len(v)}", [*cmds["run"], "--shard", v], "shard"))
    for v in ["", "none", "ALL", "1", "x" * 100_000]:
        out.append(Case(f"split={v[:12]!r}-{len(v)}", [*cmds["run"], "--split", v], "--split"))
    for v in ["", "1", "-2", "1025", "2.5", "auto2", "nan", "x" * 100_000, "9" * 5000]:
        out.append(Case(f"parts={v[:12]!r}-{len(v)}", [*cmds["run"], "--parts", v], "--parts"))
    out.append(Case("parts-without-split", [*cmds["run"], "--parts", "4", "--split", "off"],
                    "needs --split auto or all"))
    out.append(Case("split-all-with-cutoff", [*cmds["run"], "--split", "all", "--cutoff", "30"],
                    "does not go with --cutoff"))
    return out


# ----------------------------------------------------------------- stores


def _chunk(store: Path, name: str) -> Path:
    return next(p for p in (store / name / "c").rglob("*") if p.is_file())


def _rm_chunk(name):
    return lambda tmp, s: _chunk(s, name).unlink()


def _garbage_chunk(name, data=b"\x00garbage" * 7):
    return lambda tmp, s: _chunk(s, name).write_bytes(data)


def _truncate_chunk(name):
    def prep(tmp, s):
        p = _chunk(s, name)
        p.write_bytes(p.read_bytes()[: max(1, p.stat().st_size // 2)])

    return prep


def _edit_json(rel: str, edit):
    def prep(tmp, s):
        import json

        p = s / rel
        doc = json.loads(p.read_text())
        edit(doc)
        p.write_text(json.dumps(doc))

    return prep


def _attrs(**kw):
    def edit(doc):
        for k, v in kw.items():
            if v is _DEL:
                doc["attributes"].pop(k, None)
            else:
                doc["attributes"][k] = v

    return _edit_json("zarr.json", edit)


_DEL = object()


def _status_byte(tmp, s):
    st = S.Store.open(s, read_only=True)
    status = st.status()
    status[0] = 77
    import zarr

    zarr.open_group(str(s), mode="r+")["status"][...] = status


def _fifo_chunk(tmp, s):
    p = _chunk(s, "total")
    p.unlink()
    os.mkfifo(p)


DAMAGE: list[tuple[str, Callable, str]] = [
    ("status-chunk-deleted", _rm_chunk("status"), "chunk status/c/0 is missing"),
    ("words-chunk-deleted", _rm_chunk("words"), "chunk words/c/0/0 is missing"),
    ("total-chunk-garbage", _garbage_chunk("total"), "total"),
    ("second-chunk-truncated", _truncate_chunk("second"), "second"),
    ("answer-ids-deleted", _rm_chunk("answer_ids"), "answer_ids"),
    ("status-out-of-range", _status_byte, "out of range"),
    ("status-array-deleted", lambda t, s: shutil.rmtree(s / "status"), "'status' is missing"),
    ("status-dtype", _edit_json("status/zarr.json", lambda d: d.update(data_type="int16")),
     "status"),
    ("total-shape", _edit_json("total/zarr.json", lambda d: d.update(shape=[3])), "total"),
    ("depth-metadata-garbage", lambda t, s: (s / "depth" / "zarr.json").write_text("{{{"),
     "depth"),
    ("root-json-garbage", lambda t, s: (s / "zarr.json").write_text("{not json"),
     "not valid JSON"),
    ("root-json-empty", lambda t, s: (s / "zarr.json").write_bytes(b""), "not valid JSON"),
    ("root-json-deleted", lambda t, s: (s / "zarr.json").unlink(), "zarr.json is missing"),
    ("attr-mode-deleted", _attrs(mode=_DEL), "mode"),
    ("attr-mode-odd", _attrs(mode="x" * 500), "characters"),
    ("attr-n-guesses", _attrs(n_guesses=5), "disagrees"),
    ("attr-n-answers", _attrs(n_answers=3), "disagrees"),
    ("attr-sha", _attrs(guesses_sha256="0" * 64), "does not match"),
    ("attr-format", _attrs(format="other/9"), "not a wordle-dp result store"),
    ("attr-max-guesses-str", _attrs(max_guesses="6"), "max_guesses"),
    ("attr-cutoff-negative", _attrs(cutoff=-5), "cutoff"),
    ("attr-run-not-mapping", _attrs(run="x" * 100), "'run' is not a mapping; run 'wordle-dp"),
    ("lock-is-folder", lambda t, s: ((s / "writer.lock").unlink(missing_ok=True),
                                     (s / "writer.lock").mkdir()), "writer.lock is a folder"),
    ("fifo-chunk", _fifo_chunk, "FIFO"),
    ("dangling-link-chunk", lambda t, s: (_chunk(s, "depth").unlink(),
                                          (s / "depth" / "c" / "0").symlink_to(t / "gone")),
     "No such file"),
]


def _store_cases() -> list[Case]:
    out = []
    readers = {
        "query": ["query", "--store", "{S}"],
        "query-word": ["query", "--store", "{S}", "salet", "--json"],
        "export": ["export", "--store", "{S}", "--csv", "{T}/out.csv"],
        "run": ["run", "--store", "{S}", "--answers", "{A}", "--guesses", "{G}",
                "--cache-dir", "{C}", "--quiet"],
        "merge-in": ["merge", "--store", "{T}/m.zarr", "{S}"],
        "merge-out": ["merge", "--store", "{S}", "{T}/good.zarr"],
    }
    readers["best"] = ["best", "--store", "{S}", "--answers", "{A}", "--guesses", "{G}",
                       "--cache-dir", "{C}", "--quiet"]
    for (name, prep, needle), (cmd, argv) in itertools.product(DAMAGE, readers.items()):
        out.append(Case(f"damaged-{name}-{cmd}", argv, needle, prep))
    repairable = {"root-json-garbage", "root-json-empty", "root-json-deleted",
                  "attr-mode-deleted", "attr-mode-odd", "attr-format",
                  "attr-max-guesses-str", "attr-cutoff-negative"}
    for name, prep, needle in DAMAGE:  # repair refuses what it cannot repair
        if name in repairable:
            out.append(Case(f"repair-refuses-{name}", ["repair", "--store", "{S}"], needle,
                            prep))
    paths = {
        "regular-file": ("{X}", _file, "is a file"),
        "dev-null": ("/dev/null", None, "character device"),
        "under-a-file": ("{X}/s.zarr", _file, "cannot create result store"),
        "uncreatable": ("/proc/wordle-dp-no/s.zarr", None, "cannot create result store"),
        "fifo": ("{X}", _fifo, "FIFO"),
        "non-store-folder": ("{T}", lambda t, s: (t / "junk").write_text("x"),
                             "not a wordle-dp result store"),
    }
    users = {
        "run": ["run", "--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}",
                "--quiet", "--store"],
        "best": ["best", "--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}",
                 "--quiet", "--store"],
        "merge-out": ["merge", "{T}/good.zarr", "--store"],
        "query": ["query", "--store"],
        "export": ["export", "--csv", "{T}/out.csv", "--store"],
        "merge-in": ["merge", "--store", "{T}/m.zarr", "{T}/good.zarr"],
        "repair": ["repair", "--store"],
    }
    for (name, (path, prep, needle)), (cmd, argv) in itertools.product(paths.items(),
                                                                       users.items()):
        if cmd in ("query", "export", "merge-in", "repair") and name in (
                "under-a-file", "uncreatable"):
            needle = "no result store"
        out.append(Case(f"store-path-{name}-{cmd}", [*argv, path], needle, prep))
    # export targets
    ex = ["export", "--store", "{S}", "--csv"]
    out += [
        Case("export-into-store-metadata", [*ex, "{S}/zarr.json"], "inside the store"),
        Case("export-no-output", ["export", "--store", "{S}"], "export needs --csv"),
        Case("export-parquet-suffix", ["export", "--store", "{S}", "--parquet", "{T}/t.csv"],
             "*.parquet"),
        Case("export-parquet-stdout", ["export", "--store", "{S}", "--parquet", "-"],
             "Parquet is binary"),
        Case("export-parquet-into-store", ["export", "--store", "{S}", "--parquet",
                                           "{S}/t.parquet"], "inside the store"),
        Case("export-parquet-folder", ["export", "--store", "{S}", "--parquet", "{T}"],
             "*.parquet"),
        Case("export-into-store-folder", [*ex, "{S}/status/x.csv"], "inside the store"),
        Case("export-dev-full", [*ex, "/dev/full"], "No space left"),
        Case("export-folder", [*ex, "{T}"], "folder"),
        Case("export-fifo-nobody-reads", [*ex, "{X}"], "no process is reading", _fifo),
        Case("export-under-a-file", [*ex, "{X}/out.csv"], "cannot write", _file),
        Case("export-missing-folder", [*ex, "{T}/no/out.csv"], "cannot write"),
    ]
    return out


# ----------------------------------------------------------------- words, options, env


def _misc_cases() -> list[Case]:
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    run = ["run", "--store", "{T}/new.zarr", *lists, "--quiet"]
    out = []
    for v, needle in [(",", "names no opener"), (",,,", "names no opener"),
                      (" , ", "names no opener"), ("salet,,crane", "empty item"),
                      ("", "names no opener"), ("@", "file name is missing"),
                      ("@missing", "missing"), ("./missing", "missing"),
                      ("missing.txt", "missing.txt"), ("zzzzz", "zzzzz"),
                      ("awa\u212ae", "not in the guess list"),
                      ("q" * 100_000, "(100000 characters)"),
                      ("@{X}", "FIFO")]:
        out.append(Case(f"openers={v[:16]!r}", [*run, "--openers", v], needle,
                        _fifo if "{X}" in v else None))
    for w, needle in [("zzzzz", "zzzzz"), ("AWA\u212aE", "not in the guess list"),
                      ("x" * 100_000, "(100000 characters)"), ("", "not in the guess list"),
                      ("sal\u0435t", "not in the guess list")]:
        out.append(Case(f"solve-word-{w[:8]!r}", ["solve", w, *lists], needle))
        needle = needle.replace("the guess list", "the store's guess list")
        out.append(Case(f"query-word-{w[:8]!r}", ["query", "--store", "{S}", w], needle))
    for v in ["0", "-1", "abc", "", "1.5", " "]:
        out.append(Case(f"numba-threads={v!r}", ["table", *lists], "NUMBA_NUM_THREADS",
                        env={"NUMBA_NUM_THREADS": v}))
    for v in ["JIT", "compiled", "0", "auto jit"]:
        out.append(Case(f"kernels={v!r}", ["solve", "salet", *lists], "WORDLE_DP_KERNELS",
                        env={"WORDLE_DP_KERNELS": v}))
    out += [
        Case("no-such-command", ["frobnicate"], "invalid choice"),
        Case("unknown-option", ["solve", "salet", "--frob"], "unrecognized"),
        Case("mode", ["solve", "salet", "--mode", "nightmare"], "--mode"),
        Case("backend", ["table", "--backend", "tpu"], "--backend"),
        Case("solve-no-word", ["solve"], "WORD"),
        Case("run-no-store", ["run"], "--store"),
        Case("export-no-csv", ["export", "--store", "{S}"], "--csv"),
        Case("merge-no-input", ["merge", "--store", "{S}"], "INPUT"),
        Case("query-csv-and-json", ["query", "--store", "{S}", "--csv", "--json"],
             "not allowed"),
        Case("empty-answers-path", ["table", "--answers", ""], "empty path"),
        Case("empty-cache-dir", ["solve", "salet", *lists[:4], "--cache-dir", " "], "empty path"),
        Case("empty-store-path", ["query", "--store", ""], "empty path"),
        Case("empty-csv-path", ["export", "--store", "{S}", "--csv", ""], "empty path"),
        Case("empty-merge-input", ["merge", "--store", "{T}/m.zarr", ""], "empty path"),
        *[Case(f"name-too-long-{cmd}", [*argv, "{T}/" + "n" * 300], "too long")
          for cmd, argv in (("run", ["run", *lists, "--quiet", "--store"]),
                            ("merge", ["merge", "{S}", "--store"]),
                            ("query", ["query", "--store"]),
                            ("export", ["export", "--store", "{S}", "--csv"]),
                            ("answers", ["table", "--guesses", "{G}", "--answers"]))],
        Case("store-is-filesystem-root-query", ["query", "--store", "/"],
             "not a wordle-dp result store"),
        Case("store-is-filesystem-root-repair", ["repair", "--store", "/"],
             "not a wordle-dp result store"),
        Case("repair-store-checked-before-list-notes",
             ["repair", "--guesses", "{A}", "--store", "/dev/null"], "character device"),
        Case("nul-in-path", ["table", "--answers", "a\0b"], "NUL"),
        Case("long-option-value", ["solve", "salet", "--mode", "z" * 100_000], "characters"),
    ]
    if not gpu_available():  # an explicit backend must work even with the table cached
        for cmd in (["table"], ["solve", "salet"], ["best"]):
            out.append(Case(f"cupy-without-gpu-cached-{cmd[0]}",
                            [*cmd, *lists, "--backend", "cupy"], "cupy"))
    return out


def _game_number_cases() -> list[Case]:
    """Numeric options of the game commands (next, score, simulate, compare, play)."""
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    cmds = {
        "next-top": ["next", "-", "--top"],
        "score-top": ["score", "--top"],
        "simulate-seed": ["simulate", "--strategy", "random", "--seed"],
        "compare-seed": ["compare", "--seed"],
        "play-seed": ["play", "--random", "--seed"],
    }
    out = []
    for (name, argv), v in itertools.product(cmds.items(), ["-1", HUGE, "x", "1.5", ""]):
        if v == "-1" and name == "score-top":
            v = "0"  # next --top 0 is valid: the best guess alone
        opt = argv[-1]
        out.append(Case(f"{name}={v[:8]!r}", [*argv, v, *lists], opt))
    return out


def _subprocess_cases() -> list[Case]:
    """Only what needs a fresh interpreter: numba's import, real blocking reads."""
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    return [
        Case("proc-numba-threads-0", ["solve", "salet", *lists], "NUMBA_NUM_THREADS",
             env={"NUMBA_NUM_THREADS": "0"}, subprocess=True),
        Case("proc-numba-threads-abc", ["run", "--store", "{T}/s.zarr", *lists],
             "NUMBA_NUM_THREADS", env={"NUMBA_NUM_THREADS": "abc"}, subprocess=True),
        Case("proc-fifo-answers", ["solve", "salet", "--answers", "{X}"], "FIFO", _fifo,
             subprocess=True),
        Case("proc-50mb-line", ["table", "--answers", "{X}", "--no-cache"],
             "(50000000 characters)", _write("z" * 50_000_000), subprocess=True),
        Case("proc-damaged-store", ["query", "--store", "{S}"], "is missing",
             _rm_chunk("status"), subprocess=True),
    ]


def _cache_entry(make):
    """prep: put `make(path)` where the table of the small lists is cached ({T}/cache)."""
    def prep(tmp: Path, _store: Path) -> None:
        from solver.table import cache_path

        path = cache_path(WordLists.from_words(ANSWERS, EXTRA + ANSWERS), tmp / "cache")
        path.parent.mkdir(parents=True, exist_ok=True)
        make(path)

    return prep


def _tolerated_cases() -> list[Case]:
    """Odd caches are not errors: the table is rebuilt (exit 0, a note, no hang)."""
    t = ["table", "--answers", "{A}", "--guesses", "{G}", "--cache-dir"]
    rebuilt = "failed verification; table rebuilt"
    return [
        Case("cache-fifo-as-table", [*t, "{T}/cache"], rebuilt, _cache_entry(os.mkfifo), rc=0),
        Case("cache-folder-as-table", [*t, "{T}/cache"], "could not write cache",
             _cache_entry(lambda p: p.mkdir()), rc=0),
        Case("cache-garbage-table", [*t, "{T}/cache"], rebuilt,
             _cache_entry(lambda p: p.write_bytes(b"WDPTABLE1\n" + b"\xff" * 500)), rc=0),
        Case("cache-empty-table", [*t, "{T}/cache"], rebuilt,
             _cache_entry(lambda p: p.write_bytes(b"")), rc=0),
        Case("cache-dir-is-file", [*t, "{X}"], "could not write cache", _file, rc=0),
        Case("cache-dir-under-dev-null", [*t, "/dev/null/cache"], "could not write cache",
             rc=0),
        Case("cache-dir-name-too-long", [*t, "{T}/" + "n" * 300], "could not write cache",
             rc=0),
        Case("cache-fifo-subprocess", [*t, "{T}/cache"], rebuilt, _cache_entry(os.mkfifo),
             subprocess=True, rc=0),
    ]


# ----------------------------------------------------------------- game and web commands


def _pat(guess: str, answer: str) -> str:
    return to_text(score(guess, answer), 5)


KELVIN = "awa\u212ae"  # lower() makes it 'awake', an answer
CYRILLIC = "sal\u0435t"  # Cyrillic e
FULLWIDTH = "\uff53\uff41\uff4c\uff45\uff54"  # 'salet' in full-width letters
B1 = f"salet:{_pat('salet', 'blush')}"  # a consistent first step (S and L revealed)
BAD_POSITIONS: list[tuple[str, str, list[str]]] = [  # (id, position, needle, extra args)
    ("no-pattern", "salet", "GUESS:PATTERN", []),
    ("no-word", ":BBBBB", "GUESS:PATTERN", []),
    ("empty-pattern", "salet:", "GUESS:PATTERN", []),
    ("four-marks", "salet:BBBB", "5 marks", []),
    ("six-marks", "salet:BBBBBB", "5 marks", []),
    ("double-colon", "salet::BBBBB", "5 marks", []),
    ("bad-mark", "salet:BBZBB", "not a mark", []),
    ("semicolon", "salet:BBBBB;crane:BBBBB", "5 marks", []),
    ("fullwidth-mark", "salet:\uff27GGGG", "not a mark", []),
    ("arabic-digits", "salet:\u0660\u0660\u0660\u0660\u0660", "not a mark", []),
    ("only-commas", ",,,", "has no step", []),
    ("unknown-word", "zzzzz:BBBBB", "not in the guess list", []),
    ("kelvin-sign", f"{KELVIN}:GGGGG", "KELVIN SIGN", []),
    ("cyrillic-e", f"{CYRILLIC}:BBBBB", "not in the guess list", []),
    ("fullwidth-word", f"{FULLWIDTH}:BBBBB", "not in the guess list", []),
    # no word at all fits (salet:GGGGG would be the answer salet, outside the answers:
    # next and play go on with every allowed guess as a possible answer)
    ("inconsistent", "salet:GGGGY", "no answer in the list fits", []),
    ("inconsistent-second", f"{B1},salet:BBBBB", "no answer in the list fits", []),
    ("after-solved", f"cigar:GGGGG,rebut:{_pat('rebut', 'cigar')}", "already solved", []),
    ("hard-illegal", f"{B1},crane:BBBBB", "not allowed in hard mode", ["--mode", "hard"]),
    ("strict-illegal", f"{B1},crane:{_pat('crane', 'blush')}", "not allowed in strict mode",
     ["--mode", "strict"]),
    ("seven-of-six", ",".join([B1] * 7), "more than the cap of 6", []),
    ("cap-used", B1, "all 1 guesses are used", ["--max-guesses", "1"]),
    ("uncapped-too-deep", ",".join(["salet:BBBBB"] * 30), "at most 29", ["--max-guesses", "0"]),
    ("huge", ",".join(["salet:BBBBB"] * 50_000), "more than the cap", []),
    ("huge-step", "q" * 100_000 + ":BBBBB", "(100000 characters)", []),
    ("huge-pattern", "salet:" + "B" * 100_000, "(100000 characters)", []),
]
BAD_WORDS = [("unknown", "zzzzz", "zzzzz"), ("empty", "", "not in the guess list"),
             ("kelvin", KELVIN, "KELVIN SIGN"), ("cyrillic", CYRILLIC, "guess list"),
             ("huge", "x" * 100_000, "(100000 characters)"), ("six", "salets", "guess list")]
BAD_STRATEGIES = [("unknown", "bogus", "unknown strategy"), ("empty", "", "at least one"),
                  ("commas", ",,", "at least one"), ("one-bad", "entropy,bogus", "'bogus'"),
                  ("double-suffix", "entropy-cand-cand", "unknown strategy"),
                  ("huge", "s" * 100_000, "(100000 characters)"),
                  ("case", "Entropy", "unknown strategy")]
BAD_INTS = ["-1", HUGE, "abc", "1.5", "", "0x10", "\u0663", "1e3"]


def _out_targets(option: str, suffix: str) -> list[tuple[str, str, object, str]]:
    """(id, value, prep, needle) of output paths that must be refused."""
    f = "f" + suffix
    return [
        ("in-store-metadata", "{S}/zarr.json" if suffix != ".png" else "{S}/x.png",
         None, "inside the result store"),
        ("in-store-array", "{S}/status/" + f, None, "inside the result store"),
        ("in-other-store", "{T}/good.zarr/total/" + f, None, "inside the result store"),
        ("folder", "{T}/d" + suffix, lambda t, s: (t / ("d" + suffix)).mkdir(), "a folder"),
        ("missing-folder", "{T}/no/" + f, None, "No such file"),
        ("under-a-file", "{X}/" + f, _file, "Not a directory"),
        ("empty", "", None, "empty path"),
        ("name-too-long", "{T}/" + "n" * 300 + suffix, None, "too long"),
        ("dev-full-link", "{T}/full" + suffix,
         lambda t, s: (t / ("full" + suffix)).symlink_to("/dev/full"), "No space left"),
        ("fifo-nobody-reads", "{T}/p" + suffix, lambda t, s: os.mkfifo(t / ("p" + suffix)),
         "no process is reading"),
        *([("unwritable-folder", "{T}/ro/" + f, _read_only_folder, "not writable")]
          if os.geteuid() != 0 else []),  # root writes anywhere
    ]


def _read_only_folder(tmp: Path, _store: Path) -> None:
    (tmp / "ro").mkdir()
    (tmp / "ro").chmod(0o555)


def _game_cases() -> list[Case]:
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    cmds = {  # command line with the position given last
        "next": ["next", *lists],
        "tree": ["tree", "rebut", *lists, "--position"],
        "simulate": ["simulate", "--strategy", "entropy", *lists, "--position"],
        "score": ["score", *lists, "--position"],
    }
    out = []
    for (name, pos, needle, extra), (cmd, argv) in itertools.product(BAD_POSITIONS,
                                                                      cmds.items()):
        out.append(Case(f"position-{name}-{cmd}", [*argv, pos, *extra], needle))
    words = {
        "tree": ["tree", "{W}", *lists],
        "simulate-opener": ["simulate", "--strategy", "entropy", *lists, "--opener", "{W}"],
        "compare-openers": ["compare", "--strategies", "entropy", *lists, "--openers", "{W}"],
        "play-opener": ["play", "--answer", "cigar", *lists, "--opener", "{W}"],
    }
    for (name, w, needle), (cmd, argv) in itertools.product(BAD_WORDS, words.items()):
        out.append(Case(f"word-{name}-{cmd}", [a.replace("{W}", w) for a in argv], needle))
    for name, w, needle in [*BAD_WORDS, ("guess-not-answer", "salet", "answer list")]:
        out.append(Case(f"play-answer-{name}", ["play", *lists, "--answer", w],
                        "answer list" if "list" in needle or name == "kelvin" else needle))
    out += [
        Case("play-answer-and-random", ["play", *lists, "--answer", "cigar", "--random"],
             "not allowed"),
        Case("play-no-input", ["play", *lists], "input ended", stdout_ok=True),  # the prompt
        Case("tree-position-solved", ["tree", "rebut", *lists, "--position", "cigar:GGGGG"],
             "already solved"),
        Case("tree-hard-illegal-opener",
             ["tree", "crane", *lists, "--mode", "hard", "--position", B1], "hard mode"),
        Case("tree-format", ["tree", "rebut", *lists, "--format", "yaml"], "--format"),
        Case("tree-no-opener", ["tree", *lists], "OPENER"),
        Case("next-no-position", ["next", *lists], "POSITION"),
        Case("simulate-solved", ["simulate", *lists, "--position", "cigar:GGGGG"],
             "already solved"),
        Case("simulate-hard-illegal-opener",
             ["simulate", *lists, "--mode", "hard", "--position", B1, "--opener", "crane"],
             "hard mode"),
        Case("score-sort", ["score", *lists, "--sort", "best"], "--sort"),
        Case("score-solved", ["score", *lists, "--position", "cigar:GGGGG"], "already solved"),
        Case("compare-no-opener", ["compare", *lists, "--openers"], "expected at least one"),
        Case("next-store-missing", ["next", "-", *lists, "--store", "{T}/none.zarr"],
             "no result store"),
        Case("next-store-is-file", ["next", "-", *lists, "--store", "{X}"], "is a file", _file),
        Case("next-store-empty-path", ["next", "-", *lists, "--store", ""], "empty path"),
        Case("play-store-other-cap", ["play", "--answer", "cigar", *lists, "--store", "{S}",
                                      "--max-guesses", "3"], "another problem"),
        Case("play-store-other-mode", ["play", *lists, "--store", "{S}", "--mode", "hard"],
             "another problem"),
        Case("play-store-damaged", ["play", "--answer", "cigar", *lists, "--store", "{S}"],
             "is missing", _rm_chunk("status")),
        Case("simulate-store-damaged", ["simulate", *lists, "--store", "{S}"], "is missing",
             _rm_chunk("status")),
    ]
    for name, v, needle in BAD_STRATEGIES:
        out.append(Case(f"strategy-{name}-simulate", ["simulate", *lists, "--strategy", v],
                        needle))
        out.append(Case(f"strategy-{name}-compare",
                        ["compare", *lists, "--openers", "salet", "--strategies", v], needle))
    numbers = {
        "next --top": ["next", "-", *lists, "--top"],
        "score --top": ["score", *lists, "--top"],
        "play --seed": ["play", "--random", *lists, "--seed"],
        "simulate --seed": ["simulate", "--strategy", "random", *lists, "--seed"],
        "compare --seed": ["compare", "--strategies", "random", *lists, "--seed"],
    }
    for (label, argv), v in itertools.product(numbers.items(), BAD_INTS):
        out.append(Case(f"{label.replace(' ', '')}={v[:12]!r}", [*argv, v], label.split()[1]))
    out.append(Case("score--top='0'", [*numbers["score --top"], "0"], "--top"))
    for cmd in ("play", "simulate", "compare"):
        out.append(Case(f"{cmd}--seed=2**63", [*numbers[f"{cmd} --seed"], str(2**63)],
                        "--seed"))
    for cmd, v in itertools.product(("next", "tree", "play", "simulate", "score", "compare"),
                                    ["65", "-1", HUGE, "x"]):
        base = {"next": ["next", "-"], "tree": ["tree", "rebut"]}.get(cmd, [cmd])
        out.append(Case(f"{cmd}-max-guesses={v[:12]!r}", [*base, *lists, "--max-guesses", v],
                        "--max-guesses"))
    for cmd, v in itertools.product(("next", "simulate"), ["0", "nan", "inf", "1e9"]):
        base = ["next", "-"] if cmd == "next" else [cmd]
        out.append(Case(f"{cmd}-memo-mb={v!r}", [*base, *lists, "--memo-mb", v], "--memo-mb"))
    outputs = {
        "tree --out": (["tree", "rebut", *lists, "--out"], ""),
        "simulate --csv": (["simulate", "--strategy", "entropy", *lists, "--csv"], ".csv"),
        "score --csv": (["score", *lists, "--csv"], ".csv"),
        "simulate --plot": (["simulate", "--strategy", "entropy", *lists, "--plot"], ".png"),
        "compare --plot": (["compare", "--openers", "salet", "--strategies", "entropy",
                            *lists, "--plot"], ".png"),
        "query --plot": (["query", "--store", "{S}", "--plot"], ".png"),
    }
    for label, (argv, suffix) in outputs.items():
        for name, value, prep, needle in _out_targets(label.split()[1], suffix or ".txt"):
            # a device or FIFO is written in place, after the summary is printed
            late = name in ("dev-full-link", "fifo-nobody-reads") and label.split()[0] in (
                "simulate", "query", "compare")
            out.append(Case(f"out-{name}-{label.replace(' ', '')}", [*argv, value], needle,
                            prep, stdout_ok=late))
    for label in ("simulate --plot", "compare --plot", "query --plot"):
        argv = outputs[label][0]
        for v in ("{T}/plot.jpg", "-", "{T}/plot"):
            out.append(Case(f"plot-suffix-{v[-4:]}-{label.split()[0]}", [*argv, v], "*.png"))
    return out


def _serve_cases() -> list[Case]:
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    serve = ["serve", *lists]
    out = []
    for v in [*BAD_INTS, "65536", "-0x1"]:
        out.append(Case(f"serve-port={v[:12]!r}", [*serve, "--port", v], "--port"))
    for v in ["21", "65", "-1", HUGE]:
        out.append(Case(f"serve-max-guesses={v[:12]!r}", [*serve, "--port", "0",
                                                          "--max-guesses", v], "--max-guesses"))
    for v in ["", " ", "a b", "h\u00f6st", "x" * 300]:
        out.append(Case(f"serve-host={v[:8]!r}-{len(v)}", [*serve, "--host", v], "--host"))
    for v, needle in [("a" * 70 + ".com", "cannot listen"),
                      ("nosuchhost.invalid", "cannot listen"),
                      ("192.0.2.1", "cannot listen"),  # TEST-NET: not this machine's
                      ("999.1.1.1", "cannot listen")]:
        out.append(Case(f"serve-listen-{v[:12]}", [*serve, "--port", "0", "--host", v],
                        needle))
    out += [
        Case("serve-busy-port", [*serve, "--port", "{BUSY}"], "cannot listen"),
        Case("serve-store-missing", [*serve, "--port", "0", "--store", "{T}/none.zarr"],
             "no result store"),
        Case("serve-store-damaged", [*serve, "--port", "0", "--store", "{S}"], "is missing",
             _rm_chunk("status")),
        Case("serve-store-empty", [*serve, "--port", "0", "--store", ""], "empty path"),
        Case("serve-bad-list", ["serve", "--port", "0", "--answers", "{X}", "--guesses",
                                "{G}"], "x:1:", _write("abc1\n")),
        Case("serve-memo", [*serve, "--port", "0", "--memo-mb", "nan"], "--memo-mb"),
        Case("serve-mode", [*serve, "--port", "0", "--mode", "x"], "--mode"),
    ]
    for v in [*BAD_INTS, "0", "257"]:
        out.append(Case(f"serve-workers={v[:12]!r}", [*serve, "--port", "0", "--workers", v],
                        "--workers"))
    for v in ["0", "-1", "nan", "inf", "3601", "1e400", "ten", "", "1s"]:
        out.append(Case(f"serve-request-seconds={v!r}",
                        [*serve, "--port", "0", "--request-seconds", v], "--request-seconds"))
    return out


def _book_cases() -> list[Case]:
    """The opening book: book build/show, query --book, --book on the game commands,
    and run --no-cutoff."""
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    build = ["book", "build", *lists, "--store", "{T}/new.zarr", "--out", "{T}/b.npz",
             "--quiet"]
    out = [Case("book-no-action", ["book"], "build, show, moves, wins or table"),
           Case("lists-extra-word", ["lists", "x"], "unrecognized"),
           Case("lists-unknown", ["solve", "salet", "--lists", "doddle-9"], "no built-in lists"),
           Case("length-unknown", ["solve", "salet", "--length", "9"], "no built-in lists"),
           Case("length-and-lists", ["solve", "salet", "--length", "4", "--lists",
                                     "doddle-6"], "not 4"),
           Case("length-and-files", ["solve", "salet", "--length", "4", *lists[:4]],
                "not both")]
    for v in ["2", "11", "x", "", HUGE]:
        out.append(Case(f"length={v[:12]!r}", ["solve", "salet", "--length", v], "--length"))
    for v in ["0", "-1", HUGE, "x", "1001", ""]:
        out.append(Case(f"book-top={v[:12]!r}", [*build, "--top", v], "--top"))
    for v in ["-1", HUGE, "x", ""]:
        out.append(Case(f"book-popular={v[:12]!r}", [*build, "--popular", v], "--popular"))
    moves = ["book", "moves", *lists, "--out", "{T}/m.npz", "--openers", "cigar", "--quiet"]
    for v in ["0", "-1", "65", HUGE, "x", ""]:
        out.append(Case(f"moves-alternatives={v[:12]!r}", [*moves, "--alternatives", v],
                        "--alternatives"))
    for v in ["", "x", "-1"]:
        out.append(Case(f"moves-time-limit={v[:12]!r}", [*moves, "--time-limit", v],
                        "time limit" if v else "time"))
    out.append(Case("moves-mode", [*moves, "--mode", "x"], "--mode"))
    for v in ["0", "-5", HUGE, "x"]:
        out.append(Case(f"book-cutoff={v[:12]!r}", [*build, "--cutoff", v], "--cutoff"))
    for v in ["", "x", "-1", "99999999999999999h"]:
        out.append(Case(f"book-time-limit={v[:12]!r}", [*build, "--time-limit", v],
                        "time limit" if v else "time"))
    out += [
        Case("book-build-other-lists-without-out",
             ["book", "build", *lists, "--store", "{T}/new.zarr", "--quiet"], "--out"),
        Case("book-build-out-not-npz", [*build[:-3], "--out", "{T}/b.txt", "--quiet"],
             ".npz"),
        Case("book-build-out-in-store", [*build[:-3], "--out", "{S}/b.npz", "--quiet"],
             "inside the result store"),
        Case("book-build-store-is-a-file", ["book", "build", *lists, "--store", "{X}",
                                            "--out", "{T}/b.npz"], "not a result store",
             _file),
        Case("book-build-mode", [*build, "--mode", "x"], "--mode"),
        Case("book-build-no-players-value", [*build, "--no-players=yes"], "--no-players"),
        Case("book-show-missing", ["book", "show", *lists, "--book", "{T}/none.npz"],
             "no opening book"),
        Case("book-show-garbage", ["book", "show", *lists, "--book", "{X}"],
             "not a readable opening book", _write("not a book\n")),
        Case("book-show-none-packaged", ["book", "show", *lists], "no opening book"),
        Case("query-book-and-store", ["query", "--store", "{S}", "--book", "{X}"],
             "not allowed with"),
        Case("query-book-missing", ["query", "--book", "{T}/none.npz", *lists[:4]],
             "no opening book"),
        Case("query-book-none-packaged", ["query", "--book", *lists[:4]],
             "no packaged opening book"),
        Case("query-no-source", ["query", "--top", "3"], "--store"),
        Case("next-book-missing", ["next", "-", *lists, "--book", "{T}/none.npz"],
             "no opening book"),
        Case("next-book-garbage", ["next", "-", *lists, "--book", "{X}"],
             "not a readable opening book", _write("x" * 100)),
        Case("tree-book-empty", ["tree", "cigar", *lists, "--book", ""], "empty path"),
        Case("solve-book-missing", ["solve", "cigar", *lists, "--book", "{T}/none.npz"],
             "no opening book"),
        Case("solve-book-garbage", ["solve", "cigar", *lists, "--book", "{X}"],
             "not a readable opening book", _write("x" * 100)),
        Case("solve-book-worst", ["solve", "cigar", *lists, "--book", "{X}", "--objective",
                                  "worst"], "expected objective", _write("x")),
        Case("solve-book-beam", ["solve", "cigar", *lists, "--book", "{X}", "--beam", "3"],
             "expected objective", _write("x")),
        Case("solve-no-book-value", ["solve", "cigar", *lists, "--no-book=1"], "--no-book"),
        Case("moves-no-book", ["book", "moves", *lists, "--quiet"], "no opening book"),
        Case("moves-no-book-openers", ["book", "moves", *lists, "--out", "{T}/m.npz",
                                       "--quiet"], "--openers"),
        Case("moves-unknown-opener", ["book", "moves", *lists, "--out", "{T}/m.npz",
                                      "--openers", "zzzzz"], "not in the guess list"),
        Case("moves-empty-openers", ["book", "moves", *lists, "--out", "{T}/m.npz",
                                     "--openers", ","], "at least one word"),
        Case("moves-out-not-npz", ["book", "moves", *lists, "--out", "{T}/m.txt",
                                   "--openers", "cigar"], ".npz"),
        Case("moves-garbage-out", ["book", "moves", *lists, "--out", "{T}/g.npz",
                                   "--openers", "cigar"], "not a readable moves file",
             lambda tmp, _s: (tmp / "g.npz").write_text("x" * 100)),
        Case("moves-book-garbage", ["book", "moves", *lists, "--book", "{X}"],
             "not a readable opening book", _write("x" * 100)),
        Case("run-cutoff-and-no-cutoff", ["run", "--store", "{T}/new.zarr", *lists,
                                          "--cutoff", "30", "--no-cutoff"], "exclude"),
    ]
    table = ["book", "table", *lists[:4], "--out", "{T}/t.table.npz"]
    out += [
        Case("table-store-missing", [*table, "--store", "{T}/none.zarr"], "no result store"),
        Case("table-store-empty", [*table, "--store", ""], "empty path"),
        Case("table-store-a-file", [*table, "--store", "{X}"], "not a result store",
             _write("x\n")),
        Case("table-store-other-mode", [*table, "--store", "{S}", "--mode", "strict"],
             "another problem"),
        Case("table-out-not-npz", [*table[:-2], "--store", "{S}", "--out", "{T}/t.txt"],
             ".npz"),
        Case("table-other-lists-without-out", [*table[:-2], "--store", "{S}"], "--out"),
        Case("table-mode", [*table, "--store", "{S}", "--mode", "x"], "--mode"),
        Case("export-book-missing", ["export", "--book", "{T}/none.npz", *lists[:4], "--csv",
                                     "{T}/o.csv"], "no opening book"),
        Case("export-book-and-store", ["export", "--book", "{X}", "--store", "{S}", "--csv",
                                       "{T}/o.csv"], "not allowed with"),
        Case("export-book-garbage", ["export", "--book", "{X}", *lists[:4], "--csv",
                                     "{T}/o.csv"], "not a readable opening book",
             _write("x" * 100)),
        Case("table-max-guesses", [*table, "--store", "{S}", "--max-guesses", "x"],
             "--max-guesses"),
    ]
    return out


def _variant_cases() -> list[Case]:
    """Issue 18: several boards (--boards), the adversary and --objective worst."""
    lists = ["--answers", "{A}", "--guesses", "{G}", "--cache-dir", "{C}"]
    cmds = {
        "solve": ["solve", "salet", *lists],
        "next": ["next", "-", *lists],
        "play": ["play", "--answer", "cigar,rebut", *lists],
        "simulate": ["simulate", *lists],
        "compare": ["compare", *lists],
    }
    out = []
    for v in [*BAD_INTS, "0", "33"]:
        for cmd, argv in cmds.items():
            out.append(Case(f"boards={v[:12]!r}-{cmd}", [*argv, "--boards", v], "--boards"))
    for v in BAD_INTS:
        out.append(Case(f"games={v[:12]!r}", [*cmds["simulate"], "--boards", "2", "--games",
                                               v], "--games"))
    two = [*lists, "--boards", "2"]
    out += [
        Case("boards-hard-solve", ["solve", "salet", *two, "--mode", "hard"], "easy mode"),
        Case("boards-strict-next", ["next", "-", *two, "--mode", "strict"], "easy mode"),
        Case("boards-worst", ["solve", "salet", *two, "--objective", "worst"], "not offered"),
        Case("boards-adversary", ["next", "-", *two, "--adversary"], "plays one board"),
        Case("boards-beam", ["solve", "salet", *two, "--beam", "3"], "--beam"),
        Case("boards-too-many", ["solve", "salet", *lists, "--boards", "9"],
             "need 9 distinct answers"),
        Case("boards-store", ["next", "-", *two, "--store", "{S}"], "no --store"),
        Case("boards-opener", ["solve", "zzzzz", *two], "not in the guess list"),
        Case("boards-position-count", ["next", "salet:BBBBB/BBBBB/BBBBB", *two],
             "3 feedback(s) for 2 boards"),
        Case("boards-position-pattern", ["next", "salet:BBBBB/BBQBB", *lists], "board 2"),
        Case("boards-position-both-solved", ["next", "cigar:GGGGG/GGGGG", *lists],
             "cannot both be solved"),
        Case("boards-position-solved-needs-dash",
             ["next", "cigar:GGGGG/BBBBB,salet:BBBBB/BBBBB", *lists], "give '-'"),
        Case("boards-position-no-fit", ["next", "salet:GGGGY/BBBBB", *lists],
             "no answer fits"),
        Case("boards-position-huge", ["next", "salet:" + "BBBBB/" * 40 + "BBBBB", *lists],
             "several boards are 2 to 32"),
        Case("boards-position-cap", ["next", "salet:BBBBB/BYBBB", *two, "--max-guesses",
                                     "1"], "all 1 guesses are used"),  # humph, cigar
        Case("boards-answer-count", ["play", "--answer", "cigar", *two], "1 word(s)"),
        Case("boards-answer-same", ["play", "--answer", "cigar,cigar", *two], "must all differ"),
        Case("boards-answer-unknown", ["play", "--answer", "cigar,zzzzz", *two],
             "not in the answer list"),
        Case("boards-play-opener", ["play", "--answer", "cigar,rebut", *two, "--opener",
                                    "zzzzz"], "not in the guess list"),
        Case("boards-strategy", ["simulate", *two, "--strategy", "bogus"], "unknown strategy"),
        Case("boards-strategy-empty", ["simulate", *two, "--strategy", ","], "at least one"),
        Case("boards-strategy-blank", ["simulate", *two, "--strategy", ""], "at least one"),
        Case("boards-simulate-position", ["simulate", *two, "--position", "salet:BBBBB"],
             "--position is not offered"),
        Case("boards-simulate-opener", ["simulate", *two, "--opener", "zzzzz"],
             "not in the guess list"),
        Case("boards-compare-plot", ["compare", *two, "--plot", "{T}/x.png"], "--plot"),
        Case("boards-next-strategy", ["next", "-", *two, "--strategy", "bogus"], "--strategy"),
        Case("games-one-board", ["simulate", *lists, "--games", "5"], "applies to --boards"),
        Case("strategy-one-board", ["next", "-", *lists, "--strategy", "entropy"],
             "applies to --boards"),
        Case("adversary-hard", ["solve", "salet", *lists, "--adversary", "--mode", "hard"],
             "easy mode only"),
        Case("adversary-position", ["next", "salet:Q", *lists, "--adversary"], "salet"),
        Case("adversary-answer", ["play", *lists, "--adversary", "--answer", "cigar"],
             "no hidden answer"),
        Case("worst-beam", ["solve", "salet", *lists, "--objective", "worst", "--beam", "2"],
             "exclude each other"),
        Case("objective-bogus", ["solve", "salet", *lists, "--objective", "best"],
             "--objective"),
        # issue 49: the objective wins, where it is not offered, and its book action
        Case("wins-beam", ["solve", "salet", *lists, "--objective", "wins", "--beam", "2"],
             "exclude each other"),
        Case("wins-run-cutoff", ["run", "--store", "{T}/new.zarr", *lists, "--objective",
                                 "wins", "--cutoff", "50"], "takes no cutoff"),
        Case("book-wins-no-book", ["book", "wins", *lists, "--book", "{T}/b.npz",
                                   "--openers", "cigar"], "no opening book"),
        Case("book-wins-opener", ["book", "wins", "--lists", "original", "--store",
                                  "{T}/w.zarr", "--openers", "zzzzq"],
             "not in the guess list"),
        Case("wins-next-store", ["next", "-", *lists, "--objective", "wins", "--store", "{S}"],
             "objective (store: expected, requested: wins)"),
        Case("wins-next-start-big", ["next", "-", "--lists", "nyt", "--objective", "wins"],
             "under the objective wins"),
    ]
    for name, pos, needle in [("empty-step", "salet:", "GUESS:F1/F2"),
                              ("no-colon", "salet", "GUESS:F1/F2")]:
        out.append(Case(f"boards-position-{name}", ["next", pos, *two], needle))
    return out


CASES: list[Case] = (_list_cases() + _number_cases() + _store_cases() + _misc_cases()
                     + _game_number_cases() + _subprocess_cases() + _tolerated_cases()
                     + _game_cases() + _serve_cases() + _book_cases() + _variant_cases())


# ----------------------------------------------------------------- harness


def _warm_up(a: Path, g: Path, cache: Path) -> None:
    """Run valid commands once, so that in a fresh clone numba compiles its kernels
    here and not inside a case's hang alarm (a first compilation takes ~20 s)."""
    lists = ["--answers", str(a), "--guesses", str(g), "--cache-dir", str(cache)]
    out = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO("")  # play: not a terminal, plays to the end
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            for argv in (["play", "--answer", ANSWERS[0]], ["score"],
                         ["simulate", "--strategy", "entropy"], ["next", "-"]):
                assert cli.main([*argv, *lists]) == 0, out.getvalue()[-2000:]
    finally:
        sys.stdin = old_stdin


@pytest.fixture(scope="module")
def world(tmp_path_factory, request) -> dict[str, Path | str]:
    d = tmp_path_factory.mktemp("fuzz")
    a, g = d / "answers.txt", d / "guesses.txt"
    a.write_text("\n".join(ANSWERS) + "\n")
    g.write_text("\n".join(EXTRA + ANSWERS) + "\n")
    lists = WordLists.load(a, g, quiet=True)
    store = d / "good.zarr"
    st, _ = S.Store.open_or_create(store, lists, "easy", 6)
    recs = []
    for i in range(0, len(lists.guesses), 2):
        second = np.full(243, -1, dtype=np.int32)
        second[i] = i
        recs.append(S.Record(i, S.EXACT, total=20 + i, depth=3, cpu_seconds=0.1,
                             wall_seconds=0.1, nodes=5, rank=0, finished_at=time.time(),
                             second=second))
    st.write(recs)
    st.unlock()
    get_table(lists, "numpy", d / "cache")  # cached: cases must fail even so
    _warm_up(a, g, d / "cache")
    busy = socket.create_server(("127.0.0.1", 0))  # a port in use, for serve
    request.addfinalizer(busy.close)
    big = d / "big.txt"  # a table of more bytes than this machine has
    n = math.isqrt(memory_bytes()) + 1000
    words = ("".join(t) for t in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=5))
    big.write_text("\n".join(itertools.islice(words, n)) + "\n")
    return {"A": a, "G": g, "S": store, "C": d / "cache", "BIG": big,
            "BUSY": str(busy.getsockname()[1])}


def _tree_digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        h.update(str(p.relative_to(path)).encode())
        if p.is_file() and not p.is_symlink() and p.name != "writer.lock":
            h.update(p.read_bytes())
    return h.hexdigest()


def _files(tmp: Path) -> set[str]:
    """Every path under `tmp` but inside the store copies (their digest is checked)."""
    out = set()
    for p in tmp.rglob("*"):
        rel = p.relative_to(tmp)
        if rel.parts[0] not in ("s.zarr", "good.zarr", "new.zarr"):
            out.add(str(rel))
    return out


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _expand(argv: list[str], world: dict[str, Path], tmp: Path, store: Path) -> list[str]:
    subs = {k: str(v) for k, v in world.items()} | {"S": str(store), "T": str(tmp),
                                                    "X": str(tmp / "x")}
    out = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace("{" + k + "}", v)
        out.append(a)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, world, tmp_path, capsys, monkeypatch):
    store = tmp_path / "s.zarr"
    line = " ".join(case.argv)
    if "{S}" in line or case.prep is not None:  # copies only where used: files are slow
        shutil.copytree(world["S"], store)  # to delete on some disks
    if "good.zarr" in line:
        shutil.copytree(world["S"], tmp_path / "good.zarr")
    if case.prep is not None:
        case.prep(tmp_path, store)
    before = _tree_digest(store) if store.is_dir() else None
    files_before = _files(tmp_path)
    argv = _expand(case.argv, world, tmp_path, store)
    if case.subprocess:
        env = dict(os.environ) | case.env
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH"))
                                            if p)
        env["WORDLE_DP_CACHE"] = str(world["C"])
        try:
            p = subprocess.run([sys.executable, "-m", "solver", *argv], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=TIMEOUT * 3)
        except subprocess.TimeoutExpired:
            pytest.fail(f"hung: {case.id}")
        rc, out, err = p.returncode, p.stdout, p.stderr
    else:
        for k, v in case.env.items():
            monkeypatch.setenv(k, v)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # play: a script's empty input
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(TIMEOUT)
        try:
            rc = cli.main(argv)
        except _Hang:
            pytest.fail(f"hung: {case.id}")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        cap = capsys.readouterr()
        out, err = cap.out, cap.err
    lines = err.splitlines()
    assert rc == case.rc, (case.id, rc, err[:2000])
    assert "Traceback" not in err, err[:2000]
    if case.rc == 0:  # tolerated: a note on stderr says what happened
        assert case.needle in err, (case.needle, err[:2000])
        return
    assert len(lines) == 1, (case.id, err[:2000])
    assert lines[0].startswith("wordle-dp: error:"), lines[0][:500]
    assert "Traceback" not in err and len(err) < 1500, err[:2000]
    assert case.needle in lines[0], (case.needle, lines[0])
    if not case.stdout_ok:
        assert out == "", out[:500]
    left = _files(tmp_path) - files_before
    assert not left, f"a refused command left files behind: {sorted(left)[:5]}"
    if before is not None and store.is_dir():
        assert _tree_digest(store) == before, "a refused command changed the store"
    assert not (tmp_path / "new.zarr").exists(), "a refused run left a store behind"


def test_enough_cases():
    ids = [c.id for c in CASES]
    assert sum(c.rc == 2 for c in CASES) >= 200 and len(set(ids)) == len(ids)
    commands = {c.argv[0] for c in CASES}
    assert {"table", "solve", "best", "run", "query", "export", "merge", "repair", "next",
            "tree", "play", "simulate", "score", "compare", "serve", "book", "lists"} <= commands
    from solver.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) <= commands, "a command without fuzz cases"
    assert sum(c.argv[0] in ("next", "tree", "play", "simulate", "score", "compare", "serve")
               for c in CASES) >= 300


def test_play_bad_lines_are_explained_and_asked_again(world, capsys, monkeypatch):
    """Issue 7: bad input in `play` re-prompts with a one-line reason (each bad line
    one '! ...' line, then the same guess is asked again), never exits or crashes."""
    # (a word alone is no longer bad: the game asks for its colours, test_game_cli)
    bad = ["zzzzz BBBBB", f"{KELVIN} GGGGG", f"{FULLWIDTH} BBBBB", "GGGGGG",
           "salet BBBBB extra", "\u0660\u0660\u0660\u0660\u0660", "x" * 100_000,
           "crane GGGGY",  # no word fits
           ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join([*bad, "q"]) + "\n"))
    rc = cli.main(["play", "--answers", str(world["A"]), "--guesses", str(world["G"]),
                   "--cache-dir", str(world["C"])])
    cap = capsys.readouterr()
    assert rc == 0 and cap.err == "" and "Traceback" not in cap.out
    reasons = [line for line in cap.out.split("q quits: ") if line.startswith("! ")]
    assert len(reasons) == len(bad), cap.out[:3000]
    assert all(len(r) < 400 and r.count("\n") == 1 for r in reasons), reasons
    assert "KELVIN SIGN" in reasons[1] and "no answer in the list fits" in reasons[-1]
    assert cap.out.count("guess 1: play") == len(bad) + 1  # asked again, still guess 1
    assert cap.out.rstrip().endswith("quit")


def test_play_with_answer_bad_lines_in_a_hard_game(world, capsys, monkeypatch):
    """With a known answer in a terminal-like loop (stdin is read because the test
    says it is a tty): a hard-mode-illegal guess is explained and asked again."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("salet\ncrane\nzzzzz\nq\n"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    rc = cli.main(["play", "--answer", "blush", "--mode", "hard", "--opener", "SALET",
                   "--answers", str(world["A"]), "--guesses", str(world["G"]),
                   "--cache-dir", str(world["C"])])
    out = capsys.readouterr().out
    assert rc == 0
    assert f"guess 1: SALET  {_pat('salet', 'blush')}" in out
    assert "! crane is not allowed in hard mode" in out and "! 'zzzzz' is not in" in out
    assert out.count("guess 2 (Enter") == 3 and "the answer was" not in out
