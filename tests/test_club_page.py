"""The owner's page of a board of a club in headless Chromium at phone size, against two real
daemons on a real Mosquitto, in English and German: the other board's proposal shown with a
button that accepts it, the other board's move shown as the move to make and made here, the
broker link's state, and "a board of the club" chosen as the opponent on the new-game form."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_e2e_browser as e2e
from club_broker import MOSQUITTO, Mosquitto
from club_support import board, carry_out, play
from prerequisites import require
from test_daemon_support import PIN, control, state, wait_for
from test_e2e_browser import SHOTS, move
from test_e2e_polish import phone, wait_text

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)
browser = e2e.browser  # one Chromium for the module
WORDS = {
    "en": {"link": "Club oslo, this board: table-2 · connected to the club's broker",
           "proposal": "table-1 proposes Brandubh (5+3); this board plays the defenders.",
           "accept": "Accept and play", "playing": "Playing table-1, at another board of the club.",
           "tomake": "table-1 (attackers, at another board) plays d1 to e1. Make this move on "
                     "the board.",
           "kind": "at another board of the club (table-1)", "mode": "a board of the club",
           "seen": "Boards on the broker: table-1 (online)",
           "offering": "Proposed to table-1: the game starts when table-1 agrees.",
           "waiting": "Waiting for table-1 to agree on the game: no move counts before.",
           "far": "The attackers (table-1) play at a distance: waiting for their move."},
    "de": {"link": "Verein oslo, dieses Brett: table-2 · mit dem Broker des Vereins verbunden",
           "proposal": "table-1 schlägt Brandubh vor (5+3); dieses Brett spielt die Verteidiger.",
           "accept": "Annehmen und spielen",
           "playing": "Partie gegen table-1, an einem anderen Brett des Vereins.",
           "tomake": "table-1 (Angreifer, an einem anderen Brett) zieht von d1 nach e1.",
           "kind": "an einem anderen Brett des Vereins (table-1)", "mode": "ein Brett des Vereins",
           "seen": "Bretter am Broker: table-1 (online)",
           "offering": "An table-1 vorgeschlagen: Die Partie beginnt, sobald table-1 zustimmt.",
           "waiting": "Es wird gewartet, bis table-1 der Partie zustimmt: Bis dahin zählt kein "
                      "Zug.",
           "far": "Die Angreifer (table-1) spielen aus der Ferne: Ihr Zug wird erwartet."},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_owner_accepts_a_proposal_and_proposes_a_game_on_the_page(browser, tmp_path: Path,
                                                                       lang: str) -> None:
    w = WORDS[lang]
    broker = Mosquitto(tmp_path / "broker")
    d1, t1 = board(tmp_path, broker.url, "oslo", "table-1", "--defenders", "club:table-2",
                   "--time-control", "5+3")
    d2, t2 = board(tmp_path, broker.url, "oslo", "table-2")
    try:
        page = phone(browser, t2 + f"#pin={PIN}", lang)
        # the other board's proposal, with a button for the owner
        wait_text(page, "#clublink", w["link"])
        wait_text(page, "#clubprops", w["proposal"])
        assert page.is_visible("#clubbox") and page.inner_text(
            "#clubprops button[data-club=accept]") == w["accept"]
        page.screenshot(path=str(SHOTS / f"tafl-club-proposal-{lang}.png"))
        page.click("#clubprops button[data-club=accept]")
        wait_for(lambda: state(t1)["remote"]["ref"] and state(t1)["remote"]["ref"]
                 == state(t2)["remote"]["ref"], what="agreement")
        wait_text(page, "#clubgame", w["playing"])
        page.wait_for_selector("#clubprops button", state="detached")
        wait_text(page, "#msg", w["far"])
        assert w["kind"] in page.inner_text("#side-attackers")
        # the other board's move is the move to make here; the owner makes it on the page
        play(t1, "d1-e1")
        wait_text(page, "#tomake", w["tomake"])
        page.screenshot(path=str(SHOTS / f"tafl-club-tomake-{lang}.png"))
        move(page, "d1", "e1")
        assert state(t2)["moves"] == ["d1-e1"] and state(t2)["move_to_make"] is None
        # no pause at one end, no hints against a player at a distance
        assert page.is_hidden("#pausebtn") and page.is_hidden("#hintbtn")
        move(page, "d3", "e3")  # the defenders' move, made here, goes to table-1
        carry_out(t1, "d3-e3")
        control(t1, "/api/resign", {"side": "attackers"})
        wait_for(lambda: state(t2)["result"] == "defenders", what="resignation")

        # a new game chosen on the form: table-2 plays the attackers against table-1
        page.click("#controls summary")
        page.click("#newgame summary")
        page.wait_for_selector("#nf-mode")
        page.select_option("#nf-mode", "club")
        assert page.locator("#nf-mode option[value=club]").inner_text() == w["mode"]
        wait_text(page, "#nf-club-seen", w["seen"])
        assert page.locator("#nf-club-boards option[value=table-1]").count() == 1
        assert page.is_hidden("#newform [data-act=newmatch]")
        page.select_option("#nf-club-you", "attackers")
        page.fill("#nf-club-name", "Ann")
        page.fill("#nf-club-board", "table-1")
        page.select_option("#nf-tc", "none")
        page.click("#newform [data-act=new]")
        wait_text(page, "#clubgame", w["offering"])
        wait_text(page, "#msg", w["waiting"])
        s2 = state(t2)
        assert s2["players"]["attackers"]["name"] == "Ann"
        assert s2["players"]["defenders"] == {"name": "table-1", "kind": "club",
                                              "board": "table-1"}
        wait_for(lambda: state(t1)["remote"]["code"] == "proposal")
        assert control(t1, "/api/club/accept", {"board": "table-2"})[0] == 200
        wait_text(page, "#clubgame", w["playing"])
        # (t1 takes its side once the proposer's answer to the acceptance reaches it)
        s1 = wait_for(lambda: (st := state(t1))["remote"].get("local_side") == "defenders"
                      and st, what="table-1 playing the defenders")
        assert s1["clock"] is None
        wait_for(lambda: state(t2)["tracking"] == "ready", what="the new game set up")
        move(page, "d1", "e1")
        carry_out(t1, "d1-e1")
        assert page.errors == []
    finally:
        d1.stop()
        d2.stop()
        broker.stop()
