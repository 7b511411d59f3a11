"""Watching a game of two other accounts (companion.online.watch) against the protocol-faithful
test server (tests/hnefatafl_double.py): the games in progress in the lobby, ``watch_game_json``
and the watcher's pushes (both sides' moves, clocks, chat, the end), stopping, a reconnect, a
game that ends without a word to watchers; and joining a bot's open game. A recording inbox in
the session's place; scripted accounts play the game."""

from __future__ import annotations

import json
import time

import pytest
from hnefatafl_double import HnefataflDouble
from online_helpers import Opponent, flushed, handled, wait_until
from test_online_client import mv, start_client

from companion.online import resume as resume_module
from companion.online import watch as watch_module
from companion.session.remote import (
    RemoteChat,
    RemoteClock,
    RemoteEnd,
    RemoteLeave,
    RemoteMove,
    RemoteResign,
    RemoteStart,
)


@pytest.fixture
def server():
    double = HnefataflDouble().start()
    for user, rating in (("alice", 1500.0), ("bob", 1723.5), ("carol", 1650.0),
                         ("dave", 1500.0), ("erin", 1500.0), ("ai-0b62a6", 2212.0)):
        double.add_account(user, "pw" if user != "alice" else "secret pw", rating)
    yield double
    double.stop()


@pytest.fixture
def client(server, tmp_path):
    service, player, inbox = start_client(server, tmp_path)
    wait_until(lambda: service.status()["status"] == "lobby", what="the lobby")
    yield service, player, inbox
    service.close()


def two_play(server, board_size=11, timed=True, names=("bob", "carol")):
    """bob (attackers) and carol (defenders) start a game on the server."""
    bob, carol = Opponent(server.address, names[0]), Opponent(server.address, names[1])
    ts = ('{"Timed":{"add_seconds":10,"milliseconds_left":900000}}' if timed
          else '"UnTimed"')
    bob.send(f'new_game {{"role":"Attacker","rated":true,"time_settings":{ts},'
             f'"board_size":{board_size}}}')
    game_id = int(bob.expect(lambda line: line.startswith("= new_game ")).split()[2])
    carol.send(f"join_game_pending {game_id}")
    bob.expect(lambda line: line == f"= challenge_requested {game_id}")
    bob.send(f"join_game {game_id}")
    carol.expect(lambda line: line.startswith("= join_game "))
    return bob, carol, game_id


def play(player, game_id, role, frm, to, other):
    player.send(f"game {game_id} play {role} {frm} {to}")
    other.expect(lambda line: line == f"game {game_id} play {role} {frm} {to}")


def test_watch_a_game_in_progress_both_sides_moves_to_the_end(server, client):
    service, player, inbox = client
    bob, carol, game_id = two_play(server)
    play(bob, game_id, "attacker", "e1", "e4", carol)
    live = wait_until(lambda: service.status()["live_games"], what="the game in progress")
    assert live == [{"id": game_id, "attackers": "bob", "defenders": "carol",
                     "ratings": {"attackers": 1723.5, "defenders": 1650.0},
                     "variant": "copenhagen", "size": 11, "rated": True,
                     "time_control": "15+10"}]
    assert service.status()["open_games"] == []        # not a game to join
    service.watch(game_id)
    start = inbox.wait_for(RemoteStart)
    terms = start.terms
    assert terms.watching and terms.local_side == "" and terms.ref.endswith(f"/{game_id}")
    assert [(s.name, s.rating) for s in terms.watched] == [("bob", 1723.5), ("carol", 1650.0)]
    assert terms.settings.variant == "hnefatafl-org" and terms.time_control.main == 900
    assert start.moves == (mv(11, "e1", "e4"),)
    assert inbox.wait_for(RemoteClock).running == "defenders"
    status = service.status()
    assert status["status"] == "watching" and status["game"]["watching"] is True
    assert status["game"]["attackers"] == "bob" and status["game"]["side"] is None
    assert "alice" in server.games[game_id].watchers
    # both sides' moves, in order, with the plies the board counts
    play(carol, game_id, "defender", "h6", "h9", bob)
    assert inbox.wait_for(RemoteMove) == RemoteMove(1, mv(11, "h6", "h9"))
    play(bob, game_id, "attacker", "g1", "g4", carol)     # captures f4: not announced
    assert inbox.wait_for(RemoteMove) == RemoteMove(2, mv(11, "g1", "g4"))
    wait_until(lambda: service.table.play.game.plies == 3)
    assert service.table.play.game.game.played[-1].text == "g1-g4xf4"
    # the clocks after the third move: the defenders' has had its increment, theirs runs
    inbox.wait_for(RemoteClock, lambda e: e.running == "defenders" and e.defenders > 905)
    carol.send(f"text_game {game_id} well played")
    assert inbox.wait_for(RemoteChat).text == "well played"
    # nothing of the board's is ever sent for a watched game
    player.send_move(3, mv(11, "h9", "h10"))
    player.send_resign("defenders")
    player.send_draw("defenders", "offer")
    flushed(service, server)
    assert not any(line.startswith(("game ", "request_draw", "draw "))
                   for line in server.received("alice"))
    # the end, in the server's words (a resignation: no RemoteResign for a watched game)
    carol.send(f"game {game_id} play defender resigns _")
    assert inbox.wait_for(RemoteEnd) == RemoteEnd("attackers", "resignation")
    assert inbox.of(RemoteResign) == []
    wait_until(lambda: service.status()["status"] == "lobby", what="back in the lobby")


def test_stop_watching_and_watch_another(server, client):
    service, player, inbox = client
    bob, carol, game_id = two_play(server)
    service.watch(game_id)
    inbox.wait_for(RemoteStart)
    with pytest.raises(ValueError, match="stop watching"):
        service.seek("attackers", "copenhagen", False, "none")
    service.unwatch()
    leave = inbox.wait_for(RemoteLeave)
    assert leave.code == "stopped_watching"
    wait_until(lambda: "alice" not in server.games[game_id].watchers, what="left")
    assert service.status()["status"] == "lobby" and service.status()["game"] is None
    play(bob, game_id, "attacker", "e1", "e4", carol)
    handled(service, server)
    assert inbox.of(RemoteMove) == []
    # watching another game replaces the first (its watching is left on the server)
    service.watch(game_id)
    inbox.wait_for(RemoteStart)
    dave, erin, second = two_play(server, board_size=13, timed=False, names=("dave", "erin"))
    service.watch(second)
    start = inbox.wait_for(RemoteStart, lambda e: e.terms.ref.endswith(f"/{second}"))
    assert start.terms.settings.variant == "hnefatafl-org-13" and start.terms.time_control is None
    wait_until(lambda: "alice" not in server.games[game_id].watchers, what="the first left")
    play(dave, second, "attacker", "D1", "D3", erin)
    assert inbox.wait_for(RemoteMove) == RemoteMove(0, mv(13, "D1", "D3"))
    # a game that is not on the server: no answer, a clear message, nothing changes
    watch_module.ASK_TIMEOUT = 1.0
    try:
        service.watch(999)
        wait_until(lambda: service.status()["code"] == "watch_unanswered", what="no answer")
    finally:
        watch_module.ASK_TIMEOUT = 15.0
    assert service.status()["status"] == "watching" and service.status()["game"]["id"] == second


def test_a_reconnect_asks_for_the_game_again(server, client):
    service, player, inbox = client
    bob, carol, game_id = two_play(server)
    service.watch(game_id)
    inbox.wait_for(RemoteStart)
    server.drop("alice")                        # a clean drop: the server logs alice out
    play(bob, game_id, "attacker", "e1", "e4", carol)   # missed while away
    start = inbox.wait_for(RemoteStart)
    assert start.moves == (mv(11, "e1", "e4"),)     # the whole record: the session keeps its own
    wait_until(lambda: server.games[game_id].watchers.get("alice") is server.online.get("alice"),
               what="watching on the new connection")
    play(carol, game_id, "defender", "h6", "h9", bob)
    assert inbox.wait_for(RemoteMove) == RemoteMove(1, mv(11, "h6", "h9"))
    # after a restart, the session hands the player the stored game: it is asked for again
    service.table.play.game = None
    player.started(start.terms, (mv(11, "e1", "e4"),))
    again = inbox.wait_for(RemoteStart)
    assert again.moves == (mv(11, "e1", "e4"), mv(11, "h6", "h9"))


def test_a_draw_the_players_agree_is_not_shown_to_watchers_the_game_is_let_go(
        server, client, monkeypatch):
    monkeypatch.setattr(resume_module, "RESUME_TIMEOUT", 1.0)
    service, player, inbox = client
    bob, carol, game_id = two_play(server)
    wait_until(lambda: service.status()["live_games"], what="the game in the lobby")
    service.watch(game_id)
    inbox.wait_for(RemoteStart)
    bob.send(f"request_draw {game_id} attacker")
    carol.expect(lambda line: line == f"request_draw {game_id} attacker")
    carol.send(f"draw {game_id} accept")
    bob.expect(lambda line: line == "= draw accept")
    # the watcher hears nothing; the game leaves the lobby; asked for, it gets no answer
    leave = inbox.wait_for(RemoteLeave)
    assert leave.code == "game_gone" and "watchers" in leave.reason
    assert inbox.of(RemoteEnd) == []
    wait_until(lambda: service.status()["code"] == "game_gone", what="said on the page")
    assert service.status()["status"] == "lobby" and "watchers" in service.status()["message"]


def test_join_a_bots_open_rated_game(server, client):
    """The server's bots open rated 15 + 10 games on 11x11 and accept any challenger."""
    service, player, inbox = client
    bot = Opponent(server.address, "ai-0b62a6")
    bot.send('new_game {"role":"Defender","rated":true,"time_settings":{"Timed":'
             '{"add_seconds":10,"milliseconds_left":900000}},"board_size":11}')
    game_id = int(bot.expect(lambda line: line.startswith("= new_game ")).split()[2])
    g = wait_until(lambda: service.status()["open_games"], what="the bot's game")[0]
    assert (g["by"], g["rating"], g["side"], g["rated"], g["time_control"]) == (
        "ai-0b62a6", 2212.0, "attackers", True, "15+10")
    service.join(game_id)
    bot.expect(lambda line: line == f"= challenge_requested {game_id}")
    bot.send(f"join_game {game_id}")        # the bot accepts any challenger
    start = inbox.wait_for(RemoteStart)
    assert start.terms.local_side == "attackers" and start.terms.opponent == "ai-0b62a6"
    assert start.terms.rated and start.terms.rating == 2212.0
    player.send_move(0, mv(11, "e1", "e4"))
    bot.expect(lambda line: line == f"game {game_id} play attacker e1 e4")
    # the board's own game is not listed to watch, and is not watched when asked
    wait_until(lambda: game_id in service.lobby.games and service.lobby.games[game_id].started,
               what="the game in progress in the lobby")
    assert service.status()["live_games"] == []
    with pytest.raises(ValueError, match="finish the game"):
        service.watch(game_id)
    # a record of it as if asked to watch (e.g. before the lobby listed it): not watched
    def ask() -> None:
        service.table.watch.asked, service.table.watch.asked_at = game_id, time.monotonic()

    service.call(ask)
    wait_until(lambda: service.table.watch.asked == game_id, what="asked")
    record = json.dumps({"id": game_id, "attackers": "alice", "defenders": "ai-0b62a6",
                         "dim": 11, "start": "", "time_control": None,
                         "time_remaining_ms": None, "moves": "e1-e4", "rated": True,
                         "messages": []})
    server.inject("alice", f"= watch_game_json {record}")
    wait_until(lambda: service.status()["code"] == "watch_own_game", what="refused")
    assert f"watch_game_json {game_id}" not in server.received("alice")
    assert service.status()["status"] == "playing" and inbox.of(RemoteStart) == []


def test_hostile_lines_about_a_watched_game_change_nothing(server, client):
    """A move the rules do not allow on the watched board, garbled lines, a record with an
    illegal move, a move for another game: each is a clear message; the game stays as it was."""
    service, player, inbox = client
    bob, carol, game_id = two_play(server)
    play(bob, game_id, "attacker", "e1", "e4", carol)
    service.watch(game_id)
    inbox.wait_for(RemoteStart)
    asked = server.received("alice").count(f"watch_game_json {game_id}")
    # an attackers' move in the defenders' turn: not shown; the server's record is asked again
    server.inject("alice", f"game {game_id} play attacker e4 e5")
    again = inbox.wait_for(RemoteStart)
    assert again.moves == (mv(11, "e1", "e4"),)            # the server's word, unchanged
    assert server.received("alice").count(f"watch_game_json {game_id}") == asked + 1
    assert inbox.of(RemoteMove) == []
    assert service.table.play.game.plies == 1
    # garbled lines and a move for a game not watched: ignored, counted, said
    ignored = service.status()["ignored"]
    for line in (f"game {game_id} play attacker zz9 e5", f"game {game_id} play king e4 e5",
                 '= watch_game_json {"id":', "game 77 play defender h6 h9"):
        server.inject("alice", line)
    wait_until(lambda: service.status()["ignored"] >= ignored + 4, what="four lines ignored")
    assert "77" in service.status()["message"]
    # a record of the watched game with a move the rules do not allow: ignored as a whole
    record = json.dumps({"id": game_id, "attackers": "bob", "defenders": "carol", "dim": 11,
                         "start": "", "time_control": None, "time_remaining_ms": None,
                         "moves": "e1-e4 e4-e5", "rated": True, "messages": []})
    server.inject("alice", f"= watch_game_json {record}")
    wait_until(lambda: service.status()["code"] == "watch_bad_record", what="the bad record")
    assert "move 2" in service.status()["message"]
    handled(service, server)
    assert inbox.of(RemoteStart) == [] and service.table.play.game.plies == 1
    assert service.status()["status"] == "watching"
    # the game goes on as the server has it
    play(carol, game_id, "defender", "h6", "h9", bob)
    assert inbox.wait_for(RemoteMove) == RemoteMove(1, mv(11, "h6", "h9"))
