"""The feedback rule at every word length (3 to 10): known cases (repeated letters
at 6 letters and more included), the text forms, and the vectorised rule against
an independent statement of the rule."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from solver import feedback
from solver.feedback import PatternError, parse, score, to_squares, to_text
from solver.words import WordLists, encode_words

CASES = [
    ("speed", "abide", "BBYBY", 90),
    ("eerie", "there", "YBYBG", 172),
    ("lolly", "loyal", "GGYBY", 98),
    ("array", "rarer", "YYGBB", 22),
    ("sissy", "essay", "YBGBG", 181),
    ("geese", "eject", "BYGBB", 21),
    ("salet", "sheen", "GBBGB", 56),
    ("reais", "sheen", "BYBBY", 84),
    ("abbey", "babes", "YYGGB", 76),
    ("crane", "crane", "GGGGG", 242),
]


def reference(guess: str, answer: str) -> int:
    """An independent statement of the rule, for cross-checking.

    A non-green guess letter at position i is yellow iff the number of non-green
    occurrences of that letter in the guess up to and including i does not exceed
    the number of non-green occurrences of it in the answer.
    """
    green = [g == a for g, a in zip(guess, answer, strict=True)]
    spare = Counter(a for a, gr in zip(answer, green, strict=True) if not gr)
    seen: Counter[str] = Counter()
    code = 0
    for i, (g, gr) in enumerate(zip(guess, green, strict=True)):
        if gr:
            mark = 2
        else:
            seen[g] += 1
            mark = 1 if seen[g] <= spare[g] else 0
        code += mark * 3**i
    return code


def _random_words(rng: random.Random, alphabet: str, n: int, length: int = 5) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(n)]


# 6 letters and more: three copies of a letter in the guess against two in the answer
# (the third is grey), greens taking copies before yellows, and the 2-byte codes
LONG_CASES = [  # each worked out by hand
    ("eeeaab", "xeyezz", "YGBBBB", 1 + 2 * 3),  # 3 Es against 2: one green, one yellow
    ("banana", "ananas", "BYYYYY", 363),
    ("aaabbb", "ababab", "GYGGYG", 644),  # the spare A and B go to the first non-greens
    ("seeded", "needed", "BGGGGG", sum(2 * 3**i for i in range(1, 6))),
    ("lllllll", "hallway", "BBGGBBB", 2 * 9 + 2 * 27),  # 7 Ls against 2, both green
    ("abcdefgh", "abcdefgh", "GGGGGGGG", 3**8 - 1),
    ("aaaaaaaaaa", "ababababab", "GBGBGBGBGB", sum(2 * 3**i for i in range(0, 10, 2))),
    ("cat", "act", "YYG", 1 + 3 + 18),
    ("tree", "eert", "YYYY", 40),
]


# --- known cases -------------------------------------------------------------------


@pytest.mark.parametrize(("guess", "answer", "text", "code"), CASES + LONG_CASES)
def test_known_cases(guess, answer, text, code):
    n = len(guess)
    assert score(guess, answer) == code
    assert to_text(code, n) == text
    assert parse(text, n) == code
    assert reference(guess, answer) == code


@pytest.mark.parametrize(("guess", "answer", "text", "code"), CASES + LONG_CASES)
def test_known_cases_vectorised(guess, answer, text, code):
    out = feedback.pattern_rows(np, encode_words([guess]), encode_words([answer]))
    assert out.dtype == (np.uint8 if len(guess) <= 5 else np.uint16) and out.shape == (1, 1)
    assert int(out[0, 0]) == code


def test_score_rejects_wrong_length():
    with pytest.raises(ValueError):
        score("abcd", "abcde")
    with pytest.raises(ValueError):
        score("abcde", "abcdef")


@pytest.mark.parametrize("length", range(3, 11))
def test_all_green_only_for_equal_words(length):
    rng = random.Random(7 + length)
    ws = _random_words(rng, "abc", 200, length)
    for g in ws[:30]:
        for a in ws:
            assert (score(g, a) == feedback.all_green(length)) == (g == a)


# --- text forms --------------------------------------------------------------------


def test_encoding_constants():
    assert feedback.all_green(5) == 242 and feedback.all_green(10) == 3**10 - 1
    assert feedback.all_green(3) == 26
    assert to_text(0, 5) == "BBBBB"
    assert to_text(1, 5) == "YBBBB"  # position 0 has weight 1
    assert to_text(2 * 81, 5) == "BBBBG"
    assert to_text(2 * 3**9, 10) == "BBBBBBBBBG"


@pytest.mark.parametrize("length", (3, 4, 5, 6))
def test_text_and_squares_round_trip_all_codes(length):
    texts = set()
    for code in range(3**length):
        t = to_text(code, length)
        texts.add(t)
        assert parse(t, length) == code
        assert parse(t.lower(), length) == code
        assert parse(to_squares(code, length), length) == code
        assert parse(t.translate(str.maketrans("GYB", "210")), length) == code
        assert feedback.colours_of(code, length) == ["BYG".index(c) for c in t]
    assert len(texts) == 3**length


def test_parse_wants_the_word_length():
    assert parse("GBBGBB", 6) == 2 + 2 * 27
    with pytest.raises(PatternError, match="must have 6 marks"):
        parse("GBBGB", 6)
    with pytest.raises(PatternError, match="must have 4 marks"):
        parse("GBBGB", 4)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("GBBGB", 56),
        ("gbbgb", 56),
        ("GXXGX", 56),
        ("gxxgx", 56),
        ("G..G.", 56),
        ("G--G-", 56),
        ("G__G_", 56),
        ("20020", 56),
        ("  GBBGB\n", 56),
        ("\U0001f7e9\u2b1b\u2b1b\U0001f7e9\u2b1b", 56),  # green, black, black, green, black
        ("\U0001f7e9\u2b1c\u2b1c\U0001f7e9\u2b1c", 56),  # white squares are grey too
        ("\U0001f7e8\U0001f7e8\U0001f7e9\U0001f7e9\u2b1b", 76),  # abbey/babes
        ("yYgGb", 76),
        ("GGGGG", 242),
        ("BBBBB", 0),
    ],
)
def test_parse_accepts(text, code):
    assert parse(text, 5) == code


@pytest.mark.parametrize(
    "text",
    ["", "GGGG", "GGGGGG", "GBBGZ", "GB GB", "33333", "GBBG?", "\U0001f7e6BBBB", "G B B G B"],
)
def test_parse_rejects(text):
    with pytest.raises(PatternError):
        parse(text, 5)


@pytest.mark.parametrize(("code", "length"), [(-1, 5), (243, 5), (1000, 5), (27, 3), (729, 6)])
def test_colours_of_range(code, length):
    with pytest.raises(PatternError):
        feedback.colours_of(code, length)


# --- the vectorised rule against the scalar one ------------------------------------


def _check_pairs(guesses: list[str], answers: list[str]) -> None:
    n = len(guesses[0])
    out = feedback.pattern_rows(np, encode_words(guesses), encode_words(answers))
    assert out.shape == (len(guesses), len(answers))
    assert out.dtype == (np.uint8 if n <= 5 else np.uint16)
    for i, g in enumerate(guesses):
        for j, a in enumerate(answers):
            expected = score(g, a)
            assert expected == reference(g, a), (g, a)
            assert out[i, j] == expected, (g, a, to_text(int(out[i, j]), n),
                                          to_text(expected, n))


@pytest.mark.parametrize("length", range(3, 11))
def test_vectorised_all_pairs_tiny_alphabets(length):
    # Words over {a, b}: repeated letters everywhere (all of them up to 6 letters)
    ab = ["".join(p) for p in itertools.product("ab", repeat=length)]
    if len(ab) > 64:
        ab = random.Random(length).sample(ab, 64)
    _check_pairs(ab, ab)


@pytest.mark.parametrize("length", range(3, 11))
def test_vectorised_random_pairs_small_alphabet(length):
    rng = random.Random(12345 + length)
    _check_pairs(_random_words(rng, "abc", 60, length), _random_words(rng, "abc", 50, length))
    _check_pairs(_random_words(rng, "eesrt", 40, length),
                 _random_words(rng, "abcde", 40, length))


def test_vectorised_random_pairs_real_words():
    lists = WordLists.load()
    rng = random.Random(2024)
    guesses = rng.sample(lists.guesses, 70)
    answers = rng.sample(lists.answers, 70)
    _check_pairs(guesses, answers)


def test_vectorised_independent_of_blocking():
    # Rows must not depend on which other guesses share the call.
    rng = random.Random(99)
    g = encode_words(_random_words(rng, "abcd", 40))
    a = encode_words(_random_words(rng, "abcd", 30))
    full = feedback.pattern_rows(np, g, a)
    parts = np.vstack([feedback.pattern_rows(np, g[i : i + 7], a) for i in range(0, 40, 7)])
    assert np.array_equal(full, parts)
