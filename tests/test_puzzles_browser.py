"""The puzzles on the page (docs/coach.md), in headless Chromium at phone size against the real
daemon, in English and German: the library of a variant with its goals, lengths and ratings, a
puzzle started from it, the board's set-up lights on the simulated board, and what the board
says once the position stands."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PATIENCE, PIN, state, wait_for
from test_e2e_polish import phone, start, wait_text

from companion.coach.puzzles import shipped

browser = e2e.browser  # one Chromium for the module

WORDS = {
    "en": {"goal": "in 1 move", "setup": "Set the position up as the lights show.",
           "rating": "Your puzzle rating: none yet", "move": "Your move."},
    "de": {"goal": "in 1 Zug", "setup": "Stelle die Stellung auf, wie die Lichter zeigen.",
           "rating": "Deine Rätselwertung: noch keine", "move": "Du bist am Zug."},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_lists_puzzles_and_starts_one(browser, tmp_path: Path, lang: str) -> None:
    w = WORDS[lang]
    first = sorted(shipped("brandubh"), key=lambda p: (p.rating, p.id))[0]
    proc, base = start(tmp_path)
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        page.wait_for_selector("#ctl:not([hidden])", state="attached")
        page.click("#puzzles summary")
        page.wait_for_selector("#puzzlevariant option[value=brandubh]", state="attached")
        page.select_option("#puzzlevariant", "brandubh")
        page.wait_for_selector(f"#puzzletable tr[data-puzzle='{first.id}'] button")
        wait_text(page, "#puzzleplayer", w["rating"])
        rows = page.locator("#puzzletable tr").count()
        assert rows == min(50, len(shipped("brandubh")))
        page.click(f"#puzzletable tr[data-puzzle='{first.id}'] button")
        wait_text(page, "#puzzleline", w["setup"])
        # the simulated board of 7x7 shows the set-up lights
        page.wait_for_function("document.querySelectorAll('#board rect.led.setup').length > 0")
        assert page.is_visible("#puzzleline")
        # set the position up by clicking the squares the guidance names, on the page's board
        for _ in range(10):
            st = state(base)
            if st["tracking"] == "ready":
                break
            g = st["guidance"]
            answers = []
            for sq in sorted(g.get("clear", [])) + sorted(g.get("fill", {})):
                # each tap is answered before the next: a tap the daemon refused, or one that
                # landed off its square, is named below instead of a bare timeout
                with page.expect_response(lambda r: r.url.endswith("/api/click"),
                                          timeout=PATIENCE * 1000) as answer:
                    page.click(f"#board rect.hit[data-sq='{sq}']")
                got = answer.value
                answers.append((sq, got.status, got.json()))
                assert got.ok and got.json()["square"] == sq, answers
            try:
                wait_for(lambda g=g: state(base)["guidance"] != g, what="the guidance to move on")
            except AssertionError as exc:
                now = state(base)
                raise AssertionError(
                    f"{exc}: guidance {g}, taps {answers}; now tracking {now['tracking']}, "
                    f"puzzle {now.get('puzzle')}, page says {page.inner_text('#msg')!r}; "
                    f"daemon:\n{''.join(proc.lines[-40:])}") from None
        wait_text(page, "#puzzleline", w["move"])
        assert page.errors == []
    finally:
        proc.stop()
