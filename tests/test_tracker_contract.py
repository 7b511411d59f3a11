"""The tracker's contract with the session (docs/events.md): it proposes and never changes the
caller's game; reset, expect (the move to make), suspend, placed_at; structured guidance and
codes; the enums."""

from __future__ import annotations

import json

import pytest
from tracker_helpers import Rig, position

from companion import messages
from companion.feedback import PRECEDENCE, FrameSpec, LedRole, build_frame, with_role
from companion.rules import Move, get_variant
from companion.rules.board import MoveError
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Tracker
from companion.tracker.events import (
    Event,
    EventKind,
    Guidance,
    GuidanceKind,
    LedsChanged,
    MoveProposed,
    MoveRevised,
    MoveTakenBack,
    PieceRemoved,
    ProposalError,
    TrackerState,
    apply_proposal,
)

# attackers b3, f3, d1; defenders c3, e3; the king on f6: d1-d3 takes c3 and e3
CAPTURE = position(7, {"b3": "t", "f3": "t", "d1": "t", "c3": "T", "e3": "T", "f6": "K"})
# Brandubh, attackers to move: a slide f4-f1 passes f2, where it would capture e2 (with d2).
REVISE = position(7, {"d2": "t", "e2": "T", "f4": "t", "d4": "K", "b6": "T"})


def kinds(events: list[Event], *skip: str) -> list[str]:
    return [e.kind for e in events if e.kind not in {"leds", *skip}]


# -- the caller's game ----------------------------------------------------------------------
def test_the_callers_game_is_never_changed():
    game = Game(get_variant("brandubh"))
    game.play_text("d2-e2")
    tracker = Tracker(game)
    occ = set(game.board.occupied_names())
    events = tracker.feed(Scan(0.0, frozenset(occ)))
    for t, off, on in ((1.0, "c4", None), (1.5, None, "c5")):  # c4-c5
        occ.discard(off or "")
        occ.update([on] if on else [])
        events += tracker.feed(Scan(t, frozenset(occ)))
        events += tracker.tick(t + 1.0)
    assert game.moves == ["d2-e2"]  # untouched
    assert tracker.moves == ("d2-e2", "c4-c5")
    assert "move" in kinds(events)
    tracker.reset(game, 10.0)
    assert tracker.moves == ("d2-e2",) and game.moves == ["d2-e2"]


def test_reset_copies_a_manual_ending_and_the_game_stays_the_callers():
    game = Game(get_variant("brandubh"))
    game.play_text("d2-e2")
    game.resign("defenders")
    rig = Rig("brandubh")
    rig.reset(game)
    rig.change(off=("d2",)).change(on=("e2",)).wait(1)
    assert rig.tracker.state == "over" and rig.tracker.outcome == game.outcome()
    rig.move("c4", "c5")
    assert rig.moves() == ["d2-e2"] and game.result == "attackers"


def test_apply_proposal_refuses_a_game_that_does_not_fit():
    game = Game(get_variant("brandubh"))
    d2e2, c4c5, d2e3 = (game.board.parse_move(m)[0] for m in ("d2-e2", "c4-c5", "d2-e3"))
    move = MoveProposed(1.0, d2e2, "attackers", (), 1, 0.8, "d2-e2", 7)
    assert apply_proposal(game, move) and game.moves == ["d2-e2"]
    with pytest.raises(ProposalError, match="ply 1"):
        apply_proposal(game, move)  # applied twice
    with pytest.raises(ProposalError, match="take back c4-c5"):
        apply_proposal(game, MoveTakenBack(2.0, c4c5, "c4-c5", "defenders", 2))
    rev = MoveRevised(2.0, d2e3, "attackers", (), 1, 0.8, "d2-e3", 7, replaces=d2e2,
                      replaces_text="d2-e2")
    with pytest.raises(ProposalError, match="cannot revise d2-e2 to d2-e3"):
        apply_proposal(game, rev)  # not a legal move: the game is left as it was
    assert game.moves == ["d2-e2"]
    assert not apply_proposal(game, LedsChanged(3.0, {}))


def test_events_are_typed_and_their_json_names_the_squares():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    (move,) = rig.of("move")
    assert isinstance(move, MoveProposed) and move.move == rig.mv("d1-d3")
    assert move.side == "attackers" and move.ply == 1 and move.text == "d1-d3xc3xe3"
    assert sorted(move.captures) == sorted(rig.mv(f"{s}-a1").frm for s in ("c3", "e3"))
    assert move.to_json() == {"t": round(move.t, 3), "event": "move", "move": "d1-d3xc3xe3",
                              "side": "attackers", "captured": ["c3", "e3"], "from": "d1",
                              "to": "d3", "ply": 1, "placed_at": move.placed_at}
    assert move.data == {k: v for k, v in move.to_json().items() if k not in ("t", "event")}
    rig.lift("e3").wait(1)
    (removed,) = rig.of("removed")
    assert isinstance(removed, PieceRemoved) and removed.square == rig.mv("e3-a1").frm


# -- placed_at ------------------------------------------------------------------------------
def test_placed_at_is_when_the_piece_came_to_rest():
    rig = Rig("brandubh")
    rig.lift("d2", dt=0.4).place("e2", dt=0.6)
    placed = rig.t
    rig.wait(1)
    (move,) = rig.of("move")
    assert move.data["placed_at"] == pytest.approx(placed)
    assert move.t == pytest.approx(placed + rig.tracker.settle)


def test_removed_captures_carry_when_they_were_lifted():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.move("d1", "d3")
    rig.lift("c3", dt=0.7)
    lifted = rig.t
    rig.wait(1)
    (removed,) = rig.of("removed")
    assert removed.data == {"square": "c3", "lifted_at": pytest.approx(lifted)}
    assert removed.t == pytest.approx(lifted + rig.tracker.settle)


def test_a_revision_keeps_the_first_placement_time():
    rig = Rig("brandubh", position=REVISE, turn="attackers")
    rig.change(on=("f3",), dt=0.5).change(off=("f4",), dt=0.01)
    rig.change(on=("f2",), dt=0.1).change(off=("f3",), dt=0.01)
    first = rig.t - 0.01  # f2 closed one scan before f3 opened
    rig.wait(0.25)
    (move,) = rig.of("move")
    assert move.data["placed_at"] == pytest.approx(first)
    rig.change(on=("f1",)).change(off=("f2",), dt=0.02).wait(1)
    (rev,) = rig.of("revised")
    assert rev.data["placed_at"] == pytest.approx(first)
    assert rig.moves() == ["f4-f1"]


# -- expect: the move to make ----------------------------------------------------------------
def test_the_move_to_make_is_shown_then_accepted_and_cleared():
    rig = Rig("brandubh")
    rig.take(rig.tracker.expect(rig.mv("d2-e2"), rig.t))
    assert rig.tracker.expected == rig.mv("d2-e2")
    assert rig.tracker.leds == {"d2": "make_from", "e2": "make_to"}
    g = rig.tracker.guidance.to_json()
    assert g == {"kind": "make_move", "move": "d2-e2", "from": "d2", "to": "e2", "piece": "t",
                 "side": "attackers", "captured": [], "lifted": False}
    assert rig.tracker.message == "Move the attacker from d2 to e2"
    rig.lift("d2").wait(0.3)
    assert rig.tracker.leds == {"e2": "make_to"}  # the destination while the piece is up
    assert rig.tracker.message == "Put the attacker on e2"
    rig.place("e2").wait(1)
    assert rig.moves() == ["d2-e2"] and rig.tracker.expected is None
    assert rig.tracker.leds == {"d2": "from", "e2": "to"}


def test_the_move_to_make_with_captures_then_shows_the_pieces_to_lift():
    rig = Rig("brandubh", position=CAPTURE, turn="attackers")
    rig.take(rig.tracker.expect(rig.mv("d1-d3"), rig.t))
    assert rig.tracker.expected == rig.mv("d1-d3")
    assert rig.tracker.guidance.data["move"] == "d1-d3xc3xe3"
    assert rig.tracker.guidance.data["captured"] == ["c3", "e3"]
    rig.move("d1", "d3")
    assert rig.moves() == ["d1-d3xc3xe3"]
    assert rig.tracker.leds == {"c3": "capture", "e3": "capture", "d1": "from", "d3": "to"}


def test_any_other_move_is_illegal_not_proposed_and_counted_once():
    rig = Rig("brandubh")
    rig.take(rig.tracker.expect(rig.mv("d2-e2"), rig.t))
    rig.move("d2", "c2", settle=2.0)
    assert rig.moves() == [] and not rig.of("move")
    (ill,) = rig.of("illegal")
    assert ill.data["code"] == "not_the_move_to_make"
    assert ill.data["expected"] == "d2-e2" and ill.data["from"] == "d2" and ill.data["to"] == "c2"
    assert ill.data["reason"] == "that is not the move to make: d2 to e2"
    assert rig.tracker.message == ("Illegal: that is not the move to make: d2 to e2 — put the "
                                   "piece back on d2")
    assert rig.tracker.leds == {"c2": "illegal", "d2": "make_from", "e2": "make_to"}
    rig.move("c2", "d2")
    assert rig.tracker.state == "ready" and len(rig.of("illegal")) == 1
    rig.move("d2", "e2")
    assert rig.moves() == ["d2-e2"] and len(rig.of("illegal")) == 1


def test_a_move_of_the_wrong_piece_is_not_the_move_to_make_either():
    rig = Rig("brandubh")
    rig.take(rig.tracker.expect(rig.mv("d2-e2"), rig.t))
    rig.lift("b4").wait(0.3)
    assert rig.tracker.leds == {"b4": "setup", "d2": "make_from", "e2": "make_to"}
    assert rig.tracker.message == "Put the attacker back on b4: the move to make is d2 to e2"
    rig.place("b3").wait(1.5)
    (ill,) = rig.of("illegal")
    assert ill.data["code"] == "not_the_move_to_make" and rig.moves() == []


def test_a_slow_slide_through_to_the_move_to_make_is_accepted():
    rig = Rig("brandubh", position=REVISE, turn="attackers")
    rig.take(rig.tracker.expect(rig.mv("f4-f1"), rig.t))
    rig.change(on=("f3",), dt=0.5).change(off=("f4",), dt=0.01)
    rig.change(on=("f2",), dt=0.1).change(off=("f3",), dt=0.01)
    rig.wait(0.3)  # paused on f2, which is not the move to make: nothing is accepted
    assert not rig.of("move")
    rig.change(on=("f1",)).change(off=("f2",), dt=0.02).wait(1)
    assert rig.moves() == ["f4-f1"] and not rig.of("revised") and not rig.of("illegal")


def test_the_move_to_make_is_never_revised_into_another():
    rig = Rig("brandubh", position=REVISE, turn="attackers")
    rig.take(rig.tracker.expect(rig.mv("f4-f2"), rig.t))
    rig.move("f4", "f2", settle=0.3)
    assert rig.moves() == ["f4-f2xe2"]
    rig.lift("f2", dt=0.05).place("f1", dt=0.4).wait(2)
    assert not rig.of("revised") and rig.moves() == ["f4-f2xe2"]
    assert len(rig.of("illegal")) == 1


def test_expect_refuses_a_move_that_cannot_be_made():
    rig = Rig("brandubh")
    for bad in ("d2-d5", "c4-c5", "d2-e3", "a4-a1"):
        with pytest.raises(MoveError):
            rig.tracker.expect(rig.mv(bad))
    for off in (Move(-1, 3), Move(3, 49), Move(100, 101)):
        with pytest.raises(MoveError):
            rig.tracker.expect(off)
    assert rig.tracker.expected is None
    rig.take(rig.tracker.expect(rig.mv("d2-e2")))
    rig.take(rig.tracker.expect(None))
    assert rig.tracker.expected is None and rig.tracker.leds == {}


def test_reset_clears_the_move_to_make():
    rig = Rig("brandubh")
    rig.tracker.expect(rig.mv("d2-e2"))
    rig.reset()
    assert rig.tracker.expected is None


# -- suspend -----------------------------------------------------------------------------------
def test_while_suspended_nothing_is_accepted_and_a_move_counts_after_resuming():
    rig = Rig("brandubh")
    rig.take(rig.tracker.suspend("storage", rig.t))
    assert rig.tracker.state == TrackerState.SUSPENDED
    assert rig.tracker.guidance.to_json() == {"kind": "suspended", "reason": "storage"}
    assert rig.tracker.message.startswith("Paused: moves cannot be saved")
    rig.lift("d2").place("e2")
    placed = rig.t
    rig.wait(3)
    assert rig.moves() == [] and not rig.of("illegal") and not rig.of("warning")
    rig.take(rig.tracker.suspend(None, rig.t))
    (move,) = rig.of("move")
    assert move.data["move"] == "d2-e2" and move.data["placed_at"] == pytest.approx(placed)
    assert rig.moves() == ["d2-e2"]


def test_suspension_neither_flags_nor_reflags_a_fault():
    rig = Rig("brandubh")
    rig.move("d2", "e3", settle=1.0)  # diagonal: flagged
    assert len(rig.of("illegal")) == 1
    rig.take(rig.tracker.suspend("storage", rig.t))
    rig.wait(1)
    rig.take(rig.tracker.suspend(None, rig.t))
    rig.wait(1)
    assert len(rig.of("illegal")) == 1
    rig.take(rig.tracker.suspend("storage", rig.t))
    rig.move("e3", "d2").move("c4", "c3", settle=2.0)  # not judged while suspended
    assert len(rig.of("illegal")) == 1
    rig.take(rig.tracker.suspend(None))
    rig.wait(1)
    assert len(rig.of("illegal")) == 2
    assert rig.of("illegal")[-1].data["code"] == "not_your_turn"


def test_reset_keeps_a_suspension():
    rig = Rig("brandubh")
    rig.tracker.suspend("storage")
    rig.reset()
    rig.wait(1)
    assert rig.tracker.suspended == "storage" and rig.tracker.state == "suspended"


# -- structured faults -------------------------------------------------------------------------
@pytest.mark.parametrize(("frm", "to", "code", "extra"), [
    ("c4", "c3", "not_your_turn", {"turn": "attackers", "side": "defenders"}),
    ("d2", "e3", "diagonal", {}),
    ("d1", "d3", "jump", {"square": "d2"}),
    ("f4", "d4", "throne_stop", {"square": "d4"}),
    ("a4", "a7", "corner_stop", {"square": "a7"}),
])
def test_illegal_events_carry_a_code_and_data(frm, to, code, extra):
    pieces = {"d1": "t", "d2": "t", "a4": "t", "f4": "t", "c4": "T", "e5": "K", "d6": "t"}
    rig = Rig("brandubh", position=position(7, pieces), turn="attackers")
    rig.move(frm, to, settle=1.0)
    (ill,) = rig.of("illegal")
    piece = "T" if frm == "c4" else "t"
    assert ill.data == {"code": code, "reason": ill.data["reason"], "from": frm, "to": to,
                        "piece": piece, **extra, "leds": rig.tracker.leds}
    assert ill.data["reason"] == messages.fault_reason(code, ill.data)
    assert rig.tracker.guidance.to_json() == {"kind": "illegal", "code": code, "from": frm,
                                              "to": to, "piece": piece, **extra}


def test_event_and_state_values_are_the_old_strings():
    assert [str(k) for k in EventKind] == [
        "move", "leds", "removed", "illegal", "game_over", "warning", "revised", "takeback",
        "restored", "setup", "ready"]
    e = MoveTakenBack(1.0, Move(10, 17), "d2-d3", "attackers", 1)
    assert json.loads(json.dumps(e.to_json())) == {"t": 1.0, "event": "takeback",
                                                   "move": "d2-d3", "side": "attackers", "ply": 1}
    assert TrackerState.CAPTURE_PENDING == "capture_pending"
    assert Guidance(GuidanceKind.TO_MOVE, {"side": "defenders"}).to_json() == {
        "kind": "to_move", "side": "defenders"}


GUIDANCE_SAMPLES = {
    "waiting": {},
    "setup": {"fill": {"a4": "t"}, "clear": ["e6"], "recolour": {}},
    "setup_complete": {},
    "to_move": {"side": "attackers"},
    "lifted": {"side": "attackers", "square": "d2", "piece": "t"},
    "moving_again": {"square": "e2", "piece": "t"},
    "make_move": {"move": "d2-e2", "from": "d2", "to": "e2", "piece": "t", "side": "attackers",
                  "captured": [], "lifted": False},
    "lift_captured": {"squares": ["c3", "e3"], "pieces": ["T", "T"]},
    "takeback": {"squares": ["c3"], "pieces": ["T"]},
    "illegal": {"code": "diagonal", "from": "d2", "to": "e3", "piece": "t"},
    "warning": {"code": "knocked", "knocks": [{"from": "e4", "to": "e5", "piece": "T"}]},
    "game_over": {"result": "attackers", "reason": "king_captured", "winner": "attackers",
                  "squares": [], "pieces": []},
    "suspended": {"reason": "storage"},
    "check_pieces": {"reason": "takeback", "side": "attackers", "squares": ["c3", "d4"],
                     "pieces": ["T", "K"]},
    "reading": {"squares": ["a1", "d4"], "colours": {}},
}


def test_every_guidance_kind_has_an_english_sentence():
    assert set(GUIDANCE_SAMPLES) == {str(k) for k in GuidanceKind}
    for kind, data in GUIDANCE_SAMPLES.items():
        text = messages.guidance_text(Guidance(GuidanceKind(kind), data))
        assert text and text[0].isupper(), kind
    assert messages.guidance_text({"kind": "to_move", "side": "defenders"}) == \
        "Defenders to move"
    with pytest.raises(ValueError):
        messages.guidance_text({"kind": "nonsense"})


# -- LED roles ---------------------------------------------------------------------------------
def test_the_move_to_make_beats_guidance_but_not_illegal_or_capture():
    frame = build_frame(FrameSpec(last_from="a1", last_to="b1", target=["b1", "c1"],
                                  setup=["c1", "d1"], make_from=["d1"], make_to=["e1", "f1"],
                                  capture=["e1"], illegal=["f1"]))
    assert frame == {"a1": "from", "b1": "target", "c1": "setup", "d1": "make_from",
                     "e1": "capture", "f1": "illegal"}
    assert PRECEDENCE[0] == LedRole.WIN and PRECEDENCE[-1] == LedRole.FROM
    assert {"make_from", "make_to", "hint_from", "hint_to", "raichi", "storage"} <= set(LedRole)


def test_storage_laid_board_wide_lets_the_urgent_roles_show():
    frame = {"a1": "capture", "b1": "make_to", "c1": "target", "d1": "from"}
    out = with_role(frame, ["a1", "b1", "c1", "d1", "e1"], "storage")
    assert out == {"a1": "capture", "b1": "make_to", "c1": "storage", "d1": "storage",
                   "e1": "storage"}
    with pytest.raises(ValueError):
        with_role(frame, ["a1"], "sparkle")
