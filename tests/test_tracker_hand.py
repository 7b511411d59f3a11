"""Whose hand did it (issue 10): a quick one-square move of an opponent's piece is illegal, not a
knock; a knock needs a hand busy with another piece; an accepted move is revised only while the
mover's hand is still on the piece; re-seats are nothing. Scan by scan, then a few hundred
simulated games per behaviour on every preset."""

from __future__ import annotations

import pytest
from tracker_games import run_games
from tracker_helpers import Rig, position

from companion.rules import PRESETS
from companion.simulator import Profile

# Brandubh, attackers to move. Attackers d1, d2, a3, b6; defenders c4, e4 (beside the empty
# throne d4), e6; the king on f5.
OPEN = position(7, {"d1": "t", "d2": "t", "a3": "t", "b6": "t", "c4": "T", "e4": "T",
                    "e6": "T", "f5": "K"})


def slide(rig: Rig, frm: str, to: str, dt: float = 0.5) -> Rig:
    """A one-square slide: the destination closes just before the origin opens (60 ms)."""
    return rig.change(on=(to,), dt=dt).change(off=(frm,), dt=0.06)


# -- case 1: a quick one-square move of an opponent's piece ------------------------------------
@pytest.mark.parametrize("how", ["lift", "slide", "slow"])
def test_a_quick_step_of_an_opponents_piece_is_illegal_not_a_knock(how):
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    if how == "lift":
        rig.lift("e6").place("e7", dt=0.1)  # lifted and put down 0.1 s later
    elif how == "slow":
        rig.lift("e6").place("e7", dt=0.65)  # a slow hand: no "lifted out of turn" first
    else:
        slide(rig, "e6", "e7")
    rig.wait(1.5)  # left there, nothing else touched
    assert not rig.of("warning")
    (ill,) = rig.of("illegal")
    assert ill.data["code"] == "not_your_turn"
    assert ill.data["reason"] == "it is the attackers' turn, and that piece belongs to the " \
        "defenders"
    assert rig.tracker.leds == {"e6": "setup", "e7": "illegal"}
    assert rig.tracker.message.endswith("put the piece back on e6")
    rig.lift("e7").place("e6", dt=0.4).wait(1)  # put back, slowly: not flagged again
    assert rig.tracker.state == "ready" and len(rig.of("illegal")) == 1
    assert not rig.of("warning") and rig.moves() == []


@pytest.mark.parametrize("square", ["d4", "a7"])
def test_a_soldier_slid_one_square_onto_the_throne_or_a_corner_is_illegal(square):
    pieces = {"d1": "t", "d2": "t", "a6": "t", "c4": "T", "e4": "T", "f5": "K", "b2": "T"}
    turn = "defenders" if square == "d4" else "attackers"
    rig = Rig("brandubh", position=position(7, pieces), turn=turn)
    frm = "c4" if square == "d4" else "a6"
    slide(rig, frm, square).wait(1.5)
    (ill,) = rig.of("illegal")
    assert ill.data["code"] == ("throne_stop" if square == "d4" else "corner_stop")
    assert not rig.of("warning") and rig.moves() == []


def test_a_piece_knocked_while_the_movers_piece_is_in_the_air_is_a_knock():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("b6")
    rig.change(off=("e6",), dt=0.05).change(on=("f7",), dt=0.04)  # the hand brushes e6
    rig.place("b7", dt=0.5).wait(0.3)
    assert rig.moves() == ["b6-b7"]
    rig.wait(1)
    (warn,) = rig.of("warning")
    assert warn.data["code"] == "knocked" and warn.data["knocks"] == [
        {"from": "e6", "to": "f7", "piece": "T"}]
    assert not rig.of("illegal")


def test_a_piece_knocked_as_the_movers_piece_is_put_down_is_a_knock():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("b6").place("b7", dt=0.4)
    placed = rig.t
    rig.change(off=("e6",), dt=0.05).change(on=("f7",), dt=0.04)
    rig.wait(2)
    (move,) = rig.of("move")
    assert move.data["move"] == "b6-b7" and move.t - placed <= 0.2 + 1e-9
    (warn,) = rig.of("warning")
    assert warn.data["code"] == "knocked" and not rig.of("illegal")


def test_a_neighbour_moved_just_after_the_move_is_the_movers_knock_not_the_reply():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("d2").place("b2", dt=0.4)
    rig.change(off=("c4",), dt=0.1).change(on=("c3",), dt=0.05)  # a legal defenders' step
    rig.wait(2)
    assert rig.moves() == ["d2-b2"]
    assert [w.data["code"] for w in rig.of("warning")] == ["knocked"]


# -- case 2: no late revisions --------------------------------------------------------------
def test_the_accepted_piece_moved_on_seconds_later_is_the_opponents_illegal_move():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("a3").place("e3", dt=0.4).wait(8.7)
    assert rig.moves() == ["a3-e3"]
    slide(rig, "e3", "f3", dt=0).wait(1.5)  # the defenders push it on along its line
    assert not rig.of("revised") and rig.moves() == ["a3-e3"]
    (ill,) = rig.of("illegal")
    assert ill.data["code"] == "not_your_turn" and ill.data["from"] == "e3"
    slide(rig, "f3", "e3").wait(1)
    assert rig.tracker.state == "ready" and len(rig.of("illegal")) == 1
    rig.move("e6", "e7")
    assert rig.moves() == ["a3-e3", "e6-e7"]


def test_the_accepted_piece_lifted_seconds_later_is_nothing_or_a_warning():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("a3").place("e3", dt=0.4).wait(5)
    rig.lift("e3", dt=0).place("e3", dt=0.3).wait(1)  # picked up and put back at once
    assert not rig.of("warning") and not rig.of("illegal")
    rig.lift("e3", dt=0).place("e3", dt=1.5).wait(1)  # held
    (warn,) = rig.of("warning")
    assert warn.data["code"] == "lifted_out_of_turn" and warn.data["square"] == "e3"
    assert rig.moves() == ["a3-e3"] and not rig.of("revised")


def test_a_pause_shorter_than_the_window_is_still_revised():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("b6").place("c6", dt=0.4).wait(1.0)
    assert rig.moves() == ["b6-c6"]
    rig.lift("c6", dt=0).place("d6", dt=0.3).wait(1)  # rested 1.0 s, then on along its line
    (rev,) = rig.of("revised")
    assert rev.data["move"] == "b6-d6" and rig.moves() == ["b6-d6"]
    assert rev.data["placed_at"] == rig.of("move")[0].data["placed_at"]


def test_a_pause_longer_than_the_window_is_not_revised():
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("b6").place("c6", dt=0.4).wait(1.5)
    rig.lift("c6", dt=0).place("d6", dt=0.3).wait(1.5)
    assert not rig.of("revised") and rig.moves() == ["b6-c6"]
    assert [e.data["code"] for e in rig.of("illegal")] == ["not_your_turn"]


# -- case 3: re-seats --------------------------------------------------------------------------
@pytest.mark.parametrize("after", [0.1, 0.3, 0.8])
def test_re_seating_the_piece_just_placed_is_nothing(after):
    rig = Rig("brandubh", position=OPEN, turn="attackers")
    rig.lift("d2").place("b2", dt=0.4)
    placed = rig.t
    rig.lift("b2", dt=after).place("b2", dt=0.15).wait(2)
    assert rig.moves() == ["d2-b2"] and len(rig.of("move")) == 1
    assert not rig.of("revised") and not rig.of("warning") and not rig.of("illegal")
    (move,) = rig.of("move")
    assert move.data["placed_at"] in (pytest.approx(placed), pytest.approx(rig.t - 2))


# -- simulated games: a few hundred per behaviour, every preset, every third on polarity ------
BEHAVIOURS = {
    # behaviour: the counts the simulator must have performed (at least)
    "opponent_step": {"opponent_step": 1000},
    "restricted_step": {"restricted_step": 150},
    "nudge": {"nudge_quick": 300, "nudge_held": 300, "nudge_moved": 300},
    "reseat": {"reseat": 1000},
    "knock_move": {"knock_move": 500},
    "knock_place": {"knock_place": 500},
}


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_simulated_games_per_behaviour_replay_exactly(behaviour):
    profile = Profile(**{behaviour: 1.0}, slide=0.4, bounce=0.3, crosstalk=0.15, pause=0.1)
    games, done, failures = run_games(profile, 20, 8,
                                      free_the_king=behaviour == "restricted_step")
    assert games == 20 * len(PRESETS)  # every preset, hnefatafl.org's three included
    assert not failures, "\n".join(failures[:5])
    for what, least in BEHAVIOURS[behaviour].items():
        assert done.get(what, 0) >= least, (what, done)
