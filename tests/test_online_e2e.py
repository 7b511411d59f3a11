"""Online play end to end: the daemon's real HTTP API, the simulated board, its online client
talking to the protocol-faithful test server, and a scripted opponent on the server. The game
starts on the board when it starts on the server, the opponent's moves become moves to make,
the board's moves reach the opponent, captures are lifted, a kill -9 in the middle loses
nothing, and the result is the server's."""

from __future__ import annotations

import signal

import pytest
from online_helpers import Opponent, join_seek, log_in, online, serving, spawn_online_daemon
from test_daemon_support import click_move, control, state, wait_for

from companion.online.protocol import parse_square, square_name
from companion.rules import Board
from companion.rules.hnefatafl_org import BY_SIZE


@pytest.fixture
def server():
    yield from serving(("alice", "pw alice"), ("bob", "pw", 1701.0))


def start(tmp_path, server, variant="copenhagen"):
    return spawn_online_daemon(tmp_path, server, variant=variant)


def carry_out(base, want):
    """The person at the board makes the move to make (and lifts what it captures)."""
    mtm = wait_for(lambda: state(base)["move_to_make"], what="a move to make")
    assert mtm["by"] == "online" and mtm["move"] == want
    n = len(state(base)["moves"])
    click_move(base, mtm["from"], mtm["to"])
    s = state(base)
    assert len(s["moves"]) == n + 1
    for sq, role in s["leds"].items():
        if role == "capture":
            control(base, "api/click", {"square": sq})


def test_a_timed_game_with_a_kill_in_the_middle(tmp_path, server):
    proc, base = start(tmp_path, server)
    try:
        log_in(base)
        bob = Opponent(server.address, "bob")
        game_id = join_seek(base, bob, '{"role":"Attacker","rated":true,"time_settings":'
                            '{"Timed":{"add_seconds":10,"milliseconds_left":900000}},'
                            '"board_size":11}')
        s = wait_for(lambda: (lambda st: st if st["players"]["attackers"]["kind"] == "online"
                              else None)(state(base)), what="the game on the board")
        assert s["variant"] == "hnefatafl-org" and s["moves"] == []
        assert s["players"]["attackers"]["name"] == "bob"
        assert s["players"]["attackers"]["rating"] == 1701.0
        assert s["players"]["defenders"]["kind"] == "board"
        assert s["clock"] is not None
        # bob's move: a move to make at the board
        bob.send(f"game {game_id} play attacker e1 e4")
        carry_out(base, "e1-e4")
        click_move(base, "h6", "h9")                                   # the board's move
        bob.expect(lambda line: line == f"game {game_id} play defender h6 h9")
        bob.send(f"game {game_id} play attacker g1 g4")                # captures f4: unsaid
        carry_out(base, "g1-g4")
        wait_for(lambda: "f4" not in state(base)["occupied"], what="f4 lifted")
        assert state(base)["moves"][-1] == "g1-g4xf4"
        # kill -9 in the middle; bob moves while the board is away
        proc.stop(signal.SIGKILL)
        wait_for(lambda: "alice" not in server.online, what="the server noticed")
        proc, base = start(tmp_path, server)
        s = wait_for(lambda: (lambda st: st if st["players"]["attackers"]["kind"] == "online"
                              else None)(state(base)), what="the game restored")
        assert s["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"]
        wait_for(lambda: online(base)["status"] == "playing", what="resumed")
        click_move(base, "h9", "h10")
        bob.expect(lambda line: line == f"game {game_id} play defender h9 h10")
        proc.stop(signal.SIGKILL)
        wait_for(lambda: "alice" not in server.online, what="the server noticed")
        bob.send(f"game {game_id} play attacker e4 e2")
        bob.expect(lambda line: line == "= game")
        proc, base = start(tmp_path, server)
        carry_out(base, "e4-e2")                     # the move made meanwhile
        # the result is the server's: bob resigns
        click_move(base, "h10", "i10")
        bob.expect(lambda line: line == f"game {game_id} play defender h10 i10")
        bob.send(f"game {game_id} play attacker resigns _")
        s = wait_for(lambda: (lambda st: st if st["result"] != "ongoing" else None)(state(base)),
                     what="the end")
        assert s["result"] == "defenders" and s["reason"] == "resignation"
        # the server's move list is the board's
        server_moves = server.games[game_id].texts
        assert server_moves == s["moves"]
    finally:
        proc.stop()


def test_a_brandubh_seek_starts_on_the_board(tmp_path, server):
    proc, base = start(tmp_path, server, variant="brandubh")
    try:
        log_in(base)
        assert control(base, "api/online/seek", {"side": "attackers", "variant": "brandubh",
                                                 "rated": False, "time_control": "5+3"})[0] == 200
        wait_for(lambda: online(base)["seek"] is not None, what="the seek")
        game_id = online(base)["seek"]
        bob = Opponent(server.address, "bob")
        bob.send(f"join_game_pending {game_id}")
        bob.expect(lambda line: line.startswith("= join_game "))
        s = wait_for(lambda: (lambda st: st if st["variant"] == "hnefatafl-org-7" else None)(
            state(base)), what="the 7x7 game")
        assert s["turn"] == "defenders" and s["players"]["defenders"]["kind"] == "online"
        bob.send(f"game {game_id} play defender 0c4 0c6")
        carry_out(base, "c4-c6")
        board = Board(BY_SIZE[7])
        board.push(board.parse_move("c4-c6")[0])
        click_move(base, "a4", "a5")
        bob.expect(lambda line: line == f"game {game_id} play attacker 0a4 0a5")
        assert square_name(parse_square("0a5", 7), 7) == "0a5"
    finally:
        proc.stop()
