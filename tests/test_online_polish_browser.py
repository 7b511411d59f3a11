"""Issue 26, items 1 and 10, on the page at phone size (390x844) in real Chromium, English and
German: one's own seek says the side one plays; the server's long presets read as days and
hours; the status says only what the page words itself (no raw English, no pointer to a file a
phone cannot open); after joining, the server's clocks run on the page; the opponent's chat
shows where the game is. Real daemon process, the protocol-faithful test server."""

from __future__ import annotations

import pytest
from online_helpers import Opponent, join_seek, online
from online_page_fixtures import daemon, server  # noqa: F401  (the fixtures)
from test_daemon_support import PIN, control, wait_for
from test_e2e_browser import SHOTS, browser, open_page  # noqa: F401  (the fixture)

WORDS = {
    "en": {"mine": "your game: you play the attackers", "tc": "3 d + 6 h",
           "first": "The clocks start with the first move", "chat": "bob says: good luck"},
    "de": {"mine": "deine Partie: du spielst die Angreifer", "tc": "3 T. + 6 Std.",
           "first": "Die Uhren laufen ab dem ersten Zug", "chat": "bob schreibt: good luck"},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_online_play_reads_right_on_a_phone(browser, daemon, server, lang):  # noqa: F811
    w = WORDS[lang]
    wait_for(lambda: online(daemon)["status"] == "lobby", what="logged in")
    page = open_page(browser, daemon + f"?lang={lang}#pin={PIN}")
    page.click("#online summary")
    page.wait_for_selector("#onlineseek")
    page.select_option("#onlineseek select[name=side]", "attackers")
    page.select_option("#onlineseek select[name=time_control]", "4320+21600")
    assert page.inner_text("#onlineseek select[name=time_control] option:checked") == w["tc"]
    page.click("#onlineseek button")
    page.wait_for_selector(".onlinegames li")
    row = page.inner_text(".onlinegames li")
    assert w["mine"] in row and w["tc"] in row
    panel = page.inner_text("#onlinepanel")
    assert "docs/online.md" not in panel and "logged in to" not in panel
    page.screenshot(path=str(SHOTS / f"online-own-seek-{lang}.png"))
    assert control(daemon, "api/online/leave", {})[0] == 200
    bob = Opponent(server.address, "bob")
    game_id = join_seek(daemon, bob, '{"role":"Attacker","rated":false,"time_settings":'
                        '{"Timed":{"add_seconds":10,"milliseconds_left":900000}},"board_size":11}')
    # the server's clocks run from the join: the attackers' (bob's) clock is running
    page.wait_for_selector('#clocks .clock.run[data-side="attackers"]')
    assert w["first"] not in page.inner_text("#clocks")
    page.wait_for_function("document.querySelector('#clocks [data-side=attackers] .ctime')"
                           ".textContent !== '15:00'")
    bob.send(f"text_game {game_id} good luck")
    page.wait_for_selector("#chatline:not([hidden])")
    assert page.inner_text("#chatline") == w["chat"]
    page.screenshot(path=str(SHOTS / f"online-clocks-chat-{lang}.png"))
    assert not page.errors
