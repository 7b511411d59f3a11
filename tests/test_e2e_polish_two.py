"""What a new user found rough (issue 26, round two), in headless Chromium at phone size
(390×844, touch) against the real daemon on loopback, in English and German: a takeback from
the board's button guided like one from the page, the display's mirror, the draw offer's
answer where the question is, back to the board after a new game, the computer form's place,
numbers and words."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PIN, control, state, wait_for
from test_e2e_browser import SHOTS, click, move
from test_e2e_polish import phone, start, wait_text

browser = e2e.browser  # one Chromium for the module

WORDS = {
    "en": {"takeback": "Takeback: move the attacker from d4 back to d1",
           "carry": "Move back:"},
    "de": {"takeback": "Rücknahme: stell den Angreifer von d4 zurück auf d1",
           "carry": "Zurückziehen:"},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_takeback_from_the_boards_button_is_guided_like_one_from_the_page(
        browser, tmp_path: Path, lang: str) -> None:
    """Issue 26, 4: the board's Takeback button left the display at "Set up the board / 2
    squares to fix" and every LED at ``setup``; the page, the display and the LEDs now say the
    same: this piece, from here back to there."""
    proc, base = start(tmp_path)
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        move(page, "d1", "d4")
        status, out = control(base, "api/button", {"button": "takeback"})
        assert status == 200, out
        wait_text(page, "#msg", WORDS[lang]["takeback"])
        assert page.locator("#board line.backline").count() == 1
        assert page.locator("#board circle.p.t.moving").count() == 1
        s = state(base)
        assert s["leds"] == {"d1": "make_to", "d4": "make_from"}
        assert s["display"]["lines"][0] == WORDS["en"]["carry"]
        assert s["display"]["lines"][2] == "d4 → d1"
        page.screenshot(path=str(SHOTS / f"tafl-polish2-takeback-button-{lang}.png"))
        click(page, "d4")
        click(page, "d1")
        page.wait_for_function("!document.querySelector('#board line.backline')")
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board set up again")
        assert page.errors == []
    finally:
        proc.stop()
