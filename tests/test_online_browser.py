"""The page's online panel in headless Chromium at phone size, against a real daemon process
whose online client talks to the protocol-faithful test server: log in, see the lobby live,
join a game, chat; the password never shown again; watch a game of two others on the board
(in German)."""

from __future__ import annotations

import pytest
from online_helpers import Opponent, serving, spawn_online_daemon
from test_daemon_support import PIN, control
from test_e2e_browser import SHOTS, browser, move, open_page  # noqa: F401  (the fixture)


@pytest.fixture
def server():
    # (alice's account is made on the page)
    yield from serving(("bob", "pw", 1612.0), ("carol", "pw", 1580.0), ("dave", "pw dave"))


@pytest.fixture
def daemon(tmp_path, server):
    proc, base = spawn_online_daemon(tmp_path, server)
    yield base
    proc.stop()


def test_log_in_see_the_lobby_join_and_chat(browser, daemon, server):  # noqa: F811
    page = open_page(browser, daemon + f"#pin={PIN}")
    page.click("#online summary")
    page.wait_for_selector("#onlinelogin")
    assert "unencrypted" in page.inner_text("#onlinepanel")
    page.fill("#onlinelogin input[name=user]", "alice")
    page.fill("#onlinelogin input[name=password]", "my pw")
    page.check("#onlinelogin input[name=create]")
    page.click("#onlinelogin button")
    page.wait_for_function("document.getElementById('onlinestatus').textContent"
                           ".includes('lobby')")
    assert server.accounts["alice"] == "my pw"
    bob = Opponent(server.address, "bob")
    bob.send('new_game {"role":"Attacker","rated":true,"time_settings":{"Timed":'
             '{"add_seconds":10,"milliseconds_left":900000}},"board_size":11}')
    page.wait_for_selector("#onlinepanel button[data-join]")
    row = page.inner_text(".onlinegames li")
    assert "bob (1612)" in row and "15 min + 10 s" in row
    page.screenshot(path=str(SHOTS / "online-lobby.png"))
    page.click("#onlinepanel button[data-join]")
    game_id = int(bob.expect(lambda line: line.startswith("= challenge_requested")).split()[2])
    bob.send(f"join_game {game_id}")
    page.wait_for_selector(".onlinegame")
    assert "against bob (1612)" in page.inner_text(".onlinegame")
    page.fill("#onlinechat input[name=text]", "good luck")
    page.click("#onlinechat button")
    bob.expect(lambda line: "good luck" in line)
    bob.send(f"text_game {game_id} thanks")
    page.wait_for_function("document.querySelector('.onlinechat') && "
                           "document.querySelector('.onlinechat').textContent.includes('thanks')")
    # moves from both sides: bob's is a move to make, made on the (simulated) board by clicks
    bob.send(f"game {game_id} play attacker e1 e4")
    page.wait_for_selector("#tomake:not([hidden])")
    assert "e1" in page.inner_text("#tomake") and "e4" in page.inner_text("#tomake")
    move(page, "e1", "e4")
    move(page, "h6", "h9")                                   # the board's own move
    bob.expect(lambda line: line == f"game {game_id} play defender h6 h9")
    page.screenshot(path=str(SHOTS / "online-game.png"))
    bob.send(f"game {game_id} play attacker g1 g4")          # captures f4 (not announced)
    page.wait_for_selector("#tomake:not([hidden])")
    move(page, "g1", "g4")
    page.click('#board [data-sq="f4"]')                      # lift the captured piece
    # the board resigns from the online panel (on its own turn)
    page.click("#onlinepanel button[data-online=resign]")
    bob.expect(lambda line: line.startswith(f"game {game_id} play defender resigns"))
    page.wait_for_selector("#result:not([hidden])")
    assert "ttackers" in page.inner_text("#result")
    assert server.games[game_id].texts == ["e1-e4", "h6-h9", "g1-g4xf4"]
    assert "my pw" not in page.content()
    assert not page.errors


def test_the_panel_in_german(browser, daemon):  # noqa: F811
    page = open_page(browser, daemon + f"?lang=de#pin={PIN}")
    page.click("#online summary")
    page.wait_for_selector("#onlinelogin")
    text = page.inner_text("#onlinepanel")
    assert "unverschlüsselt" in text and "Anmelden" in page.inner_text("#onlinelogin")
    assert "So funktioniert Online-Spielen" in text
    assert "Online spielen" in page.inner_text("#online summary")
    assert not page.errors


def test_watch_a_game_on_the_board_in_german(browser, daemon, server):  # noqa: F811
    from test_online_watch import play, two_play

    assert control(daemon, "api/online/login", {"user": "dave", "password": "pw dave"})[0] \
        == 200
    bob, carol, game_id = two_play(server)
    play(bob, game_id, "attacker", "e1", "e4", carol)
    page = open_page(browser, daemon + f"?lang=de#pin={PIN}")
    page.click("#online summary")
    page.wait_for_selector("#onlinelive button[data-watch]")
    row = page.inner_text("#onlinelive li")
    assert "bob (1612) (Angreifer) gegen carol (1580) (Verteidiger)" in row
    assert "15 Min. + 10 s" in row
    assert "Laufende Partien" in page.inner_text("#onlinepanel")
    page.click("#onlinelive button[data-watch]")
    page.wait_for_selector("#onlinepanel button[data-online=unwatch]")
    assert f"Du schaust Partie {game_id} zu" in page.inner_text(".onlinegame")
    page.wait_for_function("document.getElementById('onlinestatus').textContent"
                           ".includes('Zuschauen: Führe')")
    # both sides' moves are moves to make, made on the (simulated) board by clicks
    page.wait_for_selector("#tomake:not([hidden])")
    assert "e1" in page.inner_text("#tomake") and "e4" in page.inner_text("#tomake")
    move(page, "e1", "e4")
    play(carol, game_id, "defender", "h6", "h9", bob)
    page.wait_for_selector("#tomake:not([hidden])")
    assert "carol" in page.inner_text("#tomake")
    move(page, "h6", "h9")
    page.screenshot(path=str(SHOTS / "online-watch.png"))
    # stop watching: the board is free, the game is listed again to watch
    page.click("#onlinepanel button[data-online=unwatch]")
    page.wait_for_selector("#onlinelive button[data-watch]")
    assert "dave" not in server.games[game_id].watchers
    assert not page.errors
