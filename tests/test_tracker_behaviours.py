"""Named tracker behaviours, driven scan by scan with exact checks of events, LEDs and text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tracker_helpers import Rig, position

from companion.rules import get_variant
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Tracker

# Brandubh, attackers to move: a slide f4-f1 passes f2, where it would capture e2 (with d2).
REVISE = position(7, {"d2": "t", "e2": "T", "f4": "t", "d4": "K", "b6": "T"})
# attackers b3, f3, d1; defenders c3, e3; the king on f6: d1-d3 takes c3 and e3
CAPTURE = position(7, {"b3": "t", "f3": "t", "d1": "t", "c3": "T", "e3": "T", "f6": "K"})


def slide(rig: Rig, squares: list[str], step: float = 0.08) -> Rig:
    """Slide a piece along ``squares``: each next switch closes just before the last opens."""
    rig.change(on=(squares[1],), dt=0.5)
    rig.change(off=(squares[0],), dt=0.01)
    for a, b in zip(squares[1:], squares[2:]):
        rig.change(on=(b,), dt=step)
        rig.change(off=(a,), dt=0.01)
    return rig


def test_slide_accepts_only_the_destination_exactly_settle_after_it():
    rig = Rig("brandubh")
    slide(rig, ["d2", "c2", "b2"])
    placed = rig.t - 0.01  # b2 closed one scan before c2 opened
    rig.wait(1)
    (move,) = rig.of("move")
    assert move.data["move"] == "d2-b2"
    assert move.t == pytest.approx(rig.tracker.settle + placed + 0.01)


def test_slow_slide_paused_on_a_capturing_square_is_revised_and_capture_withdrawn():
    rig = Rig("brandubh", position=REVISE, turn="attackers")
    rig.change(on=("f3",), dt=0.5).change(off=("f4",), dt=0.01)
    rig.change(on=("f2",), dt=0.1).change(off=("f3",), dt=0.01)
    rig.wait(0.6)  # paused on f2 long enough to be accepted there
    (move,) = rig.of("move")
    assert move.data["move"] == "f4-f2xe2"
    assert rig.tracker.leds["e2"] == "capture" and rig.tracker.state == "capture_pending"
    rig.change(on=("f1",)).change(off=("f2",), dt=0.02).wait(1)
    (rev,) = rig.of("revised")
    assert rev.data["move"] == "f4-f1" and rev.data["replaces"] == "f4-f2xe2"
    assert rev.data["captured"] == []
    assert rig.moves() == ["f4-f1"]
    assert "e2" not in rig.tracker.leds and rig.tracker.state == "ready"


def test_revision_stops_once_the_opponent_has_started():
    rig = Rig("brandubh", position=REVISE, turn="attackers")
    rig.move("f4", "f3")
    rig.lift("e2").place("e2")  # the defenders pick up a piece and put it back
    rig.move("f3", "f1")  # the attacker moves on: an illegal move now, not a revision
    assert rig.moves() == ["f4-f3"]
    assert not rig.of("revised")
    assert rig.tracker.state == "illegal"
    assert "defenders' turn" in rig.of("illegal")[0].data["reason"]


def test_bounce_and_crosstalk_never_make_events():
    rig = Rig("brandubh")
    for _ in range(3):  # bounce on a lift that is put straight back
        rig.change(off=("d2",), dt=0.02).change(on=("d2",), dt=0.02)
    rig.change(on=("e3",), dt=0.05).change(off=("e3",), dt=0.04)  # a magnet passing e3
    rig.wait(2)
    assert [e.kind for e in rig.events] == ["ready"]
    assert rig.tracker.leds == {} and rig.tracker.state == "ready"


def test_piece_put_down_briefly_is_not_accepted_before_it_settles():
    rig = Rig("brandubh")
    rig.lift("d2")
    for sq in ("e2", "f2"):  # touches down for 0.15 s each, lifted again
        rig.place(sq, dt=0.3).lift(sq, dt=0.15)
    assert not rig.of("move")
    rig.place("c2", dt=0.3).wait(1)
    assert rig.moves() == ["d2-c2"]


def test_captures_removed_late_and_after_a_wrong_piece():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    rig.lift("f3", dt=0.5).wait(1.0)  # the capturing side lifts its own piece: not captured
    (warn,) = rig.of("warning")
    assert "f3" in warn.data["reason"]
    assert rig.tracker.state == "warning"
    assert rig.tracker.message == ("Wrong piece: put the attacker back on f3, then lift the "
                                   "captured defenders on c3 and e3")
    assert rig.tracker.leds["f3"] == "setup" and rig.tracker.leds["c3"] == "capture"
    rig.place("f3", dt=0.1).wait(0.5)
    assert rig.tracker.state == "capture_pending"
    rig.lift("e3", dt=5.0).lift("c3", dt=0.3).wait(1)
    assert [e.data["square"] for e in rig.of("removed")] == ["e3", "c3"]
    assert len(rig.of("warning")) == 1


def test_opponent_lifting_before_captures_are_off_is_warned_then_move_counts():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    rig.lift("f6", dt=0.3).wait(1)
    assert rig.tracker.message == "Remove the captured defenders on c3 and e3 first"
    assert len(rig.of("warning")) == 1
    rig.lift("c3").lift("e3").place("f5").wait(1)
    assert rig.moves() == ["d1-d3xc3xe3", "f6-f5"]


def test_move_while_captures_pending_is_illegal_until_they_are_removed():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    rig.move("f6", "f5")
    (ill,) = rig.of("illegal")
    assert "captured" in ill.data["reason"]
    assert ill.data["leds"]["f5"] == "illegal" and ill.data["leds"]["f6"] == "setup"
    assert rig.moves() == ["d1-d3xc3xe3"]
    rig.lift("c3").lift("e3").wait(1)
    assert rig.moves() == ["d1-d3xc3xe3", "f6-f5"]
    assert rig.tracker.state == "ready"


def test_illegal_restricted_square_message_and_recovery():
    rig = Rig("brandubh", position=position(7, {"f4": "t", "e5": "K", "c6": "T"}),
              turn="attackers")
    rig.move("f4", "d4")
    assert rig.tracker.message == ("Illegal: only the king may stop on the throne (d4) — put "
                                   "the piece back on f4")
    assert rig.tracker.state == "illegal"
    rig.lift("d4").wait(0.5)
    assert rig.tracker.state == "lifted"  # back in hand: not illegal any more
    rig.place("f2").wait(1)
    assert rig.moves() == ["f4-f2"]
    assert len(rig.of("illegal")) == 1


def test_knocked_piece_that_falls_back_is_ignored():
    rig = Rig("brandubh")
    rig.lift("d2", dt=0.5).change(off=("d1",), dt=0.05).change(on=("d1",), dt=0.1)
    rig.place("e2", dt=0.4).wait(1)
    assert rig.moves() == ["d2-e2"] and not rig.of("warning")


def test_knocked_onto_another_square_warns_with_guidance():
    rig = Rig("brandubh")
    rig.lift("g4", dt=0.5).change(off=("e4",), dt=0.05).change(on=("e5",), dt=0.04)
    rig.place("g2", dt=0.3).wait(1)
    assert rig.moves() == ["g4-g2"]
    (warn,) = rig.of("warning")
    assert rig.tracker.message == "Knocked piece: put the defender from e5 back on e4"
    assert rig.tracker.leds["e4"] == "setup" and rig.tracker.leds["e5"] == "setup"
    rig.change(off=("e5",), dt=0.5).change(on=("e4",), dt=0.05).wait(1)
    assert rig.tracker.state == "ready" and len(rig.of("warning")) == 1
    assert warn.to_json()["reason"] == "a defender was knocked from e4 to e5"


def test_start_position_check_with_guidance():
    rules = get_variant("brandubh")
    start = set(Game(rules).board.occupied_names())
    rig = Rig("brandubh", occupied=(start - {"d7", "a4"}) | {"e6"})
    assert rig.tracker.state == "setup"
    (setup,) = rig.of("setup")
    assert setup.data["fill"] == ["a4", "d7"] and setup.data["clear"] == ["e6"]
    assert rig.tracker.message == "Setup: place attackers on a4 and d7; clear e6"
    assert rig.tracker.leds == {"a4": "setup", "d7": "setup", "e6": "setup"}
    rig.place("a4").place("d7").lift("e6")
    assert rig.tracker.state == "setup"  # matches, but not yet settled
    rig.wait(0.5)
    assert rig.tracker.state == "ready" and rig.tracker.leds == {}
    assert len(rig.of("ready")) == 1
    rig.move("d2", "e2")
    assert rig.moves() == ["d2-e2"]


def test_empty_board_setup_counts_pieces():
    rig = Rig("copenhagen", occupied=set())
    assert rig.tracker.message == ("Setup: place 24 attackers, 12 defenders and the king on the "
                                   "lit squares")
    assert len(rig.tracker.leds) == 37


def test_game_over_lights_the_winners_pieces():
    path = Path(__file__).parent / "traces" / "game_over.jsonl"
    from companion.replay import run_trace
    from companion.trace import read_trace

    trace = read_trace(path)
    tracker = Tracker(Game(trace.rules))
    game, events = run_trace(trace, tracker)
    over = next(e for e in events if e.kind == "game_over")
    assert over.data["result"] == "attackers" and over.data["reason"] == "king_captured"
    move = [e for e in events if e.kind == "move"][-1]
    assert move.data["captured"] == ["e3", "f4"]  # the king included
    assert tracker.state == "over" and game.result == "attackers"
    attackers = set(game.board.pieces("attackers"))
    wins = {sq for sq, role in tracker.leds.items() if role == "win"}
    assert wins == {game.board.name(s) for s in attackers}
    assert tracker.message.startswith("Game over: Attackers win")


@pytest.mark.parametrize("pieces_first", [False, True])
def test_takeback_by_restoring_the_board(pieces_first):
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3").lift("c3").lift("e3").wait(1)
    if pieces_first:
        rig.place("c3").place("e3").wait(0.5)
        assert [e.data["square"] for e in rig.of("restored")] == ["c3"] + ["e3"]
        assert rig.tracker.state == "capture_pending"
        rig.lift("d3", dt=0.5).place("d1", dt=0.3).wait(1)
    else:
        rig.lift("d3", dt=0.5).place("d1", dt=0.3).wait(0.5)
        assert rig.tracker.state == "takeback"
        assert rig.tracker.message == "Takeback: put the captured defenders on c3 and e3 back"
        rig.place("c3").place("e3").wait(1)
    (tb,) = rig.of("takeback")
    assert tb.data["move"] == "d1-d3xc3xe3"
    assert rig.moves() == [] and rig.tracker.state == "ready"
    assert not rig.of("warning") and not rig.of("illegal")
    rig.move("d1", "d2")
    assert rig.moves() == ["d1-d2"]


def test_reset_after_a_takeback_from_the_page_guides_the_board_back():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3").lift("c3").lift("e3").wait(1)
    rig.game.undo()
    events = rig.reset()
    assert rig.tracker.state == "setup"
    assert [e.kind for e in events if e.kind != "leds"] == ["setup"]
    # the piece goes home as a move (issue 26, 4), the captured ones are put back
    assert rig.tracker.message == "Takeback: move the attacker from d3 back to d1; place " \
        "defenders on c3 and e3"
    assert rig.tracker.leds["d3"] == "make_from" and rig.tracker.leds["d1"] == "make_to"
    rig.lift("d3").place("d1").place("c3").place("e3").wait(1)
    assert rig.tracker.state == "ready"


def test_reset_to_a_new_game_and_resume():
    rig = Rig("brandubh")
    rig.move("d2", "e2")
    fresh = Game(get_variant("brandubh"))
    rig.reset(fresh)
    assert rig.tracker.moves == () and rig.tracker.state == "setup"
    rig.move("e2", "d2")
    assert rig.tracker.state == "ready" and fresh.moves == []
    resumed = Game(get_variant("brandubh"))
    resumed.play_text("d2-e2")
    rig.reset(resumed)
    assert rig.tracker.state == "setup"
    rig.move("d2", "e2")
    assert rig.tracker.state == "ready"
    assert rig.tracker.leds == {"d2": "from", "e2": "to"}
    rig.move("c4", "c5")
    assert resumed.moves == ["d2-e2", "c4-c5"]


def test_ticks_before_the_deadline_do_nothing_and_acceptance_is_exact():
    game = Game(get_variant("brandubh"))
    tracker = Tracker(game, settle=0.25)
    occ = set(game.board.occupied_names())
    tracker.feed(Scan(0.0, frozenset(occ)))
    occ.discard("d2")
    tracker.feed(Scan(1.0, frozenset(occ)))
    occ.add("e2")
    tracker.feed(Scan(2.0, frozenset(occ)))
    assert tracker.deadline == pytest.approx(2.25)
    assert tracker.tick(2.2) == []
    events = tracker.tick(2.25)
    assert [e.kind for e in events] == ["move", "leds"]
    assert tracker.deadline is None


def test_tracker_is_pure():
    src = "".join(p.read_text() for p in (Path(__file__).parent.parent / "companion" /
                                          "tracker").glob("*.py"))
    for banned in (r"import time", r"datetime", r"\bsleep\(", r"(?<![\w.])open\(",
                   r"import os", r"\bprint\("):
        assert not re.search(banned, src), banned


def test_resignation_from_the_page_stops_move_acceptance():
    rig = Rig("brandubh")
    rig.move("d2", "e2")
    rig.game.resign("defenders")
    rig.reset()
    rig.move("c4", "c5")
    assert rig.moves() == ["d2-e2"] and rig.tracker.state == "over"
    assert rig.tracker.message.startswith("Game over: Attackers win (a player resigned)")


def test_polarity_setup_names_the_wrong_kind_of_piece():
    rules = get_variant("brandubh")
    board = Game(rules).board
    colours = {board.name(s): ("a" if board.piece_at(s) == "t" else "d")
               for s in board.occupied_squares()}
    colours["d5"] = "a"  # an attacker stands where a defender belongs
    rig = Rig("brandubh", colours=colours)
    assert rig.tracker.state == "setup"
    assert rig.tracker.message == "Setup: d5 should hold a defender"
    assert rig.tracker.leds == {"d5": "setup"}
    rig.lift("d5").place("d5", colour="d").wait(1)
    assert rig.tracker.state == "ready"


def test_polarity_rejects_a_move_that_puts_down_the_wrong_kind_of_piece():
    rules = get_variant("brandubh")
    board = Game(rules).board
    colours = {board.name(s): ("a" if board.piece_at(s) == "t" else "d")
               for s in board.occupied_squares()}
    rig = Rig("brandubh", colours=colours)
    rig.lift("d2").place("e2", colour="d").wait(1)
    assert rig.moves() == [] and rig.tracker.state == "illegal"
    assert "defender" in rig.of("illegal")[0].data["reason"]
    rig.lift("e2").place("e2", colour="a").wait(1)
    assert rig.moves() == ["d2-e2"] and rig.tracker.state == "ready"
