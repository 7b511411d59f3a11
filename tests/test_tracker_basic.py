"""Tracker basics: lift-and-place, captures, illegal moves, setup, events and LED frames."""

from __future__ import annotations

import pytest
from tracker_helpers import Rig, position

from companion.feedback import PRECEDENCE, FrameSpec, build_frame
from companion.tracker import PieceRestored


def test_lift_and_place_is_accepted_settle_after_the_piece_is_down():
    rig = Rig("brandubh")
    assert rig.tracker.state == "ready"
    rig.lift("d2").place("e2", dt=0.7)
    placed = rig.t
    rig.wait(1)
    (move,) = rig.of("move")
    assert move.data["move"] == "d2-e2"
    assert move.data["side"] == "attackers"
    assert placed < move.t <= placed + 0.3
    assert rig.moves() == ["d2-e2"]
    assert rig.tracker.leds == {"d2": "from", "e2": "to"}
    assert rig.tracker.message == "Defenders to move"


def test_lifted_piece_shows_its_legal_destinations():
    rig = Rig("brandubh")
    rig.lift("d2").wait(0.3)
    assert rig.tracker.state == "lifted"
    targets = sorted(s for s, r in rig.tracker.leds.items() if r == "target")
    assert targets == ["a2", "b2", "c2", "e2", "f2", "g2"]
    rig.place("d2").wait(1)
    assert rig.tracker.state == "ready" and rig.tracker.leds == {}
    assert rig.moves() == []


# attackers b3, f3, d1; defenders c3, e3; the king on f6: d1-d3 takes c3 and e3
CAPTURE = position(7, {"b3": "t", "f3": "t", "d1": "t", "c3": "T", "e3": "T", "f6": "K"})


@pytest.mark.parametrize("order", [("c3", "e3"), ("e3", "c3")])
def test_capture_is_flagged_and_removed_in_any_order(order):
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    (move,) = rig.of("move")
    assert move.to_json()["move"] == "d1-d3xc3xe3"
    assert move.data["captured"] == ["c3", "e3"]
    assert rig.tracker.state == "capture_pending"
    assert rig.tracker.leds == {"c3": "capture", "e3": "capture", "d1": "from", "d3": "to"}
    assert rig.tracker.message == "Lift the captured defenders on c3 and e3"
    for sq in order:
        rig.lift(sq, dt=0.8).wait(0.5)
    assert [e.data["square"] for e in rig.of("removed")] == list(order)
    assert rig.tracker.state == "ready"
    assert rig.tracker.leds == {"d1": "from", "d3": "to"}


@pytest.mark.parametrize(
    ("frm", "to", "words"),
    [
        ("c4", "c3", "turn"),  # a defender moves on the attackers' turn
        ("d2", "e3", "diagonal"),
        ("d1", "d3", "jump"),
        ("f4", "d4", "throne"),
        ("a4", "a7", "corner"),
    ],
)
def test_illegal_moves_are_flagged_and_cleared_once_put_back(frm, to, words):
    pieces = {"d1": "t", "d2": "t", "a4": "t", "f4": "t", "c4": "T", "e5": "K", "d6": "t"}
    rig = Rig("brandubh", position=position(7, pieces), turn="attackers")
    rig.move(frm, to, settle=1.0)
    (ill,) = rig.of("illegal")
    assert words in ill.data["reason"] or words in rig.tracker.message
    assert rig.tracker.state == "illegal"
    assert rig.tracker.leds[to] == "illegal" and rig.tracker.leds[frm] == "setup"
    assert ill.to_json()["leds"] == rig.tracker.leds
    rig.move(to, frm)
    assert rig.tracker.state == "ready" and rig.moves() == []
    assert len(rig.of("illegal")) == 1


def test_event_json_lines():
    e = PieceRestored(12.3100001, 7 * 2 + 4, 7)
    assert e.to_json() == {"t": 12.31, "event": "restored", "square": "e3"}


def test_frame_precedence():
    frame = build_frame(FrameSpec(last_from="a1", last_to="b1", capture=["b1"], target=["a1"],
                                  setup=["c1"], illegal=["c1"], win=["d1"]))
    assert frame == {"a1": "target", "b1": "capture", "c1": "illegal", "d1": "win"}
    assert PRECEDENCE[0] == "win" and PRECEDENCE[-1] == "from"


@pytest.mark.parametrize("variant", ["alea-evangelii", "brandubh"])
def test_a_new_game_of_another_board_size_is_set_up_and_played(variant):
    """A new game of another size (the page's new-game form: Copenhagen to Alea Evangelii or
    Brandubh) once answered 500: the tracker's readings of the old board were indices of the
    old size. The old scan means nothing on the new board: the set-up is guided afresh."""
    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.scan import Scan
    from companion.tracker import Tracker

    old = Game(get_variant("copenhagen"))
    tracker = Tracker(old)
    tracker.feed(Scan(0.0, old.board.occupied_names()))
    tracker.tick(1.0)
    new = Game(get_variant(variant))
    tracker.reset(new, 2.0)  # the sim board still reads the old position
    tracker.feed(Scan(2.5, new.board.occupied_names()))  # now it reads the new one
    tracker.tick(3.5)
    assert tracker.state == "ready"
    frm, to = {"alea-evangelii": ("a6", "b6"), "brandubh": ("d1", "e1")}[variant]
    if variant == "brandubh" and new.turn == "defenders":
        frm, to = "c4", "c5"
    occupied = set(new.board.occupied_names()) - {frm}
    tracker.feed(Scan(4.0, frozenset(occupied)))
    events = tracker.feed(Scan(4.3, frozenset(occupied | {to})))
    events += tracker.tick(5.0)
    assert [e.text for e in events if e.kind == "move"] == [f"{frm}-{to}"]
