"""Ctrl-C ends a command at once, in the middle of a compiled search, during a first
compile and while waiting for another process's compile (issue 50 item 4), in real
processes on a pseudo-terminal: the test types Ctrl-C as a player does (the
terminal sends SIGINT to the foreground process group and echoes '^C'), and the
command says 'wordle-dp: interrupted' on a line of its own and exits with 130.

The searches interrupted here run for a minute or more; before the interrupt
watcher (solver/cli/interrupt.py) a Ctrl-C waited for the kernel call under way
(20 s of CPU for CRANE's class in hard mode, 15 s and more for the adversary's
three-guess proof). What shows that the search stopped is the CPU the process
used after the Ctrl-C (CPU_AFTER): CPU seconds, unlike seconds of wall time, do
not grow when the machine is busy. The wall time to the exit has a loose bound
(BOUND) only against a hang. A search is known to be under way when the process
has used some CPU seconds past its start (0.4 s up to the search)."""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOUND = 60.0  # seconds of wall from Ctrl-C to the exit: against a hang only
CPU_AFTER = 2.0  # CPU seconds used after the Ctrl-C (measured: 0.04 to 0.24)

needs_cc = pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")),
                              reason="no C compiler")


@pytest.fixture(scope="module")
def search_kernels():
    """The search kernels built (a fresh clone builds them here, once, in a child
    process: minutes), so that the tests below interrupt a search, not the build."""
    from solver.search import compiled

    compiled.SEARCH.module()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _controlling_terminal() -> None:  # in the child: the pty becomes its terminal
    import signal
    import termios

    # A job started in the background of a shell without job control (`cmd &` in a
    # script, nohup) ignores SIGINT, and its children inherit that: a command
    # typed at a terminal does not, so the child gets SIGINT's default back
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@dataclass
class Interrupted:
    rc: int  # exit status
    text: str  # what the terminal showed
    took: float  # seconds of wall from the Ctrl-C to the exit
    cpu_after: float  # CPU seconds the process used after the Ctrl-C


def _ctrl_c(args: list[str], ready, env: dict | None = None,
            limit: float = 600) -> Interrupted:
    """Run `wordle-dp ARGS` on a pseudo-terminal and type Ctrl-C once
    `ready(text, pid)` holds."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120", LINES="40", **(env or {}))
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True,
                            preexec_fn=_controlling_terminal)
    os.close(slave)
    buf = b""
    sent = None
    cpu_then = 0.0
    status = None
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline and status is None:
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    buf += os.read(master, 4096)
                except OSError:
                    pass
            if sent is None and ready(buf.decode("utf-8", "replace"), proc.pid):
                cpu_then = _cpu_seconds(proc.pid)
                os.write(master, b"\x03")  # Ctrl-C, as typed
                sent = time.monotonic()
            if sent is not None and time.monotonic() - sent > BOUND:
                break
            pid, st, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = (st, usage.ru_utime + usage.ru_stime)
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
        if status is None:
            proc.kill()
            os.waitpid(proc.pid, 0)
        proc.returncode = 0  # reaped above: Popen must not wait for it again
        os.close(master)
    text = buf.decode("utf-8", "replace")
    assert sent is not None, f"never ready to interrupt: {text!r}"
    assert status is not None, f"still running {took:.0f} s after Ctrl-C: {text!r}"
    return Interrupted(os.waitstatus_to_exitcode(status[0]), text, took,
                       status[1] - cpu_then)


def _busy(seconds: float):
    """Ready once the process has used `seconds` of CPU: deep in its search."""
    return lambda _text, pid: _cpu_seconds(pid) >= seconds


def _shown(words: str, pause: float = 0.5):
    """Ready `pause` seconds after the terminal showed `words`."""
    seen: list[float] = []

    def ready(text: str, _pid: int) -> bool:
        if words in text and not seen:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] > pause

    return ready


def _lines(text: str) -> list[str]:
    return [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]


def _interrupted(run: Interrupted, search: bool = True) -> str:
    """Check the exit; `search`: the Ctrl-C came in the middle of a search, which
    ended there. Returns the terminal's text."""
    text = run.text
    lines = _lines(text)
    assert run.rc == 130, text
    assert lines[-1] == "wordle-dp: interrupted", text  # on a line of its own
    assert sum("interrupted" in ln for ln in lines) == 1, text
    assert "Traceback" not in text
    assert run.took < BOUND, (run.took, text)
    if search:
        assert run.cpu_after < CPU_AFTER, (run.cpu_after, text)
    return text


def _processes_naming(words: str) -> list[str]:
    """Command lines of the live processes that contain `words`."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if words in cmd:
            found.append(cmd)
    return found


def test_ctrl_c_stops_the_opener_s_valuation_in_hard_mode(search_kernels):
    """play --mode hard --opener crane values CRANE over today's 3,158 answers for
    a minute or more in the engine's kernels (--no-book: whatever the books come to
    hold, the value is searched)."""
    text = _interrupted(_ctrl_c(["play", "--mode", "hard", "--opener", "crane", "--no-book"],
                                _busy(2.5)))
    assert "possible answers; suggested opener CRANE" not in text  # it did not finish


def test_ctrl_c_stops_a_search_in_any_command(search_kernels):
    """solve runs its search in the main thread, with no game around it: the same
    Ctrl-C stops it."""
    text = _interrupted(_ctrl_c(["solve", "crane", "--mode", "hard", "--lists", "nyt",
                                 "--no-book"], _busy(2.5)))
    assert "crane exact" not in text


def test_ctrl_c_stops_the_adversary_s_search():
    """After ALOES on today's lists the adversary keeps 222 answers, and the proof
    that no win within 3 more guesses exists is one compiled call of 15 s or more
    (adversary_jit.win3), which looks at the stop flag for each first guess."""
    text = _interrupted(_ctrl_c(["next", "aloes", "--adversary", "--top", "0"], _busy(3.0)))
    assert "fewest guesses" not in text


def test_ctrl_c_at_a_prompt_starts_its_message_on_a_new_line():
    """At 'guess 1: ... q quits: ' the terminal echoes '^C' after the prompt; the
    message comes on the next line, not as '^Cwordle-dp: interrupted'."""
    # a moment after the prompt shows: a SIGINT that lands between the prompt's
    # write and input()'s read is seen by Python at the next line only
    text = _interrupted(_ctrl_c(["play", "--lists", "original"], _shown("q quits:")),
                        search=False)
    prompt = [ln for ln in _lines(text) if "q quits:" in ln]
    assert prompt and "interrupted" not in prompt[-1], text


def _fresh_install(tmp_path: Path) -> dict:
    """No kernel module and no numba cache: a first run compiles."""
    (tmp_path / "none").mkdir(exist_ok=True)
    return {"NUMBA_CACHE_DIR": str(tmp_path / "numba"),
            "WORDLE_DP_KERNEL_DIR": str(tmp_path / "none")}


@needs_cc
def test_ctrl_c_during_a_first_compile_ends_it_and_leaves_nothing(tmp_path):
    """A first run compiles the search kernels for minutes, in a child process that
    the same Ctrl-C ends: the command exits at once, no compiler is left running
    and the half-built module's folder is gone (the next run builds it again)."""
    env = _fresh_install(tmp_path)
    text = _interrupted(_ctrl_c(["solve", "salet", "--no-book"],
                                _shown("compiling the search"), env), search=False)
    assert "salet exact" not in text
    built = tmp_path / "numba" / "wordle_dp"
    assert built.is_dir() and sorted(p.name for p in built.iterdir()) == [
        ".wordle_dp_search.lock"], list(built.iterdir())
    assert _processes_naming(str(built)) == []


def test_ctrl_c_while_another_process_compiles(tmp_path):
    """A process that finds another building the kernels waits for that build (it
    says so); a Ctrl-C ends the wait."""
    env = _fresh_install(tmp_path)
    built = tmp_path / "numba" / "wordle_dp"
    built.mkdir(parents=True)
    with open(built / ".wordle_dp_search.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a build under way holds it
        lock.write(f"{time.time()}\n")
        lock.flush()
        run = _ctrl_c(["solve", "salet", "--no-book"], _shown("waiting for the search kernels"),
                      env)
    text = _interrupted(run, search=False)
    assert "salet exact" not in text
