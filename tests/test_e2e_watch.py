"""What everyone sees, in headless Chromium against the real daemon: a board that drops out is
never shown with "X to move"; the owner's phone links as QR codes (spectators, and a player link
per side that opens that side's page); the rules card of every preset in English and German."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PIN, running_daemon, state, wait_for
from test_e2e_browser import PHONE, click, move
from test_e2e_play import page_for, wait_text

from companion.rules import get_variant
from companion.rules.game import Game
from companion.scan import Scan

browser = e2e.browser
daemon = e2e.daemon


class UnpluggableBoard:
    """A real-kind board (not the simulator) whose cable the test pulls: while unplugged it gives
    no reading, as a serial board whose link is down."""

    kind = "serial"

    def __init__(self, size: int, occupied) -> None:
        self.size = size
        self.occupied = frozenset(occupied)
        self.connected = True

    def scan(self, now: float) -> Scan | None:
        return Scan(now, self.occupied) if self.connected else None

    def status(self) -> dict:
        return {"kind": self.kind, "connected": self.connected,
                "detail": "" if self.connected else "no frames from the board"}

    def close(self) -> None:
        pass


def test_a_board_that_drops_out_is_never_shown_with_whose_move(browser, tmp_path: Path) -> None:
    board = UnpluggableBoard(11, Game(get_variant("copenhagen")).board.occupied_names())
    with running_daemon(tmp_path, board=board) as d:
        page = page_for(browser, f"http://127.0.0.1:{d.port}/")
        wait_text(page, "#turntext", "Attackers to move")
        assert page.inner_text("#boardstatus").startswith("Board connected (serial)")
        board.connected = False
        wait_text(page, "#turntext", "Board not connected")
        for sel in ("header", "#msg"):
            assert "to move" not in page.inner_text(sel), (sel, page.inner_text(sel))
        assert page.inner_text("#msg").startswith("The board is not connected")
        assert "Board connected" not in page.inner_text("#boardstatus")
        assert "bad" in page.get_attribute("#boardstatus", "class")
        board.connected = True                     # plugged in again: play goes on
        wait_text(page, "#turntext", "Attackers to move")
        wait_text(page, "#msg", "Attackers to move")
        assert page.errors == []
        page.context.close()


def test_owner_sees_the_phone_links_as_qr_codes(browser, daemon) -> None:
    owner = page_for(browser, daemon + f"#pin={PIN}")
    owner.click("#controls summary")
    owner.wait_for_selector("#ctl", state="visible")
    owner.click("#invite summary")
    owner.wait_for_selector("#links img.qr")
    codes = owner.locator("#links img.qr")
    assert codes.count() == 3                      # spectators, attackers, defenders
    loaded = "[...document.querySelectorAll('#links img.qr')].every(i => i.naturalWidth > 0)"
    wait_for(lambda: owner.evaluate(loaded), what="the QR codes to load")
    text = owner.inner_text("#links")
    assert "For spectators" in text
    assert "Player link of the attackers (Player 1)" in text
    assert "Player link of the defenders (Player 2)" in text
    # a side played at the board is told how its link comes to life
    assert text.count("This side plays at the board now") == 2
    hrefs = owner.eval_on_selector_all("#links a", "as => as.map(a => a.href)")
    srcs = owner.eval_on_selector_all("#links img.qr", "is => is.map(i => i.getAttribute('src'))")
    assert [parse_qs(urlsplit(s).query)["text"][0] for s in srcs] == hrefs  # each code is its link
    assert hrefs[0] == daemon and all("player=" in h for h in hrefs[1:])
    # the defenders' link opens the defenders' page; its QR code reads as the same link
    remote = page_for(browser, hrefs[2])
    wait_text(remote, "#you", "You play the defenders")
    assert remote.is_hidden("#controls")
    assert owner.errors == [] and remote.errors == []
    owner.context.close()
    remote.context.close()


def test_rules_card_of_every_preset_in_both_languages(browser, daemon) -> None:
    """Each preset's card: its name, the four parts (board, moving, capturing, winning), whole
    sentences with nothing left unfilled; the German card translates every sentence."""
    cards = {}
    for lang in ("en", "de"):
        page = page_for(browser, daemon + f"?lang={lang}")
        page.click("#rulesbtn")
        page.wait_for_selector("#rulescard[open]")
        cards[lang] = page.evaluate("""() => window.T.getJSON('/api/rules').then(j =>
            Object.keys(j.rules).map(id => {
              const box = document.createElement('div');
              box.innerHTML = window.T.rulesCard(j.rules[id], id);
              return [id, box.querySelector('h2').textContent,
                      [...box.querySelectorAll('h3')].map(h => h.textContent),
                      [...box.querySelectorAll('li')].map(li => li.textContent)];
            }))""")
        page.context.close()
    assert len(cards["en"]) >= 12
    heads = {"en": ["Board", "Moving", "Capturing", "Winning"],
             "de": ["Brett", "Ziehen", "Schlagen", "Gewinnen"]}
    for (vid, title, parts, items), (vid_de, title_de, parts_de, items_de) in zip(
            cards["en"], cards["de"]):
        assert vid == vid_de
        for lang, t, p, lines in (("en", title, parts, items), ("de", title_de, parts_de,
                                                                 items_de)):
            assert p == heads[lang], (vid, lang, p)
            assert t and not re.search(r"seed|\(\d+×\d+\)", t), (vid, lang, t)
            assert len(lines) >= 8, (vid, lang, lines)
            for line in lines:
                assert line.endswith(".") and not re.search(r"\{|undefined|NaN|null", line), \
                    (vid, lang, line)
        assert len(items) == len(items_de)
        same = [a for a, b in zip(items, items_de) if a == b]
        assert same == [], (vid, same)             # every sentence is translated


def test_house_rules_chosen_on_the_page_are_shown_everywhere(browser, daemon) -> None:
    """The owner's new-game form with house rules: the game carries them, the live page names
    them, its rules card and the review's are written from them, not from the preset."""
    page = page_for(browser, daemon + f"#pin={PIN}")
    page.click("#controls summary")
    page.click("#newgame summary")
    page.wait_for_selector("#variant option[value=brandubh]", state="attached")
    page.select_option("#variant", "brandubh")
    assert page.evaluate("document.getElementById('nf-opt-king_armed').selectedOptions[0]"
                         ".textContent") == "yes (as the variant)"
    page.click("#newgame details summary")                 # House rules
    page.select_option("#nf-opt-king_armed", "false")
    page.select_option("#nf-opt-escape", "edge")
    page.click("button[data-act=new]")
    wait_for(lambda: (s := state(daemon))["variant"] == "brandubh" and s["tracking"] == "ready",
             what="the new game")
    s = state(daemon)
    assert s["settings"]["options"] == {"king_armed": False, "escape": "edge"}
    wait_text(page, "#houserules", "House rules: unarmed king and escape to any edge square")
    page.click("#rulesbtn")
    page.wait_for_selector("#rulescard[open]")
    card = page.inner_text("#rulescard")
    assert "The king is unarmed: he cannot help to capture." in card
    assert "The defenders win when the king reaches any square on the edge of the board." in card
    assert "house rules" in page.inner_text("#rulescard h2")
    page.click("#rulesclose")
    page.goto(daemon + f"review/{s['game']}")
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    assert "House rules: unarmed king and escape to any edge square" in page.inner_text("#rvinfo")
    page.click("#rvrules")
    page.wait_for_selector("#rulescard[open]")
    assert "The king is unarmed" in page.inner_text("#rulescard")
    assert page.errors == []
    page.context.close()


RECORDER = """
window.__heard = {notes: [], said: [], buzz: []};
const AC = window.AudioContext || window.webkitAudioContext;
if (AC) {
  const make = AC.prototype.createOscillator;
  AC.prototype.createOscillator = function () {
    const o = make.call(this);
    const start = o.start.bind(o);
    o.start = (t) => { window.__heard.notes.push(o.type + ":" + o.frequency.value); start(t); };
    return o;
  };
}
if (window.speechSynthesis) {
  window.speechSynthesis.speak = (u) => { window.__heard.said.push([u.lang, u.text]); };
}
Object.defineProperty(navigator, "vibrate", {value: (p) => {
  window.__heard.buzz.push(JSON.stringify(p)); return true; }});
"""


def heard(page) -> dict:
    return page.evaluate("(() => { const h = window.__heard; window.__heard = {notes: [], said: []"
                         ", buzz: []}; return h; })()")


def test_sounds_speech_and_vibration_when_switched_on(browser, daemon) -> None:
    """Off until switched on; then a move clicks, a capture plays two falling notes, an
    illegal move buzzes low; the words are spoken in the page's language (German here) and the
    phone vibrates a pattern of its own for each."""
    page = page_for(browser, daemon + f"#pin={PIN}", locale="de-DE")
    page.add_init_script(RECORDER)
    page.reload()
    page.wait_for_selector("#conn.live")
    move(page, "d1", "d4")                                 # everything off: silence
    assert heard(page) == {"notes": [], "said": [], "buzz": []}
    page.click("#settings summary")
    for name in ("sound", "speech", "vibrate"):
        page.check(f"input[data-set={name}]")
    got = heard(page)                                      # each switch answers at once
    assert got["notes"] == ["triangle:660"] and got["buzz"] == ["30"]
    assert got["said"] == [["de", "Ansagen sind eingeschaltet."]]
    move(page, "f4", "e4")
    got = heard(page)
    assert got["notes"] == ["triangle:660"] and got["buzz"] == ["30"]
    assert got["said"] == [["de", "Verteidiger: f4 nach e4"]]
    move(page, "f2", "f4")                                 # captures the defender on e4
    got = heard(page)
    assert got["notes"] == ["triangle:880", "triangle:520"] and got["buzz"] == ["[40,60,40]"]
    assert ["de", "Angreifer: f2 nach f4, schlägt e4"] in got["said"]
    click(page, "e4")                                      # lift it
    page.wait_for_function("!document.querySelector('#board circle.liftring')")
    heard(page)
    click(page, "g5")                                      # a diagonal move: illegal
    click(page, "h3")
    page.wait_for_function("document.getElementById('msg').textContent.startsWith('Nicht')")
    wait_for(lambda: page.evaluate("window.__heard.notes.length") >= 2, what="the buzz")
    got = heard(page)
    assert got["notes"] == ["square:160", "square:160"] and got["buzz"] == ["[200,100,200]"]
    assert got["said"] and got["said"][0][0] == "de" and got["said"][0][1].startswith(
        "Nicht erlaubt: Steine ziehen gerade")
    assert page.errors == []
    page.context.close()


SPILLS = """() => [...document.querySelectorAll('main *')]
  .filter(e => e.getClientRects().length && !e.closest('.boardwrap.zoom, option'))
  .filter(e => { const r = e.getBoundingClientRect();
                  return r.left < -1 || r.right > innerWidth + 1; })
  .map(e => e.tagName + '#' + e.id + ' ' + (e.textContent || '').slice(0, 40))"""


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_panel_fits_a_phone_in_both_languages(browser, daemon, lang) -> None:
    """Every part of the page opened at once (the owner's forms with the computer's rows, the
    phone links, the lights, past games, settings), then the review: nothing reaches past the
    edge of a 390 px screen, in English and in German (longer words)."""
    page = page_for(browser, daemon + f"?lang={lang}#pin={PIN}")
    page.click("#controls summary")
    page.wait_for_selector("#ctl", state="visible")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.wait_for_selector("#variant option[value=brandubh]", state="attached")
    page.wait_for_selector("#links img.qr")
    page.wait_for_selector("#gamelist li")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.select_option("#nf-mode", "computer")
    page.select_option("#nf-tc", "overtime")
    assert page.evaluate(SPILLS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    move(page, "d1", "d4")
    page.goto(daemon + f"review/{state(daemon)['game']}?lang={lang}")
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    page.click("#rvrules")
    page.wait_for_selector("#rulescard[open]")
    assert page.evaluate(SPILLS) == []
    card = page.locator("#rulescard").bounding_box()
    assert card["x"] >= 0 and card["x"] + card["width"] <= PHONE["width"]
    assert page.errors == []
    page.context.close()
