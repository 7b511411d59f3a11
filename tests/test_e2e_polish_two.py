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


MIRROR = {"en": ("Attackers to move", "The board's buttons:"),
          "de": ("Angreifer am Zug", "Die Tasten am Brett:")}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_mirror_shows_the_displays_own_frame_in_the_pages_language(
        browser, tmp_path: Path, lang: str) -> None:
    """Issue 26, 5, 14, 15: the mirror drew the lines as page text (whole, where the OLED cuts
    them: "Copenhagen Hnefa…"), in English on a German page; the board's buttons had no
    caption; a friend's page showed the display meant for the person at the board. Now the
    mirror is the 128×64 frame luma draws (in the page's language on the simulated board),
    captioned buttons for the owner, and no mirror on a player's link."""
    import json
    from urllib.request import urlopen

    proc, base = start(tmp_path, "--defenders", "page")
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        page.wait_for_selector("#boardpanel .oled img[src^='data:image/png']")
        size = page.eval_on_selector("#boardpanel .oled img",
                                     "i => [i.naturalWidth, i.naturalHeight]")
        assert size == [128, 64]
        head, caption = MIRROR[lang]
        page.wait_for_function("t => document.querySelector('#boardpanel .oled div')"
                               ".textContent === t", arg=head)
        with urlopen(base + f"api/display?lang={lang}") as r:
            frame = json.load(r)
        assert frame["lines"][0] == head and frame["lang"] == lang
        assert page.eval_on_selector("#boardpanel .oled img", "i => i.src") == frame["image"]
        assert page.inner_text("#boardpanel .panelcaption") == caption
        page.screenshot(path=str(SHOTS / f"tafl-polish2-mirror-{lang}.png"))
        _, links = control(base, "api/links")
        friend = phone(browser, base.rstrip("/") + links["links"]["defenders"]["path"], lang)
        friend.wait_for_selector("#boardpanel", state="attached")
        assert friend.is_hidden("#boardpanel")
        assert page.errors == [] and friend.errors == []
    finally:
        proc.stop()
