"""The coach on the simulated board, over HTTP, as a user meets it: a real daemon on loopback
(real tracker, store and advisor engine process). The coached attackers' person blunders in a
position of a real game (tests/data/brandubh.csv line 68: after b4-b3 the king reaches a corner
in two moves); the warning with its threat is in the state and on the LEDs while the defenders
have not replied, the voice says it, takeback clears it, and a sound move gets no warning."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path

from test_daemon_support import click_move, control, state, test_config, wait_for

from companion.coach.config import CoachConfig
from companion.coach.local import LocalLooker
from companion.rules import PRESETS, Board
from companion.voice import VoiceConfig

# tests/data/brandubh.csv line 68, before ply 9 (tests/data/coach_positions.json)
POSITION, TURN = "/3t3/3t3/5T1/ttT1K1t/3t1t1/7/3t3/", "attackers"


@contextlib.contextmanager
def daemon(tmp_path: Path) -> Iterator[str]:
    from companion.daemon import Daemon

    cfg = dataclasses.replace(test_config(tmp_path, variant="brandubh"),
                              coach=CoachConfig(seconds=1.0), voice=VoiceConfig("page"))
    d = Daemon(cfg)
    d.start()
    try:
        yield f"http://127.0.0.1:{d.port}/"
    finally:
        d.stop()


def click(base: str, square: str) -> None:
    status, out = control(base, "api/click", {"square": square})
    assert status == 200, out


make = click_move  # the hand at the board moves a piece; the state once it has the move


def test_a_blunder_is_warned_of_with_its_threat_before_the_reply(tmp_path: Path) -> None:
    with daemon(tmp_path) as base:
        status, out = control(base, "api/new", {"variant": "brandubh", "position": POSITION,
                                                "turn": TURN, "coach": "attackers"})
        assert status == 200, out
        wait_for(lambda: state(base)["tracking"] == "ready", what="the position set up")
        st = state(base)
        assert st["coach"]["side"] == "attackers" and st["coach"]["warning"] is None
        assert st["coach"]["strictness"] == "gentle"
        st = make(base, "b4", "b3")
        st = wait_for(lambda: (s := state(base))["coach"]["warning"] and s,
                      what="the coach's warning")
        w = st["coach"]["warning"]
        assert st["moves"] == ["b4-b3"] and st["turn"] == "defenders"  # no reply yet
        assert w["move"] == "b4-b3" and w["side"] == "attackers" and w["kind"] == "escape"
        assert w["moves"] <= 2 and w["threat"][0] == "e4" and w["threat"][-1] == w["target"]
        assert w["target"] in ("a1", "g1", "a7", "g7")
        assert f"This lets the king reach {w['target']}" in w["text"]
        assert all(st["leds"][sq] == "warning" for sq in w["threat"]), st["leds"]
        # the voice says it (the page's voice here: what it said is in the state)
        wait_for(lambda: any(t["text"].startswith("Careful: b4 to b3 lets the king reach ")
                             for t in state(base)["voice"]["said"]), what="the warning said")
        events = [e for e in st["events"] if e["kind"] == "coach_warning"]
        assert events and events[-1]["move"] == "b4-b3" and events[-1]["threat"] == w["threat"]
        # takeback, as offered: the warning goes with the position it was about
        status, out = control(base, "api/takeback", {})
        assert status == 200 and out["undone"] == "b4-b3", out
        st = state(base)
        assert st["coach"]["warning"] is None and "warning" not in st["leds"].values()
        for sq in sorted(st["guidance"].get("clear", [])) + sorted(st["guidance"].get("fill", {})):
            click(base, sq)
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board set up again")
        # a sound move (the engine's own choice, looked at deeper): no warning once looked at
        board = Board(PRESETS["brandubh"], POSITION, TURN)
        best = LocalLooker(PRESETS["brandubh"], 5).look(board)
        assert best is not None
        frm, _, to = best.line[0].partition("-")
        make(base, frm, to)
        st = wait_for(lambda: (s := state(base)) and not s["coach"]["looking"] and s,
                      what="the coach's look at the sound move")
        assert st["coach"]["warning"] is None, st["coach"]
        assert st["moves"] == [best.line[0]]


def test_the_position_is_evaluated_on_request_and_the_score_goes_with_it(tmp_path: Path) -> None:
    with daemon(tmp_path) as base:
        status, out = control(base, "api/new", {"variant": "brandubh", "position": POSITION,
                                                "turn": TURN, "coach": None})
        assert status == 200, out
        wait_for(lambda: state(base)["tracking"] == "ready", what="the position set up")
        assert state(base)["coach"] is None and state(base)["evaluation"] is None
        assert control(base, "api/eval", {}, pin=None)[1]["code"] == "forbidden"
        status, out = control(base, "api/eval", {})
        assert status in (200, 202), out
        assert out["evaluation"]["side"] == "attackers" and out["evaluation"]["ply"] == 0
        ev = wait_for(lambda: (e := state(base)["evaluation"]) and e["score"] is not None and e,
                      what="the evaluation")
        assert ev["best"] and ev["line"][0] == ev["best"] and ev["by"] == "owner"
        assert state(base)["move_to_make"] is None  # a score, never a move to make
        wait_for(lambda: (state(base)["display"] or {}).get("lines", ["", "", ""])[2]
                 .startswith(("Attackers ", "Defenders ")), what="the score on the display")
        status, out = control(base, "api/eval", {})
        assert status == 200 and out["status"] == "ready" and out["evaluation"] == ev
        make(base, "b4", "b3")
        assert state(base)["evaluation"] is None  # the position changed: the score went


def test_analysis_mode_evaluates_every_position_of_two_people(tmp_path: Path) -> None:
    with daemon(tmp_path) as base:
        status, out = control(base, "api/new", {"variant": "brandubh", "position": POSITION,
                                                "turn": TURN, "players": {
                                                    "defenders": {"kind": "computer",
                                                                  "level": 1}}})
        assert status == 200, out
        status, out = control(base, "api/eval", {"analysis": True})
        assert status == 409 and out["code"] == "not_two_people", out
        status, out = control(base, "api/new", {"variant": "brandubh", "position": POSITION,
                                                "turn": TURN, "players": {
                                                    "defenders": {"kind": "board"}}})
        assert status == 200, out
        wait_for(lambda: state(base)["tracking"] == "ready", what="the position set up")
        assert control(base, "api/eval", {"analysis": "yes"})[0] == 400
        status, out = control(base, "api/eval", {"analysis": True})
        assert status in (200, 202) and out["evaluation"]["analysis"] is True, out
        make(base, "b4", "b3")
        ev = wait_for(lambda: (e := state(base)["evaluation"]) and e["ply"] == 1
                      and e["score"] is not None and e, what="the new position evaluated")
        assert ev["side"] == "defenders" and ev["by"] == "analysis" and ev["analysis"]
        assert state(base)["move_to_make"] is None  # shown, never a move to make
        status, out = control(base, "api/eval", {"analysis": False})
        assert status in (200, 202) and out["evaluation"]["analysis"] is False
