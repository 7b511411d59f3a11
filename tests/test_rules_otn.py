"""OTN positions: parsing, writing and the errors for malformed text."""

from __future__ import annotations

import pytest

from companion.rules import PRESETS, Board, PositionError, format_otn, parse_otn

BRANDUBH = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


def test_first_record_is_rank_1():
    att, dfn, king = parse_otn("/t6/7/7/3K3/7/7/6T/", 7)
    assert att == 1 << 0  # a1
    assert dfn == 1 << (6 * 7 + 6)  # g7
    assert king == 3 * 7 + 3  # d4
    assert format_otn(att, dfn, king, 7) == "/t6/7/7/3K3/7/7/6T/"


def test_slashes_and_spaces_around_are_optional():
    want = parse_otn(BRANDUBH, 7)
    assert parse_otn(BRANDUBH.strip("/"), 7) == want
    assert parse_otn(f"  {BRANDUBH}\n", 7) == want


def test_multi_digit_runs():
    rows = ["19"] * 9 + ["9K9"] + ["19"] * 8 + ["t18"]
    att, _, king = parse_otn("/" + "/".join(rows) + "/", 19)
    assert king == 9 * 19 + 9 and att == 1 << (18 * 19)


MALFORMED = [
    # label, text, words the message must contain
    ("too few rows", "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/", ["6 rows", "7"]),
    ("too many rows", BRANDUBH + "7/", ["8 rows"]),
    ("row too long (piece)", "/3t3/3t3/3T3/ttTKTttt/3T3/3t3/3t3/", ["row 4", "character 8"]),
    ("row too long (run)", "/3t3/3t4/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "character 3"]),
    ("row too short", "/3t3/3t2/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "too short", "character 3"]),
    ("empty row", "/3t3//3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "too short"]),
    ("bad character", "/3t3/3t3/3T3/ttTKTtx/3T3/3t3/3t3/", ["row 4", "'x'", "character 7"]),
    ("lower-case king", "/3t3/3t3/3T3/ttTkTtt/3T3/3t3/3t3/", ["row 4", "'k'", "character 4"]),
    ("space inside", "/3t3/3t 3/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "character 3"]),
    ("two kings", "/3t3/3K3/3T3/ttTKTtt/3T3/3t3/3t3/",
     ["two kings", "row 4 character 4", "row 2 character 2"]),
    ("zero run", "/3t3/3t0t2/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "character 3", "0"]),
    ("leading zero", "/3t3/3t03/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "character 3"]),
    ("non-ASCII digit", "/3t3/3t²/3T3/ttTKTtt/3T3/3t3/3t3/", ["row 2", "character 3"]),
]


@pytest.mark.parametrize("label,text,words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_positions(label, text, words):
    with pytest.raises(PositionError) as info:
        parse_otn(text, 7)
    message = str(info.value)
    for word in words:
        assert word in message, (label, message)
    assert "\n" not in message


@pytest.mark.parametrize("text", ["", "   ", "/"])
def test_empty_positions(text):
    with pytest.raises(PositionError):
        parse_otn(text, 7)


def test_board_rejects_soldiers_on_restricted_squares_and_bad_turns():
    with pytest.raises(PositionError, match="throne d4"):
        Board(PRESETS["brandubh"], "/3t3/3t3/3T3/ttTTTtt/3T3/3t3/3K3/")
    with pytest.raises(PositionError, match="corner a1"):
        Board(PRESETS["brandubh"], "/t6/7/7/3K3/7/7/7/")
    with pytest.raises(PositionError, match="turn"):
        Board(PRESETS["brandubh"], BRANDUBH, "white")
    # ordinary squares where there are no corners or throne
    Board(PRESETS["tawlbwrdd"], "/t10/11/11/11/11/5t4K/11/11/11/11/11/")
    Board(PRESETS["ard-ri"], "/t6/7/7/3K3/7/7/7/")


def test_a_position_without_king_is_a_finished_game():
    b = Board(PRESETS["brandubh"], "/3t3/3t3/3T3/ttT1Ttt/3T3/3t3/3t3/")
    assert b.king == -1 and b.outcome().result == "attackers"
    assert b.legal_moves() == []
