"""The feedback rule: known cases, the text forms, and the vectorised rule."""

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


def _random_words(rng: random.Random, alphabet: str, n: int) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(5)) for _ in range(n)]


# --- known cases -------------------------------------------------------------------


@pytest.mark.parametrize(("guess", "answer", "text", "code"), CASES)
def test_known_cases(guess, answer, text, code):
    assert score(guess, answer) == code
    assert to_text(code) == text
    assert parse(text) == code
    assert reference(guess, answer) == code


@pytest.mark.parametrize(("guess", "answer", "text", "code"), CASES)
def test_known_cases_vectorised(guess, answer, text, code):
    out = feedback.pattern_rows(np, encode_words([guess]), encode_words([answer]))
    assert out.dtype == np.uint8 and out.shape == (1, 1)
    assert int(out[0, 0]) == code


def test_score_rejects_wrong_length():
    with pytest.raises(ValueError):
        score("abcd", "abcde")
    with pytest.raises(ValueError):
        score("abcde", "abcdef")


def test_all_green_only_for_equal_words():
    rng = random.Random(7)
    ws = _random_words(rng, "abc", 300)
    for g in ws[:40]:
        for a in ws:
            assert (score(g, a) == feedback.ALL_GREEN) == (g == a)


# --- text forms --------------------------------------------------------------------


def test_encoding_constants():
    assert feedback.N_PATTERNS == 243
    assert feedback.ALL_GREEN == 242
    assert feedback.WEIGHTS == (1, 3, 9, 27, 81)
    assert to_text(0) == "BBBBB"
    assert to_text(1) == "YBBBB"  # position 0 has weight 1
    assert to_text(2 * 81) == "BBBBG"


def test_text_and_squares_round_trip_all_codes():
    texts = set()
    for code in range(feedback.N_PATTERNS):
        t = to_text(code)
        texts.add(t)
        assert parse(t) == code
        assert parse(t.lower()) == code
        assert parse(to_squares(code)) == code
        assert parse(t.translate(str.maketrans("GYB", "210"))) == code
        assert feedback.colours_of(code) == ["BYG".index(c) for c in t]
    assert len(texts) == 243


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
    assert parse(text) == code


@pytest.mark.parametrize(
    "text",
    ["", "GGGG", "GGGGGG", "GBBGZ", "GB GB", "33333", "GBBG?", "\U0001f7e6BBBB", "G B B G B"],
)
def test_parse_rejects(text):
    with pytest.raises(PatternError):
        parse(text)


@pytest.mark.parametrize("code", [-1, 243, 1000])
def test_colours_of_range(code):
    with pytest.raises(PatternError):
        feedback.colours_of(code)


# --- the vectorised rule against the scalar one ------------------------------------


def _check_pairs(guesses: list[str], answers: list[str]) -> None:
    out = feedback.pattern_rows(np, encode_words(guesses), encode_words(answers))
    assert out.shape == (len(guesses), len(answers)) and out.dtype == np.uint8
    for i, g in enumerate(guesses):
        for j, a in enumerate(answers):
            expected = score(g, a)
            assert expected == reference(g, a), (g, a)
            assert out[i, j] == expected, (g, a, to_text(int(out[i, j])), to_text(expected))


def test_vectorised_all_pairs_tiny_alphabets():
    # Every 5-letter word over {a, b}: repeated letters everywhere.
    ab = ["".join(p) for p in itertools.product("ab", repeat=5)]
    _check_pairs(ab, ab)


def test_vectorised_random_pairs_small_alphabet():
    rng = random.Random(12345)
    _check_pairs(_random_words(rng, "abc", 80), _random_words(rng, "abc", 60))
    _check_pairs(_random_words(rng, "eesrt", 50), _random_words(rng, "abcde", 50))


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
