"""Watching a server game on the board, end to end: the daemon's real HTTP API, the simulated
board, its online client talking to the protocol-faithful test server, and two scripted accounts
playing the game there. The owner picks the game in the lobby's games in progress; both sides'
moves become moves to make; hostile lines change nothing; a kill -9 loses nothing (the moves
made meanwhile wait in turn); the game ends with the server's result once the board made its
moves; stopping frees the board."""

from __future__ import annotations

import signal
import time

import pytest
from online_helpers import log_in, online, serving
from test_daemon_support import click_move, control, state, wait_for
from test_online_e2e import carry_out, start
from test_online_watch import play, two_play


@pytest.fixture
def server():
    yield from serving(("alice", "pw alice"), ("bob", "pw", 1701.0), ("carol", "pw", 1650.0))


def watched(base):
    """The page state once the board shows the watched game."""
    return wait_for(lambda: (lambda st: st if (st.get("remote") or {}).get("watching")
                             else None)(state(base)), what="the watched game")


def test_watch_a_game_to_its_end_with_a_kill_in_the_middle(tmp_path, server):
    proc, base = start(tmp_path, server)
    try:
        log_in(base)
        bob, carol, game_id = two_play(server)
        play(bob, game_id, "attacker", "e1", "e4", carol)
        live = wait_for(lambda: online(base)["live_games"], what="the live game")
        assert [(g["id"], g["attackers"], g["defenders"]) for g in live] == [
            (game_id, "bob", "carol")]
        bad = control(base, "api/online/watch", {"id": "first"})
        assert bad[0] == 400 and "number of a game" in bad[1]["error"]
        assert control(base, "api/online/watch", {"id": game_id})[0] == 200
        s = watched(base)
        assert s["variant"] == "hnefatafl-org"
        assert s["players"]["attackers"] == {"name": "bob", "kind": "online", "rating": 1701.0}
        assert s["players"]["defenders"]["name"] == "carol"
        assert s["players"]["defenders"]["kind"] == "online"
        assert s["remote"]["local_side"] is None and s["clock"] is not None
        o = wait_for(lambda: (lambda j: j if j["status"] == "watching" else None)(online(base)),
                     what="watching")
        assert o["game"]["watching"] is True and o["game"]["attackers"] == "bob"
        # both sides' moves are moves to make, in turn
        carry_out(base, "e1-e4")
        play(carol, game_id, "defender", "h6", "h9", bob)
        carry_out(base, "h6-h9")
        play(bob, game_id, "attacker", "g1", "g4", carol)     # captures f4: unsaid
        carry_out(base, "g1-g4")
        wait_for(lambda: "f4" not in state(base)["occupied"], what="f4 lifted")
        assert state(base)["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"]
        # hostile: an attackers' move in the defenders' turn changes nothing on the board
        ignored = online(base)["ignored"]
        asked = server.received("alice").count(f"watch_game_json {game_id}")
        server.inject("alice", f"game {game_id} play attacker e4 e5")
        wait_for(lambda: online(base)["ignored"] > ignored, what="the move dropped")
        wait_for(lambda: server.received("alice").count(f"watch_game_json {game_id}") > asked,
                 what="the server's record asked for again")
        time.sleep(0.3)
        assert "does not fit" in online(base)["message"]
        s = state(base)
        assert s["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"] and s["move_to_make"] is None
        assert s["result"] == "ongoing"
        # kill -9; carol and bob move while the board is away
        proc.stop(signal.SIGKILL)
        wait_for(lambda: "alice" not in server.online, what="the server noticed")
        play(carol, game_id, "defender", "h9", "h10", bob)
        play(bob, game_id, "attacker", "e4", "e2", carol)
        proc, base = start(tmp_path, server)
        s = watched(base)
        assert s["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"]
        carry_out(base, "h9-h10")                    # the moves made meanwhile, in turn
        carry_out(base, "e4-e2")
        wait_for(lambda: online(base)["status"] == "watching", what="watching again")
        # the end is the server's word: carol resigns
        carol.send(f"game {game_id} play defender resigns _")
        s = wait_for(lambda: (lambda st: st if st["result"] != "ongoing" else None)(state(base)),
                     what="the end")
        assert (s["result"], s["reason"]) == ("attackers", "resignation")
        assert s["moves"] == server.games[game_id].texts
        wait_for(lambda: online(base)["status"] == "lobby", what="back in the lobby")
    finally:
        proc.stop()


def test_stop_watching_frees_the_board(tmp_path, server):
    proc, base = start(tmp_path, server)
    try:
        log_in(base)
        bob, carol, game_id = two_play(server, timed=False)
        assert control(base, "api/online/watch", {"id": game_id})[0] == 200
        watched(base)
        play(bob, game_id, "attacker", "e1", "e4", carol)
        carry_out(base, "e1-e4")
        refused = control(base, "api/online/seek", {"side": "attackers", "variant": "brandubh",
                                                   "rated": False, "time_control": "none"})
        assert refused[0] == 400 and "stop watching" in refused[1]["error"]
        assert control(base, "api/online/unwatch", {})[0] == 200
        s = wait_for(lambda: (lambda st: st if st["remote"]["ref"] is None else None)(
            state(base)), what="the game let go")
        assert s["remote"]["code"] == "stopped_watching" and s["move_to_make"] is None
        assert s["moves"] == ["e1-e4"]
        wait_for(lambda: "alice" not in server.games[game_id].watchers,
                 what="left on the server")
        assert online(base)["status"] == "lobby" and online(base)["game"] is None
        play(carol, game_id, "defender", "h6", "h9", bob)
        # the board is free: a game of its own starts, and the server's moves stay away
        new = control(base, "api/new", {"variant": "copenhagen"})
        assert new[0] == 200, new
        s = state(base)
        assert s["moves"] == [] and s["move_to_make"] is None and s["remote"]["ref"] is None
        assert {p["kind"] for p in s["players"].values()} == {"board"}
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board set up")
        click_move(base, "e1", "e4")
        assert state(base)["moves"] == ["e1-e4"] and state(base)["move_to_make"] is None
    finally:
        proc.stop()
