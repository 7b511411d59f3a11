"""A restart with the same command line keeps the game in progress (issue 30 defect 2): the
new-game options (``--variant``, ``--attackers``/``--defenders``) choose the next game and never
end a running one. Real daemon processes killed with ``kill -9``, as a crash or power cut (and
systemd's restart after it) would: an online game on the hnefatafl.org test double, a game
against the computer and a match, each started in another variant than ``--variant``."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest
from online_helpers import Opponent, join_seek, log_in, online, serving, spawn_online_daemon
from test_daemon_support import PIN, click_move, control, spawn_daemon, state, wait_for


def _games(data: Path) -> list[tuple[int, str, str | None]]:
    con = sqlite3.connect(data / "games.sqlite3")
    try:
        return [(int(r[0]), str(r[1]), r[2]) for r in con.execute(
            "SELECT id, variant, reason FROM games ORDER BY id")]
    finally:
        con.close()


@pytest.fixture
def server():
    yield from serving(("alice", "pw alice"), ("bob", "pw", 1701.0))


def test_a_kill_9_mid_online_game_resumes_it_with_the_same_command_line(
        tmp_path: Path, server) -> None:
    data = tmp_path / "data"
    args = ("--variant", "copenhagen", "--defenders", "online")
    proc, base = spawn_online_daemon(tmp_path, server, *args)
    try:
        log_in(base)
        bob = Opponent(server.address, "bob")
        game_id = join_seek(base, bob, '{"role":"Defender","rated":true,"time_settings":'
                            '{"Timed":{"add_seconds":10,"milliseconds_left":900000}},'
                            '"board_size":11}')
        st = wait_for(lambda: (s := state(base))["variant"] == "hnefatafl-org" and s,
                      what="the online game on the board")  # not --variant's copenhagen
        assert st["players"]["defenders"] == {**st["players"]["defenders"], "kind": "online",
                                              "name": "bob"}
        gid = st["game"]
        click_move(base, "e1", "e4")                                     # the board's move
        bob.expect(lambda line: line == f"game {game_id} play attacker e1 e4")
        bob.send(f"game {game_id} play defender h6 h9")
        mtm = wait_for(lambda: state(base)["move_to_make"], what="bob's move to make")
        assert mtm["move"] == "h6-h9"
        click_move(base, "h6", "h9")
        before = _games(data)
        proc.stop(signal.SIGKILL)                                        # the crash
        wait_for(lambda: "alice" not in server.online, what="the server noticed")
        proc, base = spawn_online_daemon(tmp_path, server, *args)        # the same command line
        st = state(base)
        assert st["game"] == gid and st["variant"] == "hnefatafl-org"
        assert st["moves"] == ["e1-e4", "h6-h9"] and st["result"] == "ongoing"
        assert st["players"]["defenders"]["kind"] == "online"
        assert st["players"]["defenders"]["name"] == "bob"
        assert _games(data) == before  # nothing abandoned, no new game, no third one
        wait_for(lambda: online(base)["status"] == "playing", what="the game resumed online")
        click_move(base, "d1", "d4")
        bob.expect(lambda line: line == f"game {game_id} play attacker d1 d4")
        assert state(base)["game"] == gid and _games(data) == before
    finally:
        out = proc.stop()
    assert "Traceback" not in out, out


def _spawn(data: Path, *extra: str):
    return spawn_daemon(["--board", "sim", "--port", "0", "--host", "127.0.0.1", "--pin", PIN,
                         "--data-dir", str(data), "--variant", "copenhagen", *extra])


def test_a_game_against_the_computer_in_another_variant_survives_kill_9(tmp_path: Path) -> None:
    proc, base = _spawn(tmp_path)
    try:
        status, out = control(base, "api/new", {"variant": "brandubh", "players": {
            "attackers": {"kind": "board", "name": "Me"},
            "defenders": {"kind": "computer", "level": 1, "name": "Computer"}}})
        assert status == 200, out
        gid = out["game"]
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board set up")
        click_move(base, "d1", "e1")  # brandubh: an attacker along the bottom edge
        wait_for(lambda: state(base)["move_to_make"], what="the computer's move")
        before = _games(tmp_path)
        moves = state(base)["moves"]
        proc.stop(signal.SIGKILL)
        proc, base = _spawn(tmp_path)
        st = state(base)
        assert st["game"] == gid and st["variant"] == "brandubh" and st["moves"] == moves
        assert st["players"]["defenders"]["kind"] == "computer"
        assert st["move_to_make"] is not None  # the computer's chosen move, shown again
        assert _games(tmp_path) == before
    finally:
        out = proc.stop()
    assert "Traceback" not in out, out


def test_a_match_in_another_variant_survives_kill_9_mid_game_and_between_games(
        tmp_path: Path) -> None:
    proc, base = _spawn(tmp_path)
    try:
        status, out = control(base, "api/new", {"variant": "brandubh", "match": True,
                                                "players": {
                                                    "attackers": {"kind": "board", "name": "Ann"},
                                                    "defenders": {"kind": "board", "name": "Bo"}}})
        assert status == 200, out
        gid, mid = out["game"], out["match"]
        assert mid is not None
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board set up")
        click_move(base, "d1", "e1")
        proc.stop(signal.SIGKILL)                                       # mid game 1
        proc, base = _spawn(tmp_path)
        st = state(base)
        assert st["game"] == gid and st["variant"] == "brandubh" and st["moves"] == ["d1-e1"]
        assert st["match"] is not None and st["match"]["id"] == mid
        assert control(base, "api/resign", {"side": "attackers"})[0] == 200
        wait_for(lambda: state(base)["result"] == "defenders", what="game 1 over")
        before = _games(tmp_path)
        proc.stop(signal.SIGKILL)                                       # between the games
        proc, base = _spawn(tmp_path)
        st = state(base)
        assert st["game"] == gid and st["result"] == "defenders"
        assert st["match"]["id"] == mid and st["match"]["next"]  # game 2 still to come
        assert _games(tmp_path) == before  # no copenhagen game started instead
        status, out = control(base, "api/next", {})
        assert status == 200, out
        st = state(base)
        assert st["game"] != gid and st["variant"] == "brandubh" and st["match"]["id"] == mid
    finally:
        out = proc.stop()
    assert "Traceback" not in out, out
