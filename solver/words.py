"""Word lists: loading, validation and checksums.

A problem is defined by two lists: the possible answers and the allowed guesses.
Every answer is also a legal guess, so answers missing from the guess list are
appended to it. The sha256 of each list (over its canonical text: one word per
line, LF, trailing newline, in list order) identifies the problem in caches and
result stores.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from .errors import WordListError, quote

# The original Wordle lists ship inside the package (solver/data/; provenance in the
# source tree's data/README.md) and are read through importlib.resources, so an
# installed wheel needs no source tree. Their sha256 is checked on every load: a
# damaged installation must not silently define a different problem.
DEFAULT_ANSWERS = resources.files(__package__) / "data" / "answers.txt"
DEFAULT_GUESSES = resources.files(__package__) / "data" / "guesses.txt"
DEFAULT_SHA256 = {
    "answers.txt": "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee",
    "guesses.txt": "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579",
}

WORD_LEN = 5
MAX_LIST_BYTES = 256 * 2**20  # every 5-letter string of a-z (26**5) fits in about 80 MB
_SPACE = " \t\r\f\v"  # trimmed around words: ASCII whitespace only
_BOM = "\ufeff"


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _first_non_ascii(word: str) -> str:
    """'; U+212A KELVIN SIGN is not a-z' for look-alikes that print like letters."""
    import unicodedata

    c = next((c for c in word[:1000] if not c.isascii()), None)
    return "" if c is None else f"; U+{ord(c):04X} {unicodedata.name(c, '?')} is not a-z"


def read_regular(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file, never blocking on a FIFO or reading a device.

    Raises OSError (strerror says what is wrong) for anything that is not a
    regular file, or one larger than max_bytes.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, f"{kind_of(st.st_mode)}, not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise OSError(0, f"{st.st_size} bytes, more than the {max_bytes} allowed")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as f:
            fd = -1
            return f.read() if max_bytes is None else f.read(max_bytes + 1)
    finally:
        if fd >= 0:
            os.close(fd)


def canonical_sha256(words: list[str]) -> str:
    """sha256 of the canonical text form of a list (one word per line, LF)."""
    return hashlib.sha256(("\n".join(words) + "\n").encode("ascii")).hexdigest()


def parse_words(text: str, source: str = "<list>") -> list[str]:
    """Validate the lines of a word list: trimmed, lower-cased, empties skipped.

    Raises WordListError naming `source` and the 1-based line for a bad word or a
    duplicate, and for a list with no words at all.
    """
    words: list[str] = []
    seen: dict[str, int] = {}
    if text.startswith(_BOM):  # a UTF-8 byte-order mark some editors write
        text = text[1:]
    for lineno, raw in enumerate(text.split("\n"), start=1):
        word = raw.strip(_SPACE)
        if not word:
            continue
        # checked before lower(): some non-ASCII letters lower-case to ASCII (Kelvin sign)
        if len(word) != WORD_LEN or not word.isascii() or not word.isalpha():
            raise WordListError(
                f"{source}:{lineno}: {quote(word)} is not a {WORD_LEN}-letter word "
                f"(letters a-z only{_first_non_ascii(word)})"
            )
        word = word.lower()
        if word in seen:
            raise WordListError(
                f"{source}:{lineno}: duplicate word {word!r} (first on line {seen[word]})"
            )
        seen[word] = lineno
        words.append(word)
    if not words:
        raise WordListError(f"{source}: the list is empty")
    return words


def read_words(path: str | Path) -> list[str]:
    """Read and validate a word list file (see `parse_words`)."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_LIST_BYTES)
    except OSError as exc:
        raise WordListError(f"{path}: cannot read word list ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WordListError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_words(text, str(path))


def read_default(resource: Traversable) -> list[str]:
    """Read a list shipped with the package, verifying its recorded sha256."""
    try:
        data = resource.read_bytes()
    except OSError as exc:
        raise WordListError(f"{resource}: cannot read the shipped word list "
                            f"({exc.strerror or exc}); reinstall wordle-dp") from None
    if hashlib.sha256(data).hexdigest() != DEFAULT_SHA256[resource.name]:
        raise WordListError(f"{resource}: the shipped word list is damaged (sha256 "
                            "mismatch); reinstall wordle-dp")
    return parse_words(data.decode("ascii"), str(resource))


def encode_words(words: list[str]) -> np.ndarray:
    """Letters as uint8 codes 0..25, shape (len(words), 5)."""
    buf = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    return (buf.reshape(len(words), WORD_LEN) - ord("a")).astype(np.uint8)


@dataclass(frozen=True)
class WordLists:
    """The answer and guess lists of one problem, validated.

    `guesses` contains every answer; `answer_in_guesses[i]` is the guess index of
    answer i, and `guess_index` maps a guess word to its index.
    """

    answers: list[str]
    guesses: list[str]
    answers_source: str = "answers"
    guesses_source: str = "guesses"
    added_answers: int = 0
    guess_index: dict[str, int] = field(init=False, repr=False, compare=False)
    answer_index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "guess_index", {w: i for i, w in enumerate(self.guesses)})
        object.__setattr__(self, "answer_index", {w: i for i, w in enumerate(self.answers)})

    @classmethod
    def from_words(
        cls,
        answers: list[str],
        guesses: list[str],
        answers_source: str = "answers",
        guesses_source: str = "guesses",
    ) -> WordLists:
        """Build from already-parsed lists, appending answers missing from guesses."""
        known = set(guesses)
        missing = [w for w in answers if w not in known]
        return cls(
            list(answers), list(guesses) + missing, answers_source, guesses_source, len(missing)
        )

    @classmethod
    def load(
        cls, answers: str | Path | None = None, guesses: str | Path | None = None, quiet=False
    ) -> WordLists:
        """Load lists from files (default: the original Wordle lists shipped with the
        package)."""
        a_path = Path(answers) if answers else DEFAULT_ANSWERS
        g_path = Path(guesses) if guesses else DEFAULT_GUESSES
        a_words = read_words(answers) if answers else read_default(DEFAULT_ANSWERS)
        g_words = read_words(guesses) if guesses else read_default(DEFAULT_GUESSES)
        lists = cls.from_words(a_words, g_words, str(a_path), str(g_path))
        if lists.added_answers and not quiet:
            print(
                f"note: {lists.added_answers} answer(s) missing from {g_path} "
                "were added to the guess list",
                file=sys.stderr,
            )
        return lists

    @property
    def answers_sha256(self) -> str:
        return canonical_sha256(self.answers)

    @property
    def guesses_sha256(self) -> str:
        return canonical_sha256(self.guesses)

    @property
    def answer_guess_ids(self) -> np.ndarray:
        """Guess index of each answer, int32."""
        return np.array([self.guess_index[w] for w in self.answers], dtype=np.int32)

    def guess_id(self, word: str) -> int:
        """Index of a guess word; raises WordListError if it is not allowed."""
        w = word.strip(_SPACE)
        i = self.guess_index.get(w.lower()) if w.isascii() else None
        if i is None:
            msg = (f"{quote(word)} is not in the guess list {self.guesses_source}"
                   f"{_first_non_ascii(w)}")
            raise WordListError(msg)
        return i
