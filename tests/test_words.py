"""Word lists: the shipped data files and the validation of user lists."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from solver import words
from solver.words import WordListError, WordLists, parse_words, read_words

ANSWERS_SHA256 = "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee"
GUESSES_SHA256 = "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579"


def _write(tmp_path, name: str, text: str | bytes):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# --- the shipped lists -------------------------------------------------------------


def test_data_file_checksums():
    assert hashlib.sha256(words.DEFAULT_ANSWERS.read_bytes()).hexdigest() == ANSWERS_SHA256
    assert hashlib.sha256(words.DEFAULT_GUESSES.read_bytes()).hexdigest() == GUESSES_SHA256


def test_source_tree_data_is_the_packaged_lists():
    """data/ (the documented source) links to the lists inside the package, so the
    two cannot diverge; a copy that differs fails here."""
    root = Path(__file__).resolve().parents[1]
    for name in ("answers.txt", "guesses.txt"):
        packaged = words.resources.files("solver") / "data" / name
        assert (root / "data" / name).read_bytes() == packaged.read_bytes()


def test_damaged_shipped_list_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "answers.txt"
    bad.write_bytes(words.DEFAULT_ANSWERS.read_bytes().replace(b"cigar", b"cigas"))
    monkeypatch.setattr(words, "DEFAULT_ANSWERS", bad)
    with pytest.raises(WordListError, match="damaged .*reinstall wordle-dp"):
        WordLists.load()
    monkeypatch.undo()
    monkeypatch.setattr(words, "DEFAULT_GUESSES", tmp_path / "guesses.txt")  # absent
    with pytest.raises(WordListError, match="guesses.txt: cannot read the shipped word list"):
        WordLists.load()


def test_default_lists_counts_order_and_inclusion(capsys):
    lists = WordLists.load()
    assert len(lists.answers) == 2315
    assert len(lists.guesses) == 12972
    assert lists.answers == sorted(lists.answers)
    assert lists.guesses == sorted(lists.guesses)
    assert set(lists.answers) <= set(lists.guesses)
    assert lists.added_answers == 0
    assert capsys.readouterr().err == ""  # nothing to add, so no note
    # The files are already canonical, so the list checksums equal the file checksums
    # (the table cache and the result stores are keyed by these).
    assert lists.answers_sha256 == ANSWERS_SHA256
    assert lists.guesses_sha256 == GUESSES_SHA256


def test_default_lists_index_maps():
    lists = WordLists.load()
    ids = lists.answer_guess_ids
    assert ids.dtype == np.int32 and ids.shape == (2315,)
    assert [lists.guesses[i] for i in ids] == lists.answers
    assert lists.guess_id("SALET ") == lists.guesses.index("salet")
    assert lists.answer_index["abbey"] == lists.answers.index("abbey")
    with pytest.raises(WordListError, match="zzzzz"):
        lists.guess_id("zzzzz")


NYT_SHA256 = {  # data/README.md
    ("nyt", "answers"): "3e443482b78dee0f6f8de4f74dbb67537db781524279b1d40ca3353c592b03ce",
    ("nyt", "guesses"): "ba86911aea83d038d53c0999fe6cbe310c8f59d2b79626c73bd0cd0773adc320",
    ("nyt-2022-08", "answers"): "c495f6cbc36475358a89e30ac16bd5c0c05073c8c7647bb6c35dd01f7bae6e32",
    ("nyt-2022-08", "guesses"): "ba86911aea83d038d53c0999fe6cbe310c8f59d2b79626c73bd0cd0773adc320",
}
SHARED_NYT = Path(__file__).resolve().parents[1].parent / "shared" / "wordlists" / "nyt"


def test_nyt_lists_counts_checksums_and_relations(capsys):
    nyt = WordLists.load(lists="nyt")
    old = WordLists.load(lists="nyt-2022-08")
    original = WordLists.load()
    assert (len(nyt.answers), len(nyt.guesses)) == (3158, 14855)
    assert (len(old.answers), len(old.guesses)) == (2309, 14855)
    for name, lists in (("nyt", nyt), ("nyt-2022-08", old)):
        assert lists.added_answers == 0 and set(lists.answers) <= set(lists.guesses)
        assert lists.answers == sorted(lists.answers) and lists.guesses == sorted(lists.guesses)
        for kind in ("answers", "guesses"):
            data = words.builtin(name).resource(kind).read_bytes()
            assert hashlib.sha256(data).hexdigest() == NYT_SHA256[name, kind]
        assert lists.answers_sha256 == NYT_SHA256[name, "answers"]  # canonical files
    assert capsys.readouterr().err == ""
    # one guess file for both pairs, in the package once
    assert str(words.builtin("nyt-2022-08").resource("guesses")) == str(
        words.builtin("nyt").resource("guesses"))
    # what the lists are (data/README.md): the 2022 answers are the original ones less
    # six words; the guesses grew by 1883 words
    assert set(original.answers) - set(old.answers) == {"agora", "fibre", "lynch",
                                                        "pupal", "slave", "wench"}
    assert set(old.answers) < set(original.answers)
    assert set(original.guesses) < set(nyt.guesses)
    assert len(set(nyt.guesses) - set(original.guesses)) == 1883
    assert len(set(old.answers) - set(nyt.answers)) == 8


def test_length_five_is_still_the_original_lists():
    assert words.builtin(length=5).name == "original"
    assert WordLists.load(length=5).answers == WordLists.load().answers
    with pytest.raises(WordListError, match="'nyt' have 5-letter words, not 6"):
        WordLists.load(lists="nyt", length=6)


@pytest.mark.skipif(not SHARED_NYT.is_dir(), reason="../shared/wordlists/nyt is absent")
@pytest.mark.parametrize("name,kind,ref", [
    ("nyt", "answers", "wordlist_nyt20230701_hidden.txt"),
    ("nyt", "guesses", "wordlist_nyt20220830_all.txt"),
    ("nyt-2022-08", "answers", "wordlist_nyt20220830_hidden.txt"),
])
def test_nyt_lists_are_the_reference_copies(name, kind, ref):
    """The shipped NYT lists (taken from a PyPI package and alex1770/wordle) hold the
    same words, in the same bytes, as the reference copies the published tables used."""
    ours = words.builtin(name).resource(kind).read_bytes()
    theirs = (SHARED_NYT / ref).read_bytes()
    assert set(ours.split()) == set(theirs.split())
    assert hashlib.sha256(ours).hexdigest() == hashlib.sha256(theirs).hexdigest()


def test_encode_words():
    enc = words.encode_words(["abcde", "zzzzy"])
    assert enc.dtype == np.uint8
    assert enc.tolist() == [[0, 1, 2, 3, 4], [25, 25, 25, 25, 24]]


def test_canonical_sha256():
    expected = hashlib.sha256(b"cigar\nrebut\n").hexdigest()
    assert words.canonical_sha256(["cigar", "rebut"]) == expected
    assert words.canonical_sha256(["rebut", "cigar"]) != expected  # order matters


# --- parsing and validation --------------------------------------------------------


def test_parse_trims_lowercases_and_skips_empty_lines():
    text = "  Cigar \n\n\tREBUT\r\n   \nsissy"
    assert parse_words(text) == ["cigar", "rebut", "sissy"]


def test_read_words_handles_crlf_and_no_trailing_newline(tmp_path):
    p = _write(tmp_path, "w.txt", b"cigar\r\nrebut")
    assert read_words(p) == ["cigar", "rebut"]


@pytest.mark.parametrize(
    "bad",
    ["abcd", "abcdef", "ab de", "abc1e", "12345", "na\u00efve", "caf\u00e9s", "ab-de", "a"],
)
def test_bad_word_names_file_and_line(tmp_path, bad):
    p = _write(tmp_path, "list.txt", f"cigar\n\nrebut\n{bad}\nsissy\n")
    with pytest.raises(WordListError) as info:
        read_words(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:4:")  # line numbers count the skipped empty line
    assert bad.strip() in msg


def test_duplicate_names_both_lines(tmp_path):
    p = _write(tmp_path, "dup.txt", "cigar\nrebut\nsissy\nREBUT\n")
    with pytest.raises(WordListError) as info:
        read_words(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:4:")
    assert "duplicate" in msg and "rebut" in msg
    assert "line 2" in msg


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n"])
def test_empty_list(tmp_path, text):
    p = _write(tmp_path, "empty.txt", text)
    with pytest.raises(WordListError, match="empty") as info:
        read_words(p)
    assert str(p) in str(info.value)


def test_missing_file(tmp_path):
    p = tmp_path / "nope.txt"
    with pytest.raises(WordListError) as info:
        read_words(p)
    assert str(info.value).startswith(f"{p}:")


def test_directory_is_unreadable(tmp_path):
    with pytest.raises(WordListError) as info:
        read_words(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}:")


def test_non_utf8_file(tmp_path):
    p = _write(tmp_path, "latin1.txt", "cigar\ncaf\u00e9s\n".encode("latin-1"))
    with pytest.raises(WordListError) as info:
        read_words(p)
    assert str(p) in str(info.value)


def test_parse_words_default_source():
    with pytest.raises(WordListError, match=r"^src:2:"):
        parse_words("cigar\nxx\n", "src")


# --- answers missing from the guess list -------------------------------------------


def test_missing_answers_are_appended_with_a_note(tmp_path, capsys):
    a = _write(tmp_path, "a.txt", "cigar\nzesty\nrebut\nabbey\n")
    g = _write(tmp_path, "g.txt", "rebut\ncigar\nsalet\n")
    lists = WordLists.load(a, g)
    assert lists.added_answers == 2
    # Existing guesses keep their order; missing answers follow in answer order.
    assert lists.guesses == ["rebut", "cigar", "salet", "zesty", "abbey"]
    assert lists.answers == ["cigar", "zesty", "rebut", "abbey"]
    assert [lists.guesses[i] for i in lists.answer_guess_ids] == lists.answers
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "2 answer(s)" in err and str(g) in err


def test_missing_answers_quiet(tmp_path, capsys):
    a = _write(tmp_path, "a.txt", "cigar\nzesty\n")
    g = _write(tmp_path, "g.txt", "cigar\n")
    lists = WordLists.load(a, g, quiet=True)
    assert lists.added_answers == 1
    assert capsys.readouterr().err == ""


def test_from_words_does_not_alias_inputs():
    answers, guesses = ["cigar", "zesty"], ["cigar"]
    lists = WordLists.from_words(answers, guesses)
    assert lists.guesses == ["cigar", "zesty"]
    assert guesses == ["cigar"]  # caller's list untouched
    assert lists.guess_index == {"cigar": 0, "zesty": 1}


def test_checksums_depend_on_the_appended_guesses(tmp_path):
    a = _write(tmp_path, "a.txt", "cigar\nzesty\n")
    g1 = _write(tmp_path, "g1.txt", "cigar\n")
    g2 = _write(tmp_path, "g2.txt", "cigar\nzesty\n")
    l1 = WordLists.load(a, g1, quiet=True)
    l2 = WordLists.load(a, g2, quiet=True)
    # Same effective guess list either way, so the same problem.
    assert l1.guesses == l2.guesses
    assert l1.guesses_sha256 == l2.guesses_sha256
