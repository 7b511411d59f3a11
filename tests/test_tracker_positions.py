"""Issue 21, the tracker's and the rules' side: a position set up on the board becomes the start
of a game (``Tracker.read_board``, ``companion.rules.start``), and boards that cannot tell the
pieces' kinds ask for a check at natural moments (``Tracker(check_pieces=True)``)."""

from __future__ import annotations

import pytest
from tracker_helpers import Rig, position

from companion.rules import Position, PositionError, get_variant
from companion.rules.game import Game
from companion.rules.start import check_start, placement, start_from_pieces
from companion.squares import parse_square

BRANDUBH = get_variant("brandubh")
COPENHAGEN = get_variant("copenhagen")


def sq(name: str, size: int = 7) -> int:
    return parse_square(name, size)


# -- a legal start -----------------------------------------------------------------------------
def test_a_position_of_pieces_is_a_legal_start():
    pieces = {sq("d4"): "K", sq("c4"): "T", sq("a4"): "t", sq("d1"): "t"}
    pos = start_from_pieces(BRANDUBH, pieces, "defenders")
    assert pos == Position("/3t3/7/7/t1TK3/7/7/7/", "defenders")
    game = Game(BRANDUBH, pos.otn, pos.turn)
    assert game.turn == "defenders" and game.board.piece_at(sq("d4")) == "K"


@pytest.mark.parametrize(("pieces", "turn", "why"), [
    ({"c4": "T", "a4": "t"}, "attackers", "no king"),
    ({"d4": "K", "a1": "t"}, "attackers", "only the king may stop"),  # a soldier on a corner
    ({"d4": "K", "c4": "T", **{f"{f}2": "t" for f in "abcdefg"},
      "a3": "t", "a5": "t"}, "attackers", "9 attackers"),  # brandubh has 8
    ({"a7": "K", "c3": "t"}, "attackers", "already escaped"),
    ({"d4": "K"}, "white", "turn must be"),
])
def test_positions_that_are_no_legal_start_say_why(pieces, turn, why):
    with pytest.raises(PositionError, match=why):
        start_from_pieces(BRANDUBH, {sq(s): p for s, p in pieces.items()}, turn)


def test_a_side_without_a_move_is_no_start():
    pieces = {sq(s, 9): p for s, p in
              {"e5": "K", "e4": "t", "e6": "t", "d5": "t", "f5": "t"}.items()}
    with pytest.raises(PositionError, match="defenders .to move. have no legal move"):
        start_from_pieces(get_variant("tablut"), pieces, "defenders")
    assert start_from_pieces(get_variant("tablut"), pieces, "attackers").turn == "attackers"


def test_encircled_defenders_are_no_start():
    ring = {f"{f}{r}": "t" for f in "cdefghi" for r in (3, 9)} | {
        f"{f}{r}": "t" for f in "ci" for r in range(4, 9)}
    pieces = {sq(s, 11): p for s, p in {**ring, "f6": "K", "e5": "T"}.items()}
    with pytest.raises(PositionError, match="encircled"):
        check_start(COPENHAGEN, Position(placement(11, pieces), "attackers"))


def test_placement_refuses_what_is_not_a_piece():
    with pytest.raises(PositionError, match="two kings"):
        placement(7, {0 + 8: "K", 10: "K"})
    with pytest.raises(PositionError, match="unknown piece"):
        placement(7, {10: "Q"})
    with pytest.raises(PositionError, match="off the"):
        placement(7, {49: "t"})


# -- reading the board as a new position -------------------------------------------------------
def test_the_board_defines_the_position_then_play_starts_from_it():
    rig = Rig("brandubh")
    rig.take(rig.tracker.read_board(True, rig.t))
    assert rig.tracker.state == "reading" and rig.tracker.leds == {}
    # clear the board down to an endgame, slowly and in any order: nothing is judged
    keep = {"d4", "c4", "a4", "d1"}
    for s in sorted(rig.occ - keep):
        rig.lift(s, dt=0.3)
    rig.wait(2)
    assert not rig.of("illegal") and not rig.of("warning") and not rig.of("setup")
    g = rig.tracker.guidance.to_json()
    assert g["kind"] == "reading" and g["squares"] == ["a4", "c4", "d1", "d4"]
    reading = rig.tracker.reading
    assert reading.still and {rig.game.board.name(s) for s in reading.occupied} == keep
    # the page says which piece is which (a reed board cannot) and who moves
    kinds = {"d4": "K", "c4": "T", "a4": "t", "d1": "t"}
    pos = start_from_pieces(BRANDUBH, {sq(s): kinds[s] for s in keep}, "defenders")
    mark = rig.mark()
    rig.reset(Game(BRANDUBH, pos.otn, pos.turn))
    rig.wait(1)
    assert [e.kind for e in rig.since(mark) if e.kind != "leds"] == ["ready"]
    assert rig.tracker.state == "ready" and rig.tracker.guidance.data == {"side": "defenders"}
    rig.move("c4", "c6")
    assert rig.moves() == ["c4-c6"]


def test_colours_read_on_a_hall_board_are_in_the_reading():
    colours = {s: "a" for s in ("a4", "b4", "d1", "d2", "d6", "d7", "e4", "f4", "g4")}
    rig = Rig("brandubh", colours={**colours, **{s: "d" for s in ("c4", "d3", "d4", "d5")}})
    rig.take(rig.tracker.read_board(True, rig.t))
    reading = rig.tracker.reading
    assert reading.colours[sq("d4")] == "d" and reading.colours[sq("a4")] == "a"
    assert rig.tracker.guidance.data["colours"]["a4"] == "a"


def test_ending_the_reading_without_a_new_game_guides_back_to_the_game():
    rig = Rig("brandubh")
    rig.take(rig.tracker.read_board(True, rig.t))
    rig.lift("a4", dt=0.3).wait(1)
    assert not rig.of("setup")
    rig.take(rig.tracker.read_board(False, rig.t))
    assert rig.tracker.state == "setup" and rig.tracker.guidance.data["fill"] == {"a4": "t"}
    rig.place("a4").wait(1)
    assert rig.tracker.state == "ready"


# -- boards that cannot tell colours: checks at natural moments ---------------------------------
def test_no_check_unless_asked_for():
    rig = Rig("brandubh")
    rig.wait(1)
    assert rig.tracker.guidance.kind == "to_move"


def test_a_check_after_the_set_up_ends_with_the_first_move():
    rig = Rig("brandubh", check_pieces=True)
    rig.wait(1)
    g = rig.tracker.guidance.to_json()
    assert g["kind"] == "check_pieces" and g["reason"] == "setup" and g["side"] == "attackers"
    assert g["squares"] == ["c4", "d3", "d4", "d5", "e4"] and g["pieces"] == ["T", "T", "K",
                                                                             "T", "T"]
    assert {s for s, r in rig.tracker.leds.items() if r == "check"} == set(g["squares"])
    assert rig.tracker.state == "ready"
    assert rig.tracker.message.startswith("The board is set up: check the pieces: defenders on")
    rig.move("d2", "e2")
    assert rig.moves() == ["d2-e2"] and rig.tracker.guidance.kind == "to_move"
    assert "check" not in rig.tracker.leds.values()


def test_a_takeback_asks_again_and_checked_ends_it():
    rig = Rig("brandubh", check_pieces=True)
    rig.wait(1)
    rig.take(rig.tracker.checked(rig.t))
    assert rig.tracker.guidance.kind == "to_move"
    rig.move("d2", "e2").move("e2", "d2", settle=1.5)  # put back: taken back
    assert rig.of("takeback") and rig.moves() == []
    assert rig.tracker.guidance.to_json()["reason"] == "takeback"
    rig.take(rig.tracker.checked(rig.t))
    assert rig.tracker.guidance.kind == "to_move"


def test_a_restart_in_the_middle_of_a_game_asks_for_a_check():
    game = Game(BRANDUBH)
    game.play_text("d2-e2")
    rig = Rig("brandubh", position=None, check_pieces=True)
    rig.reset(game)
    rig.change(off=("d2",)).change(on=("e2",)).wait(1)
    assert rig.tracker.guidance.to_json()["reason"] == "resume"


def test_pieces_kinds_are_the_models_not_the_start():
    """The check shows where the game believes the defenders are (after captures too)."""
    pieces = {"b3": "t", "f3": "t", "d1": "t", "c3": "T", "e3": "T", "f6": "K"}
    rig = Rig("brandubh", position=position(7, pieces), turn="attackers", check_pieces=True)
    rig.wait(1)
    assert rig.tracker.guidance.data["squares"] == ["c3", "e3", "f6"]


# -- a new game of another size ------------------------------------------------------------------
@pytest.mark.parametrize(("first", "then"), [("copenhagen", "brandubh"), ("brandubh", "tablut"),
                                             ("tablut", "alea-evangelii")])
def test_a_new_game_on_a_board_of_another_size(first, then):
    """The session resets the tracker with a game of another variant: the tracker goes on at
    that size (it guides the set-up in that board's squares, then play starts)."""
    rig = Rig(first)
    rig.wait(1)
    game = Game(get_variant(then))
    rig.reset(game)
    g = rig.tracker.guidance.to_json()
    assert g["kind"] == "setup"
    size = game.rules.size
    want = set(game.board.occupied_names())
    assert set(g["fill"]) == want - rig.occ
    assert set(g["clear"]) == {s for s in rig.occ - want if _on(s, size)}  # off it: not read
    rig.change(off=tuple(rig.occ - want), on=tuple(want - rig.occ)).wait(1)
    assert rig.tracker.state == "ready" and rig.tracker.leds == {}
    first_move = next(m for m in game.board.legal_moves())
    rig.move(game.board.name(first_move.frm), game.board.name(first_move.to))
    assert len(rig.moves()) == 1


def _on(name: str, size: int) -> bool:
    f, r = ord(name[0]) - 97, int(name[1:]) - 1
    return f < size and r < size
