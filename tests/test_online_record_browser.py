"""Issue 25, attack 6, on the page at phone size (390x844) in real Chromium, English and German:
the server's record of the board's game lacks a move the server had acknowledged. The board
keeps its move and the page asks the owner; only when the owner takes the server's record does
the board's game drop it. Real daemon process, the protocol-faithful test server, a scripted
opponent."""

from __future__ import annotations

import pytest
from online_helpers import Opponent, join_seek, online
from online_page_fixtures import daemon, server  # noqa: F401  (the fixtures)
from test_daemon_support import PIN, state, wait_for
from test_e2e_browser import SHOTS, browser, move, open_page  # noqa: F401  (the fixture)


@pytest.mark.parametrize(("lang", "asks", "button"), [
    ("en", "The server's record of this game disagrees with the board's from move 2",
     "Take the other end's record"),
    ("de", "Die Notation des Servers weicht ab Zug 2 von der des Bretts ab",
     "Die Notation der Gegenseite übernehmen")])
def test_the_owner_is_asked_before_a_move_the_server_accepted_is_dropped(
        browser, daemon, server, lang, asks, button):  # noqa: F811
    wait_for(lambda: online(daemon)["status"] == "lobby", what="logged in")
    bob = Opponent(server.address, "bob")
    game_id = join_seek(daemon, bob, '{"role":"Attacker","rated":false,'
                        '"time_settings":"UnTimed","board_size":11}')
    page = open_page(browser, daemon + f"?lang={lang}#pin={PIN}")
    bob.send(f"game {game_id} play attacker e1 e4")
    page.wait_for_selector("#tomake:not([hidden])")
    move(page, "e1", "e4")
    move(page, "h6", "h9")                                    # acknowledged by the server
    bob.expect(lambda line: line == f"game {game_id} play defender h6 h9")
    wait_for(lambda: len(server.games[game_id].texts) == 2, what="the server has h6-h9")
    game = server.games[game_id]                              # its record, one move short
    kept, game.texts = game.texts, game.texts[:1]
    with server.lock:
        server._resume(server.online["alice"], "resume_game_json", game_id)
    game.texts = kept
    page.wait_for_selector("#disputebox:not([hidden])")
    assert asks in page.inner_text("#disputebox")
    assert page.inner_text("#disputebtn") == button
    assert state(daemon)["moves"] == ["e1-e4", "h6-h9"]      # the board keeps its move
    page.screenshot(path=str(SHOTS / f"online-record-dispute-{lang}.png"))
    page.click("#disputebtn")                                 # (the confirm is accepted)
    page.wait_for_selector("#disputebox", state="hidden")
    assert state(daemon)["moves"] == ["e1-e4"]
    assert not page.errors
