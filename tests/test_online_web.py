"""The online routes (GET /api/online, POST /api/online/login|seek|join|leave|chat|watch|unwatch)
of a real in-process daemon, its online client talking to the protocol-faithful test server."""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import replace

import pytest
from online_helpers import Opponent, serving
from test_daemon_support import control, http, test_config, wait_for

from companion.online.account import OnlineConfig


@pytest.fixture
def server():
    yield from serving(("alice", "pw alice"), ("bob", "pw", 1650.0))


@pytest.fixture
def daemon(tmp_path, server):
    from companion.daemon import Daemon

    cfg = replace(test_config(tmp_path), online=OnlineConfig(server=server.address))
    d = Daemon(cfg)
    d.start()
    yield d
    d.stop()


def online(d) -> dict:
    status, _h, body = http(f"http://127.0.0.1:{d.port}/api/online")
    assert status == 200
    return json.loads(body)


def test_login_lobby_seek_join_leave(daemon, server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    base = f"http://127.0.0.1:{daemon.port}/"
    state = online(daemon)
    assert state["status"] == "off" and state["user"] is None and state["server"] == \
        server.address
    assert "15+10" in state["presets"] and state["variants"] == [
        "brandubh", "copenhagen", "copenhagen-13"]
    # controls are the owner's
    assert control(base, "api/online/login", {"user": "alice", "password": "x"},
                   pin=None)[0] == 403
    assert control(base, "api/online/login", {"user": "a b", "password": "x"})[0] == 400
    assert control(base, "api/online/login", {"user": "alice", "pass": "x"})[0] == 400
    assert control(base, "api/online/login", {"user": "alice", "password": "pw alice"}) == (
        200, {"ok": True})
    wait_for(lambda: online(daemon)["status"] == "lobby", what="the lobby")
    path = tmp_path / "online-account.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # bob's open game appears in the lobby
    bob = Opponent(server.address, "bob")
    bob.send('new_game {"role":"Attacker","rated":true,"time_settings":{"Timed":'
             '{"add_seconds":3,"milliseconds_left":300000}},"board_size":11}')
    wait_for(lambda: online(daemon)["open_games"], what="bob's game")
    [game] = online(daemon)["open_games"]
    assert (game["by"], game["side"], game["variant"], game["rated"], game["time_control"],
            game["rating"]) == ("bob", "defenders", "copenhagen", True, "5+3", 1650.0)
    # a seek of ours, withdrawn
    assert control(base, "api/online/seek", {"side": "attackers", "variant": "brandubh",
                                             "rated": False, "time_control": "none"})[0] == 200
    wait_for(lambda: online(daemon)["seek"] is not None, what="our seek")
    assert control(base, "api/online/leave", {})[0] == 200
    wait_for(lambda: len(server.games) == 1, what="our seek withdrawn on the server")
    for bad in ({"side": "up"}, {"side": "attackers", "variant": "chess"},
                {"side": "attackers", "time_control": "fast"}, {"side": "attackers",
                                                                "rated": "yes"}):
        assert control(base, "api/online/seek", bad)[0] == 400
    # join bob's game: bob accepts, the game starts on the server
    assert control(base, "api/online/join", {"id": game["id"]})[0] == 200
    bob.expect(lambda line: line.startswith("= challenge_requested"))
    bob.send(f"join_game {game['id']}")
    wait_for(lambda: online(daemon)["game"], what="the game")
    g = online(daemon)["game"]
    assert (g["opponent"], g["side"], g["variant"], g["rated"]) == (
        "bob", "defenders", "hnefatafl-org", True)
    assert online(daemon)["status"] == "playing"
    assert control(base, "api/online/join", {"id": "x"})[0] == 400
    # watching: the owner's, a game's number, not while a game of the board's own goes on
    assert control(base, "api/online/watch", {"id": 3}, pin=None)[0] == 403
    assert control(base, "api/online/unwatch", {}, pin=None)[0] == 403
    for bad in ({"id": "3"}, {"id": True}, {"id": -1}, {"game": 3}, {}):
        assert control(base, "api/online/watch", bad)[0] == 400, bad
    refused = control(base, "api/online/watch", {"id": game["id"]})
    assert refused[0] == 400 and "finish the game" in refused[1]["error"]
    assert control(base, "api/online/chat", {"text": "good luck"})[0] == 200
    bob.expect(lambda line: "good luck" in line)
    # the password never reaches the page or the log
    _s, _h, body = http(base + "api/online")
    assert b"pw alice" not in body
    assert "pw alice" not in caplog.text


def test_the_scan_loop_runs_on_while_the_server_is_silent_or_gone(daemon, server):
    """The loop never waits on the online client: it goes on while the server is silent, and
    after it is gone (the rates themselves: bench/online.py)."""
    from companion.online.player import OnlinePlayer
    from companion.rules import Move

    base = f"http://127.0.0.1:{daemon.port}/"
    assert control(base, "api/online/login", {"user": "alice", "password": "pw alice"})[0] == 200
    wait_for(lambda: online(daemon)["status"] == "lobby", what="the lobby")
    player = OnlinePlayer(daemon.online)
    for phase in ("silent", "gone"):
        if phase == "silent":
            server.freeze()
        else:
            server.stop()
        before = daemon.iterations
        for _ in range(500):
            player.send_move(0, Move(3, 36))   # queued for the network thread, never waits
        wait_for(lambda b=before: daemon.iterations > b + 10, what="loop steps")
        assert online(daemon)["status"] in ("lobby", "reconnecting", "connecting")
