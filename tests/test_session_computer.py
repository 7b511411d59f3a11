"""The computer at the board, in the session (the real tracker on a virtual board clock, a real
store, real engine processes in real time): hints, takeback of move + reply, thinking, the
resign and draw policy, failing engines, post-game analysis."""

from __future__ import annotations

import dataclasses
import sqlite3
import sys
from pathlib import Path

import pytest
from session_helpers import Harness, wait

from companion.session import OWNER, SPECTATOR, ControlError
from companion.session.actors import player
from companion.session.computer import ComputerConfig

# A scripted OTEP engine (tests/scripted_engine.py): its argument picks how it misbehaves.
SCRIPT = Path(__file__).with_name("scripted_engine.py")


@pytest.fixture()
def scripted():
    return lambda mode: f"{sys.executable} {SCRIPT} {mode}"


def computer_move(h: Harness) -> dict:
    m = wait(h, lambda: h.session.move_to_make, "the computer's move")
    return dict(m)


def make(h: Harness, m: dict) -> None:
    h.move(m["from"], m["to"])


def with_computer(h: Harness, **kw) -> None:
    h.session.defaults = dataclasses.replace(
        h.session.defaults, computer=dataclasses.replace(h.session.defaults.computer, **kw))


def test_a_hint_for_the_person_shown_counted_stored_exported(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh", defenders="computer:1")
    s = h.session
    try:
        with pytest.raises(ControlError) as err:
            s.request_hint(SPECTATOR)
        assert err.value.code == "forbidden"
        with pytest.raises(ControlError) as err:
            s.request_hint(player("defenders"))
        assert err.value.code == "not_your_turn"
        with pytest.raises(ControlError) as err:
            s.request_hint(OWNER, 99)
        assert err.value.code == "bad_request"
        assert s.request_hint(player("attackers"), 0.3) == (202, {"status": "thinking",
                                                                   "side": "attackers"})
        assert h.state["hint_pending"]["side"] == "attackers" and h.state["hint"] is None
        assert s.request_hint(OWNER, 0.3)[0] == 202  # asked again: the same question
        hint = wait(h, lambda: h.state["hint"], "the hint")
        assert hint["side"] == "attackers" and hint["by"] == "attackers"
        assert hint["move"] == f"{hint['from']}-{hint['to']}" and isinstance(hint["score"], float)
        legal = s.legal_moves()["moves"]
        assert hint["to"] in [t["to"] for t in legal[hint["from"]]]
        st = h.state
        assert st["leds"][hint["from"]] == "hint_from" and st["leds"][hint["to"]] == "hint_to"
        assert st["hints"] == {"attackers": 1, "defenders": 0} and st["hint_pending"] is None
        assert st["events"][-1]["kind"] == "hint" and st["events"][-1]["move"] == hint["move"]
        assert s.request_hint(OWNER) == (200, {"status": "ready", "hint": hint})
        h.move(hint["from"], hint["to"])  # the position changes: the hint is gone
        st = h.state
        assert st["hint"] is None and "hint_from" not in st["leds"].values()
        with pytest.raises(ControlError) as err:  # the computer's turn
            s.request_hint(OWNER)
        assert err.value.code == "no_hint"
        make(h, computer_move(h))
        row = h.store.game(s.gid)
        assert row.hints() == {"attackers": 1, "defenders": 0}
        assert row.to_json()["hints"] == {"attackers": 1, "defenders": 0}
        assert [e["move"] for e in h.store.events(s.gid) if e["kind"] == "hint"] == [
            hint["move"]]
        csv = h.session.export(s.gid, "csv")
        assert "# hints: attackers 1 defenders 0 (before plies 1)" in csv
        otg = h.session.export(s.gid, "otg")
        assert "[companion-hints:attackers 1 defenders 0]" in otg and " hint" in otg
    finally:
        s.close()
    h2 = h.reopen()
    try:
        assert h2.state["hints"] == {"attackers": 1, "defenders": 0}
    finally:
        h2.session.close()


def test_takeback_against_the_computer_undoes_the_move_and_its_reply(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh", defenders="computer:1", tc="5+0")
    s = h.session
    try:
        h.move("d2", "c2", think=2.0)
        make(h, computer_move(h))
        h.move("f4", "f5", think=3.0)
        computer_move(h)  # chosen, not yet made: the takeback drops it
        out = s.takeback(OWNER)
        assert out["undone"] == "f4-f5" and out["moves"] == ["f4-f5"]
        assert s.move_to_make is None and h.state["turn"] == "attackers"
        h.click("f5", 0.1)
        h.click("f4", 0.6)  # the person puts his piece back as guided
        assert h.state["tracking"] == "ready", h.state["guidance"]
        h.move("f4", "f5", think=1.0)
        made = computer_move(h)
        make(h, made)
        assert len(s.game.played) == 4
        out = s.takeback(OWNER)
        assert out["undone"] == "f4-f5" and len(out["moves"]) == 2 and "stopped" not in out
        assert s.game.moves[:1] == ["d2-c2"] and len(s.game.played) == 2
        clock = s.clock
        assert clock is not None and clock.running == "attackers"
        left = h.store.moves(s.gid)[-1]["left"]  # after the computer's first move
        # as before the person's move: his clock as when his turn began (at the computer's
        # choice, a moment before its move was made at the board), the computer's as it stopped
        assert 0 <= clock.left("attackers", h.t) - left["attackers"] < 1.0
        assert clock.left("defenders", h.t) == pytest.approx(left["defenders"], abs=0.05)
        guide = h.state["guidance"]
        assert guide["kind"] == "setup"
        assert {"f5", made["to"]} <= set(guide["clear"])
        assert {"f4", made["from"]} <= set(guide["fill"])
        for sq in sorted(guide["clear"]) + sorted(guide["fill"]):
            h.click(sq, 0.1)  # the person puts the pieces back as the lights show
        h.run(0.6)
        assert h.state["tracking"] == "ready", h.state["guidance"]
        event = h.state["events"][-1]
        assert event["kind"] == "takeback" and event["moves"] == out["moves"]
        stored = [e for e in h.store.events(s.gid) if e["kind"] == "takeback"][-1]
        assert stored["moves"] == out["moves"] and stored["move"] == "f4-f5"
    finally:
        s.close()


def test_a_takeback_stops_the_computer_thinking_at_once(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh", attackers="board",
                defenders=f"engine:{scripted('proxy-slow')}")
    s = h.session
    try:
        h.move("d2", "c2")
        th = wait(h, lambda: (h.state["thinking"] or {}).get("depth"), "thinking")
        st = h.state["thinking"]
        assert th >= 2 and st["side"] == "defenders" and st["by"] == "engine"
        assert st["score"] == 0.15 and st["best"] == "d4-d5" and st["since"] > 1.7e9
        host = s.ctx.seats.computer("defenders").host  # type: ignore[union-attr]
        assert host.alive
        out = s.takeback(OWNER)
        assert out == {"undone": "d2-c2", "moves": ["d2-c2"], "stopped": True}
        assert not host.alive and h.state["thinking"] is None
        assert h.state["turn"] == "attackers"
        with pytest.raises(ControlError) as err:
            s.takeback(OWNER)
        assert err.value.code == "nothing_to_take_back"
    finally:
        s.close()


def test_a_new_game_stops_the_computer_thinking_at_once(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh", attackers="board",
                defenders=f"engine:{scripted('proxy-slow')}")
    s = h.session
    try:
        h.move("d2", "c2")
        wait(h, lambda: (h.state["thinking"] or {}).get("depth"), "thinking")
        host = s.ctx.seats.computer("defenders").host  # type: ignore[union-attr]
        s.new_game(OWNER, {"players": {"defenders": {"kind": "board"}}})
        assert not host.alive  # stopped by the time the control answers
        assert h.state["thinking"] is None and h.state["move_to_make"] is None
        assert s.ctx.seats.computer("defenders") is None and h.state["moves"] == []
    finally:
        s.close()


def test_a_move_made_by_hand_while_the_computer_thinks_stops_its_search(
        tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh", attackers=f"engine:{scripted('proxy-slow')}")
    s = h.session
    try:
        wait(h, lambda: (h.state["thinking"] or {}).get("depth"), "thinking")
        host = s.ctx.seats.computer("attackers").host  # type: ignore[union-attr]
        h.move("d2", "c2")  # the person makes the computer's move himself
        assert not host.alive and h.state["thinking"] is None
        h.move("d5", "e5")
        st = wait(h, lambda: h.state["thinking"], "thinking again")
        assert st["side"] == "attackers" and len(h.state["moves"]) == 2
        assert h.state["move_to_make"] is None and h.state["player_error"] is None
    finally:
        s.close()


def test_the_computer_resigns_a_hopeless_position(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh",
                defenders=f"engine:{scripted('proxy-hopeless')}")
    s = h.session
    with_computer(h, resign_moves=2, resign_threshold=8.0)
    try:
        h.move("d2", "c2")
        make(h, computer_move(h))  # the first hopeless move is still played
        h.move("c2", "b2")
        wait(h, lambda: s.game.is_over(), "the resignation")
        st = h.state
        assert st["result"] == "attackers" and st["reason"] == "resignation"
        event = [e for e in st["events"] if e["kind"] == "resign"][-1]
        assert event["by"] == "defenders" and event["side"] == "defenders" and event["computer"]
        stored = [e for e in h.store.events(s.gid) if e["kind"] == "resign"][-1]
        assert stored["by"] == "defenders" and stored["computer"] is True
    finally:
        s.close()


def test_resigning_can_be_switched_off(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh",
                defenders=f"engine:{scripted('proxy-hopeless')}")
    s = h.session
    with_computer(h, resign=False, resign_moves=1)
    try:
        h.move("d2", "c2")
        make(h, computer_move(h))
        h.move("c2", "b2")
        make(h, computer_move(h))
        assert not s.game.is_over()
    finally:
        s.close()


@pytest.mark.parametrize(("threshold", "answer"), [(0.0, "decline"), (50.0, "accept")])
def test_the_computer_answers_a_draw_offer_by_its_evaluation(
        tmp_path: Path, threshold: float, answer: str) -> None:
    # Brandubh's start favours the defenders (about +0.7 for them): the computer defending
    # declines at threshold 0, and accepts when it takes anything up to +50 as a draw
    h = Harness(tmp_path, variant="brandubh", defenders="computer:1")
    s = h.session
    with_computer(h, draw_threshold=threshold, draw_seconds=0.3)
    try:
        s.draw(player("attackers"), "offer", None)
        event = wait(h, lambda: next((e for e in h.state["events"] if e["kind"] == "draw"
                                      and e["action"] != "offer"), None), "the answer")
        assert event["action"] == answer and event["by"] == "defenders"
        assert event["side"] == "defenders" and isinstance(event["score"], float)
        assert event["score"] > 0
        if answer == "accept":
            assert h.state["result"] == "draw" and h.state["reason"] == "agreement"
        else:
            assert h.state["draw_offer"] is None and h.state["result"] == "ongoing"
        stored = [e for e in h.store.events(s.gid) if e["kind"] == "draw"][-1]
        assert stored["action"] == answer and stored["by"] == "defenders"
    finally:
        s.close()


@pytest.mark.parametrize(("mode", "words"), [
    ("garbage", "unreadable move: 'banana'"),
    ("illegal", "illegal move a1-a2"),
    ("crash", "exited with status 3: Traceback: the engine broke"),
    ("crash_late", "exited with status 3: Traceback: the engine broke"),  # last words kept
])
def test_a_failing_engine_is_shown_and_never_holds_up_the_board(
        tmp_path: Path, scripted, mode: str, words: str) -> None:
    h = Harness(tmp_path, variant="brandubh", attackers=f"engine:{scripted(mode)}")
    s = h.session
    try:
        err = wait(h, lambda: h.state["player_error"], "the failure")
        assert err["side"] == "attackers" and words in err["message"]
        st = h.state
        assert "The computer playing the attackers failed" in st["message"]
        assert any(e["kind"] == "player_error" for e in st["events"])
        h.move("d2", "c2")  # the person makes the computer's move by hand meanwhile
        assert s.game.moves == ["d2-c2"] and h.state["turn"] == "defenders"
        h.move("d5", "e5")
        assert len(s.game.moves) == 2
    finally:
        s.close()


def test_a_silent_engine_is_given_up_at_its_deadline(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    s.defaults = dataclasses.replace(s.defaults, computer=ComputerConfig(any_engine=True))
    try:
        s.set_players(OWNER, {"attackers": {"kind": "engine", "command": scripted("silent"),
                                            "seconds": 0.5}})
        err = wait(h, lambda: h.state["player_error"], "the silence", timeout=20)
        assert "did not answer within 3." in err["message"]  # its deadline, not a hang
        assert h.state["players"]["attackers"]["seconds"] == 0.5
        assert "The computer playing the attackers failed" in h.state["message"]
        h.move("d2", "c2")  # the board goes on: its move is made by hand meanwhile
        assert s.game.moves == ["d2-c2"] and h.state["turn"] == "defenders"
    finally:
        s.close()


def test_engine_commands_from_the_page_need_the_config(tmp_path: Path, scripted) -> None:
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    try:
        command = scripted("garbage")
        with pytest.raises(ControlError) as err:
            s.new_game(OWNER, {"players": {"attackers": {"kind": "engine", "command": command}}})
        assert err.value.status == 403 and err.value.code == "engine_not_allowed"
        with pytest.raises(ControlError) as err:
            s.new_game(OWNER, {"players": {"attackers": {"kind": "computer", "level": 11}}})
        assert err.value.code == "bad_players" and "level" in err.value.message
        with pytest.raises(ControlError) as err:
            s.new_game(OWNER, {"players": {"attackers": {"kind": "board", "level": 3}}})
        assert err.value.code == "bad_players"
        with_computer(h, engines=(command,))
        s.new_game(OWNER, {"players": {"attackers": {"kind": "engine", "command": command,
                                                     "name": "Bot"}}})
        assert h.state["players"]["attackers"] == {"name": "Bot", "kind": "engine",
                                                   "command": command}
        s.new_game(OWNER, {"players": {"attackers": {"kind": "computer", "level": 2,
                                                     "seconds": 0.5}}})
        assert h.state["players"]["attackers"] == {"name": "Bot", "kind": "computer",
                                                   "level": 2, "seconds": 0.5}
        row = h.store.game(s.gid)
        assert row.players()["attackers"]["level"] == 2
    finally:
        s.close()
    h2 = h.reopen()  # a restart brings the computer player back with its level and time
    try:
        assert h2.state["players"]["attackers"] == {"name": "Bot", "kind": "computer",
                                                    "level": 2, "seconds": 0.5}
        assert h2.session.ctx.seats.computer("attackers") is not None
    finally:
        h2.session.close()


def test_analysis_of_a_finished_game_is_stored_and_served_again(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    try:
        for frm, to in (("d2", "c2"), ("d5", "e5"), ("c2", "c3")):
            h.move(frm, to)
        live = s.gid
        with pytest.raises(ControlError) as err:
            s.start_analysis(OWNER, live, 0.1)
        assert err.value.code == "game_ongoing"
        with pytest.raises(ControlError) as err:
            s.start_analysis(player("attackers"), live, 0.1)
        assert err.value.code == "forbidden"
        s.resign(OWNER, "defenders")
        assert s.analysis(live)["status"] == "none"
        status, out = s.start_analysis(OWNER, live, 0.1)
        assert status == 202 and out["status"] == "running" and out["total"] == 4
        done = wait(h, lambda: s.analysis(live)["status"] == "done" and s.analysis(live),
                    "the analysis")
        review = done["review"]
        assert len(review["evaluations"]) == 4 and len(review["plies"]) == 3
        assert [p["move"] for p in review["plies"]] == ["d2-c2", "d5-e5", "c2-c3"]
        assert done["done"] == done["total"] == 4 and done["seconds"] == 0.1
        assert s.analyses.timings and s.analyses.timings[-1][1] == 4
        assert h.store.game(live).to_json()["analysed"] is True
        n = len(s.analyses.timings)
        assert s.start_analysis(OWNER, live, 0.1) == (200, done)  # not computed again
        assert len(s.analyses.timings) == n
        s.new_game(OWNER, {})
        empty = s.gid
        s.new_game(OWNER, {})  # the empty game is closed as abandoned
        with pytest.raises(ControlError) as err:
            s.start_analysis(OWNER, empty, 0.1)
        assert err.value.code == "no_moves"
        with pytest.raises(ControlError) as err:
            s.analysis(10**6)
        assert err.value.status == 404
    finally:
        s.close()
    h2 = h.reopen()
    try:
        assert h2.session.analysis(live)["status"] == "done"  # kept in the store
    finally:
        h2.session.close()


def test_an_imported_game_is_analysed_and_a_failed_analysis_says_why(tmp_path: Path) -> None:
    from companion.rules import get_variant
    from companion.rules.game import Game

    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    try:
        game = Game(get_variant("brandubh"))
        for m in ("d2-c2", "d5-e5"):
            game.play_text(m)
        gid = h.store.import_game(game, ("A", "B"), 1.7e9, {"file": "x.otg"})
        assert s.start_analysis(OWNER, gid, 0.1)[0] == 202
        wait(h, lambda: s.analysis(gid)["status"] == "done", "the imported game's analysis")
        s.analyses.use_engine(lambda: [sys.executable, "-c", "import sys; sys.exit(5)"])
        gid2 = h.store.import_game(game, ("A", "B"), 1.7e9, {"file": "y.otg"})
        s.start_analysis(OWNER, gid2, 0.1)
        failed = wait(h, lambda: s.analysis(gid2)["status"] == "failed" and s.analysis(gid2),
                      "the failure")
        assert "exited with status 5" in failed["error"]
    finally:
        s.close()


def test_a_version_2_store_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    from companion.store import Store
    from companion.store_schema import SCHEMA_V2, SCHEMA_VERSION, _statements

    path = tmp_path / "games.sqlite3"
    con = sqlite3.connect(path)
    for stmt in _statements(SCHEMA_V2):
        con.execute(stmt)
    con.execute("INSERT INTO games (variant, start_position, start_turn, started) VALUES "
                "('brandubh', 'x', 'attackers', 1.0)")
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    store = Store(path)
    assert store.pragma("user_version") == SCHEMA_VERSION
    row = store.game(1)
    assert row.hints() == {"attackers": 0, "defenders": 0} and row.analysed == 0
    store.save_analysis(1, [], 1.0, "test", {"evaluations": [0.0]})
    assert store.analysis(1)["review"] == {"evaluations": [0.0]}
    assert store.game(1).analysed == 1
    assert store.game(1).pending() is None  # version 4: the move to make of a game
    store.close()


def test_taking_back_by_hand_the_computer_waits_for_the_persons_move_too(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh", defenders="computer:1")
    s = h.session
    try:
        h.move("d2", "c2")
        reply = computer_move(h)
        make(h, reply)
        assert not s.game.played[-1].captures
        h.click(reply["to"], 0.1)
        h.click(reply["from"], 0.6)  # the computer's move put back by hand: a takeback
        assert s.game.moves == ["d2-c2"] and s.move_to_make is None
        h.run(1.0)
        assert s.move_to_make is None  # it waits: the person may take back his own move
        h.click("c2", 0.1)
        h.click("d2", 0.6)
        assert s.game.moves == [] and h.state["turn"] == "attackers"
        h.run(4.0)
        assert s.move_to_make is None and h.state["thinking"] is None
        kinds = [e["kind"] for e in h.state["events"]]
        assert kinds.count("takeback") == 2
    finally:
        s.close()


def test_each_game_of_a_match_can_be_analysed(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh", match=True)
    s = h.session
    try:
        h.move("d2", "c2")
        s.resign(OWNER, "defenders")
        first = s.gid
        assert s.match is not None and s.match.wants_next
        assert s.start_analysis(OWNER, first, 0.1)[0] == 202
        s.next_game(OWNER)
        h.run(1.0)  # the simulated board is set up again for game 2
        h.move("d2", "c2")
        s.resign(OWNER, "defenders")
        second = s.gid
        assert s.start_analysis(OWNER, second, 0.1)[0] == 202  # queued behind the first
        for gid in (first, second):
            done = wait(h, lambda gid=gid: s.analysis(gid)["status"] == "done" and
                        s.analysis(gid), f"game {gid}")
            assert len(done["review"]["evaluations"]) == len(h.store.move_texts(gid)) + 1
    finally:
        s.close()


def test_the_computers_clock_stops_when_it_has_chosen(tmp_path: Path) -> None:
    """A slow hand carrying out the computer's move costs the person's time, not the
    computer's (it cannot lose on time while its move waits at the board)."""
    h = Harness(tmp_path, variant="brandubh", defenders="computer:1", tc="1+0")
    s = h.session
    try:
        h.move("d2", "c2")
        m = computer_move(h)
        left = h.state["clock"]["defenders"]
        assert h.state["clock"]["running"] == "attackers" and left > 0
        clock = s.clock
        assert clock is not None
        attackers = clock.left("attackers", h.t)
        h.run(10.0)  # the person takes his time to carry it out: his clock runs, not its
        assert clock.left("defenders", h.t) == pytest.approx(left, abs=0.01)
        assert clock.left("attackers", h.t) == pytest.approx(attackers - 10.0, abs=0.02)
        make(h, m)
        assert h.store.moves(s.gid)[-1]["left"]["defenders"] == pytest.approx(left, abs=0.01)
        assert h.state["clock"]["running"] == "attackers"
    finally:
        s.close()
