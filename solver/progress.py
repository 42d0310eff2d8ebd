"""One progress line for every long command: done/total, rate, ETA and a note.

On a terminal the line is redrawn in place a few times a second and ends with a
newline when the work does; elsewhere (a log file, a Slurm output) a plain line is
written every `every` seconds, so logs stay short. A command under --quiet passes no
stream and gets nothing.

    progress = Progress("best", sys.stderr)
    for i, item in enumerate(items):
        ...
        progress(i + 1, len(items), f"best so far {word} {total}")
    progress.done()
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO


def fmt_duration(s: float) -> str:
    """Seconds as 42s, 3m07s or 2h05m; '?' when unknown."""
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


LOG_EVERY = 30.0  # seconds between the lines a log gets (a terminal's line is redrawn)

_open_line: Progress | None = None  # the line drawn last on a terminal, not yet ended
_prompt_open = False  # a prompt is waiting for the player's line (see `ask`)


def ask(prompt: str) -> str:
    """input(prompt), remembering while it waits that the prompt's line is open: an
    interrupt there then starts its message on a line of its own (end_open_line).
    EOFError as input() raises it."""
    global _prompt_open
    _prompt_open = True
    line = input(prompt)  # a KeyboardInterrupt leaves the line open, as it is
    _prompt_open = False
    return line


def _ctrl_c_echoed() -> bool:
    """Whether the terminal on stdin echoes a Ctrl-C as '^C' where the cursor is
    (ECHO and ECHOCTL, the default of a Linux terminal)."""
    import sys

    try:
        import termios

        if not sys.stdin.isatty():
            return False
        lflag = termios.tcgetattr(sys.stdin.fileno())[3]
        return bool(lflag & termios.ECHO and lflag & termios.ECHOCTL)
    except (ImportError, AttributeError, OSError, ValueError):
        return False


def end_open_line(interrupted: bool = False) -> None:
    """End a progress line still drawn on a terminal, or a prompt still waiting
    ('guess 2 (Enter = ...): '), so that what is printed next (an interrupted
    command's last word) starts on a line of its own. `interrupted`: the command
    was stopped by Ctrl-C, which the terminal may have echoed as '^C' on the
    cursor's line: that line is ended too."""
    import sys

    global _open_line, _prompt_open
    p, _open_line = _open_line, None
    prompt, _prompt_open = _prompt_open, False
    stream = None
    if p is not None and p.shown and p.stream is not None:
        stream = p.stream
        p.shown = False
    elif prompt or (interrupted and _ctrl_c_echoed()):
        stream = sys.stderr
    if stream is not None:
        try:
            stream.write("\n")
            stream.flush()
        except (OSError, ValueError):
            pass



def class_reporter(word: str, done: str, stream: TextIO, nodes: Callable[[], int],
                   t0: float, every: float, first: float
                   ) -> Callable[[int, int, float], None]:
    """A search's `report(i, n, work)` over an opener's first-feedback classes: a
    line '{word}: i/n feedback classes {done} (about P % of the work), elapsed, ETA,
    nodes' on `stream` at most every `every` seconds, the first `first` seconds after
    `t0` (time.perf_counter). `nodes()`: the nodes searched since the start."""
    last = [t0 - every + first]

    def report(i: int, n: int, work: float = 0.0) -> None:
        now = time.perf_counter()
        if now - last[0] < every:
            return
        last[0] = now
        el = now - t0
        # the ETA by the work done, each class weighed by its size squared (the
        # classes go smallest first: by their count the ETA would be far too low)
        eta = f", ETA about {fmt_duration(el * (1 - work) / work)}" if work > 0.01 else ""
        print(f"{word}: {i}/{n} feedback classes {done} (about {100 * work:.0f} % of the "
              f"work), {fmt_duration(el)}{eta}, {nodes()} nodes", file=stream, flush=True)

    return report


# the ETA's pace: items done over the last quarter of the time so far, at least 3 s
RECENT_SHARE = 0.25
RECENT_MIN = 3.0
SAMPLE_EVERY = 0.2  # seconds between the (time, done) samples kept for it


class Pace:
    """The present pace of a count, for an ETA: items a second over the last
    RECENT_SHARE of the time so far (at least RECENT_MIN seconds). Work whose items
    get cheaper as it goes (a ranking refutes its later guesses fast) or dearer is
    timed by its present pace, not its average (which said 2m36s for a ranking that
    ended 35 s later). A count that goes down starts a new phase with its own pace.
    The progress line and the web page's workers both time their work with it."""

    def __init__(self, t0: float | None = None):
        self.t0 = time.monotonic() if t0 is None else t0
        self._hist: list[tuple[float, int]] = [(self.t0, 0)]  # (time, done) samples

    def rate(self, now: float, done: int) -> float:
        """Items a second at `now`, with `done` items done."""
        hist = self._hist
        if hist and done < hist[-1][1]:  # a new count (another phase): its own pace
            hist.clear()
        if not hist or now - hist[-1][0] >= SAMPLE_EVERY:
            hist.append((now, done))
        el = now - self.t0
        horizon = max(RECENT_MIN, RECENT_SHARE * el)
        while len(hist) > 2 and now - hist[1][0] >= horizon:
            hist.pop(0)  # keep the newest sample at least `horizon` old
        t_then, d_then = hist[0]
        if now - t_then >= RECENT_MIN and done > d_then:
            return (done - d_then) / (now - t_then)
        return done / el if el > 0 else 0.0

    def eta(self, now: float, done: int, total: int) -> float:
        """Seconds left for `total - done` items at the present pace (inf when
        nothing is done yet; 0 when nothing is left)."""
        rate = self.rate(now, done)  # (sampled even at the end: a next count's start)
        if done >= total:
            return 0.0
        return (total - done) / rate if rate > 0 else math.inf


class Progress:
    """Callable as progress(done, total, note=""); see the module docstring. `unit`
    names what is counted ("openers", "games")."""

    def __init__(self, label: str, stream: TextIO | None, unit: str = "",
                 every: float | None = None, tty: bool | None = None):
        self.label = label
        self.stream = stream
        self.unit = unit
        if tty is None:
            isatty = getattr(stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
        self.tty = tty
        self.every = every if every is not None else (0.25 if tty else LOG_EVERY)
        self.t0 = time.monotonic()
        self.last = self.t0  # nothing for the first `every` seconds: quick work stays quiet
        self.width = 0
        self.shown = False
        self.pace = Pace(self.t0)
        self.step = ""  # the step of the work in hand (phase), said on every line

    def phase(self, step: str) -> None:
        """A new step of the work, with a count of its own: every line says `step`
        ("" none), and the ETA is the step's, from its own pace. A `next` on a class
        that no strategy wins counts its guesses three times (no guess wins all, the
        most wins, the alternatives), and each count's "ETA 0s" was not the end."""
        self.step = step
        self.pace = Pace()

    def line(self, done: int, total: int, note: str = "") -> str:
        now = time.monotonic()
        el = now - self.t0
        eta = self.pace.eta(now, done, total)
        pct = 100.0 * done / total if total else 100.0
        unit = f" {self.unit}" if self.unit else ""
        text = (f"{self.label}: {done}/{total}{unit} ({pct:.1f}%), {fmt_duration(el)} "
                f"elapsed, ETA {fmt_duration(eta) if done < total else '0s'}")
        said = ", ".join(x for x in (self.step, note) if x)
        return text + (f", {said}" if said else "")

    def __call__(self, done: int, total: int, note: str = "") -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if now - self.last < self.every and not (done >= total and self.shown):
            return
        self.last = now
        text = self.line(done, total, note)
        if self.tty:
            global _open_line
            pad = max(0, self.width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self.width = len(text)
            _open_line = self
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    @contextlib.contextmanager
    def wait(self, note: str) -> Iterator[None]:
        """A step whose length nothing predicts (one search, no count to report): the
        line says `note` and the time elapsed, written by a thread until the step
        ends: redrawn every second on a terminal, a fresh line every `every` seconds
        (LOG_EVERY) in a log, so that a long step's log is not silent."""
        if self.stream is None:
            yield
            return
        stop = threading.Event()
        t0 = time.monotonic()
        stream = self.stream
        # (a log's `every` may be 0, every count its line: a step with no count
        # then still waits between lines, instead of spinning)
        period = 1.0 if self.tty else max(self.every, 0.05)

        def tick() -> None:
            while not stop.wait(period):
                text = f"{self.label}: {note}, {fmt_duration(time.monotonic() - t0)} so far"
                if self.tty:
                    pad = max(0, self.width - len(text))
                    stream.write("\r" + text + " " * pad)
                    self.width = len(text)
                else:
                    stream.write(text + "\n")
                stream.flush()
                self.shown = True

        th = threading.Thread(target=tick, daemon=True)
        th.start()
        try:
            yield
        finally:
            stop.set()
            th.join()

    def clear(self) -> None:
        """Erase the line drawn on a terminal, so that other output can be printed
        there; the next call draws it again."""
        if self.stream is not None and self.tty and self.shown:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.shown = False
            self.width = 0
            self.last = -math.inf

    def done(self) -> None:
        """End the line on a terminal (the next output starts on a fresh line)."""
        if self.stream is not None and self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


WIDTH = 120  # the widest line a command prints to a player (issue 50: a 120-column terminal)


def width() -> int:
    """The columns a line may take: the terminal's, at most WIDTH (and at least 60);
    WIDTH when the output is not a terminal."""
    import shutil

    return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def columns(text: str) -> int:
    """The columns `text` takes on a terminal: wide characters (the squares
    🟩🟨⬛, CJK) take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, limit: int | None = None) -> list[str]:
    """`text` as lines of at most `limit` columns (default: width()), broken
    between phrases rather than where a terminal would wrap it (inside a word):
    after the last '; ' or ': ' that fits outside parentheses (in the second half of
    the line: one before is a mere space), else after a ', ',
    else at a space (outside parentheses first). A word longer than a line gets a
    line of its own, whole."""
    limit = limit or width()
    out: list[str] = []
    rest = text
    while columns(rest) > limit:
        cut = _break(rest, limit)
        if cut <= 0:
            break
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    out.append(rest)
    return out


def fit_lines(text: str, limit: int | None = None) -> str:
    """Every line of `text` fitted (`fit`), joined again."""
    return "\n".join(part for line in text.split("\n") for part in fit(line, limit))


def _break(text: str, limit: int) -> int:
    """Where to end the first line of `text` (an index after a separator), or 0."""
    import unicodedata

    depth = 0
    cols = 0
    best: dict[tuple[int, str], int] = {}
    for i, c in enumerate(text):
        cols += 2 if unicodedata.east_asian_width(c) in "WF" else 1
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == " " and i > 0:
            kind = {";": ";", ":": ";", ",": ","}.get(text[i - 1], " ")
            if kind == ";" and 2 * cols < limit:  # not 'best:' alone on a line
                kind = " "
            best[(min(depth, 1), kind)] = i + 1
        if cols > limit + 1:
            break
    for key in ((0, ";"), (0, ","), (0, " "), (1, ";"), (1, ","), (1, " ")):
        if key in best:
            return best[key]
    return text.find(" ") + 1  # a word longer than the line: it ends the line
