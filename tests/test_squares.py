"""The one square vocabulary (companion.squares): strict, canonical, round-tripping, and used by
every place that reads a square name from outside."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import Board, Move, get_variant
from companion.rules.board import MoveError
from companion.squares import (
    MAX_SIZE,
    SquareError,
    coords_name,
    file_letter,
    is_square_name,
    parse_coords,
    parse_square,
    square_name,
    square_names,
)
from companion.tracker.square_relations import grid_for

CANONICAL = re.compile(r"[a-z][1-9][0-9]?")


def canonical_on(text: str, size: int) -> bool:
    """The specification, written independently: lower-case ASCII letter, ASCII rank without a
    leading zero, both on the board."""
    if not CANONICAL.fullmatch(text) or not text.isascii():
        return False
    return ord(text[0]) - 97 < size and int(text[1:]) <= size


@pytest.mark.parametrize("size", [7, 9, 11, 13, 19, 26])
def test_every_square_round_trips(size):
    names = square_names(size)
    assert len(names) == len(set(names)) == size * size
    assert names[0] == "a1" and names[size - 1] == f"{file_letter(size - 1)}1"
    assert names[-1] == f"{file_letter(size - 1)}{size}"
    for i, name in enumerate(names):
        f, r = parse_coords(name, size)
        assert (f, r) == (i % size, i // size)
        assert coords_name(f, r, size) == name
        assert parse_square(name, size) == i and square_name(i, size) == name
        assert is_square_name(name, size)


@pytest.mark.parametrize("text, words", [
    ("d01", "may not start with 0"),
    ("a0", "may not start with 0"),
    ("A1", "lower-case"),
    ("K11", "lower-case"),
    (" a1", "whitespace"),
    ("a1 ", "whitespace"),
    ("a1\n", "whitespace"),
    ("a 1", "whitespace"),
    ("a１", "non-ASCII"),      # full-width digit one
    ("a๑", "non-ASCII"),       # Thai digit one
    ("a١", "non-ASCII"),       # Arabic-Indic digit one
    ("İ1", "non-ASCII"),       # dotted capital I (lower() gives "i̇")
    ("ａ1", "non-ASCII"),      # full-width a
    ("a²", "non-ASCII"),       # superscript two (str.isdigit() is true for it)
    ("a+1", "digits only"),
    ("a-1", "digits only"),
    ("a1.0", "digits only"),
    ("a_1", "digits only"),
    ("1a", "file letter"),
    ("", "empty"),
    ("a", "no rank"),
    ("a123", "beyond the largest board"),
])
def test_non_canonical_names_are_refused_with_a_clear_message(text, words):
    with pytest.raises(SquareError) as err:
        parse_coords(text, 19)
    message = str(err.value)
    assert words in message
    assert repr(text) in message or not text  # the message names the bad text
    assert not is_square_name(text)


@pytest.mark.parametrize("value", [None, 3, 3.0, b"a1", ["a1"], ("a", 1)])
def test_non_text_is_refused(value):
    with pytest.raises(SquareError, match="must be text"):
        parse_coords(value, 11)  # type: ignore[arg-type]
    assert not is_square_name(value)


def test_off_the_board():
    with pytest.raises(SquareError, match=r"'h2' is off the 7x7 board"):
        parse_coords("h2", 7)
    with pytest.raises(SquareError, match=r"'a8' is off the 7x7 board"):
        parse_square("a8", 7)
    with pytest.raises(SquareError):
        coords_name(7, 0, 7)
    with pytest.raises(SquareError):
        coords_name(-1, 0, 7)
    with pytest.raises(SquareError):
        square_name(49, 7)
    with pytest.raises(SquareError):
        square_name(True, 7)  # type: ignore[arg-type]
    with pytest.raises(SquareError):
        square_names(27)


def test_squareerror_is_a_valueerror():
    assert issubclass(SquareError, ValueError)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=5), st.sampled_from([7, 11, 19]))
def test_any_text_is_accepted_exactly_when_canonical(text, size):
    ok = canonical_on(text, size)
    assert is_square_name(text, size) == ok
    if ok:
        assert coords_name(*parse_coords(text, size), size) == text
    else:
        with pytest.raises(SquareError):
            parse_coords(text, size)


# Every character Unicode calls a digit or a letter, but only the ASCII ones are allowed.
ODD_DIGITS = [chr(c) for c in range(0x80, 0x10000)
              if unicodedata.category(chr(c)) in ("Nd", "No", "Nl")]
ODD_LETTERS = [chr(c) for c in range(0x80, 0x3000) if chr(c).isalpha()]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from("abcdefghijk"), st.integers(1, 11), st.data())
def test_odd_unicode_digits_and_forms_are_refused(letter, rank, data):
    name = f"{letter}{rank}"
    assert parse_coords(name, 11)
    i = data.draw(st.integers(1, len(name) - 1))
    odd = data.draw(st.sampled_from(ODD_DIGITS))
    with pytest.raises(SquareError, match="non-ASCII"):
        parse_coords(name[:i] + odd + name[i + 1:], 11)
    with pytest.raises(SquareError, match="non-ASCII"):
        parse_coords(data.draw(st.sampled_from(ODD_LETTERS)) + name[1:], 11)
    for form in ("NFKD", "NFKC"):  # compatibility forms of plain ASCII stay the same text
        assert unicodedata.normalize(form, name) == name
    wide = "".join(chr(ord(c) + 0xFEE0) for c in name)  # full-width forms
    with pytest.raises(SquareError):
        parse_coords(wide, 11)
    with pytest.raises(SquareError):
        parse_coords(name.upper(), 11)
    with pytest.raises(SquareError):
        parse_coords(f"{letter}0{rank}", 11)


def test_the_trackers_lines_on_indices():
    grid = grid_for(7)

    def line(a: str, b: str, extend: int = 0) -> list[str]:
        return [grid.name(s) for s in grid.line(grid.parse(a), grid.parse(b), extend)]

    assert line("c1", "c4") == ["c1", "c2", "c3", "c4"]
    assert line("c1", "c4", extend=1) == ["c1", "c2", "c3", "c4", "c5"]
    assert line("e3", "b3", extend=1) == ["f3", "e3", "d3", "c3", "b3", "a3"]
    assert line("d4", "d4", extend=1) == ["d4"]
    with pytest.raises(SquareError):
        line("a1", "b2")
    assert grid.touching(grid.parse("c3"), grid.parse("d4"))
    assert not grid.touching(grid.parse("c3"), grid.parse("c3"))
    assert not grid.touching(grid.parse("g1"), grid.parse("a2"))  # not across the edge
    assert grid.sort([grid.parse(n) for n in ("a2", "a1", "b1")]) == [
        grid.parse(n) for n in ("a1", "a2", "b1")]  # name order


def test_the_rules_core_uses_the_strict_vocabulary():
    board = Board(get_variant("brandubh"))
    assert board.parse_move("d4-d3")[0] == Move(3 * 7 + 3, 2 * 7 + 3)
    for bad in ("D4", " d4", "d04", "d４", "h1"):
        with pytest.raises(MoveError, match=re.escape(repr(bad))):
            board.parse_move(f"{bad}-d3")
    with pytest.raises(TypeError):  # inside, squares are ints: a name is a caller's bug
        board.piece_at("d4")  # type: ignore[arg-type]
    assert MAX_SIZE >= 19
