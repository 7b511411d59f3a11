"""The coach's warning on the phone page, in headless Chromium at phone size (390×844, touch)
against the real daemon on loopback with the simulated board, in English and German: the
owner chooses the coach in the new-game form, the coached attackers blunder in a position of a
real game (tests/data/brandubh.csv line 68), the page says what the move allows and lights its
threat on the drawn board, and its takeback button takes the move back."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PIN, control, spawn_daemon, state, wait_for
from test_e2e_polish import phone, wait_match, wait_text

browser = e2e.browser
POSITION, TURN = "/3t3/3t3/5T1/ttT1K1t/3t1t1/7/3t3/", "attackers"
WORDS = {"en": {"coach": "warn the attackers of a losing move", "careful": "Careful: b4-b3 lets "
                "the king reach", "back": "Take the move back"},
         "de": {"coach": "warnt die Angreifer vor einem verlierenden Zug",
                "careful": "Vorsicht: Nach b4-b3 erreicht der König", "back": "Zug zurücknehmen"}}


def start(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[coach]\nseconds = 1.0\n')
    return spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"),
                         "--variant", "brandubh"])


def click(base: str, square: str) -> None:
    status, out = control(base, "api/click", {"square": square})
    assert status == 200, out


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_shows_the_coachs_warning_and_takes_the_move_back(
        browser, tmp_path: Path, lang: str) -> None:
    w = WORDS[lang]
    proc, base = start(tmp_path)
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        # the new-game form offers the coach
        page.click("#controls > summary")
        page.click("#newgame > summary")
        page.wait_for_selector("#nf-coach")
        labels = page.eval_on_selector_all("#nf-coach option", "os => os.map(o => o.text)")
        assert w["coach"] in labels, labels
        page.select_option("#nf-coach", "attackers")
        page.click("#newgame summary")  # (put away: the game below starts from a position)
        status, out = control(base, "api/new", {"variant": "brandubh", "position": POSITION,
                                                "turn": TURN, "coach": "attackers"})
        assert status == 200, out
        wait_for(lambda: state(base)["tracking"] == "ready", what="the position set up")
        assert page.is_hidden("#coachbox")
        click(base, "b4")
        click(base, "b3")
        wait_text(page, "#coachbox p", w["careful"])
        warning = state(base)["coach"]["warning"]
        assert warning["move"] == "b4-b3"
        # the threat's squares light up on the drawn board, as on the real one
        page.wait_for_function("n => document.querySelectorAll('#board rect.led.warning')"
                               ".length === n", arg=len(warning["threat"]))
        box = page.locator("#coachbox").bounding_box()
        assert box is not None and box["width"] <= 390  # within the phone's width
        back = page.locator("#coachback")
        assert back.is_visible() and back.text_content() == w["back"]
        page.screenshot(path=str(e2e.SHOTS / f"coach-{lang}.png"))
        back.click()
        page.wait_for_selector("#coachbox", state="hidden")
        st = state(base)
        assert st["moves"] == [] and st["coach"]["warning"] is None
        assert page.errors == []
    finally:
        proc.stop()



@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_owner_asks_for_the_engines_view_of_the_position(browser, tmp_path: Path,
                                                             lang: str) -> None:
    words = {"en": ("Evaluate the position", "The engine's view: the ",
                    "The engine could not evaluate"),
             "de": ("Stellung bewerten", "Die Engine meint: die ",
                    "Die Engine konnte die Stellung nicht")}[lang]
    proc, base = start(tmp_path)
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        page.click("#controls > summary")
        button = page.locator("#ctl [data-act=eval]")
        button.wait_for()
        assert button.text_content() == words[0]
        button.click()
        # the engine's view, or why it has none (then the test says why it failed)
        wait_match(page, "#evaltext", f"{re.escape(words[1])}|{words[2]}")
        assert words[1] in page.inner_text("#evaltext"), page.inner_text("#evaltext")
        ev = state(base)["evaluation"]
        assert ev["best"] and ev["best"] in page.inner_text("#evaltext")
        assert state(base)["move_to_make"] is None
        click(base, "d2")  # a move (d2-c2): the score was the position before's
        click(base, "c2")
        page.wait_for_selector("#evaltext", state="hidden")
        # analysis mode: two people play, every position is evaluated as it comes
        page.check("#analysismode")
        wait_for(lambda: (state(base)["evaluation"] or {}).get("analysis"), what="analysis mode")
        wait_text(page, "#evaltext", words[1])
        ply = state(base)["evaluation"]["ply"]
        click(base, "d3")  # the defenders' d3-c3
        click(base, "c3")
        wait_for(lambda: (e := state(base)["evaluation"]) and e["ply"] == ply + 1
                 and e["score"] is not None, what="the next position evaluated")
        wait_text(page, "#evaltext", words[1])
        assert page.is_checked("#analysismode")
        assert page.errors == []
    finally:
        proc.stop()


def engine_pids(parent: int) -> list[int]:
    """The built-in engine processes the daemon ``parent`` started (its children)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"companion.engine" in cmd:
            pids.append(int(entry.name))
    return pids


@pytest.mark.parametrize("lang", ["en", "de"])
def test_an_evaluation_whose_engine_died_says_so_and_can_be_asked_again(
        browser, tmp_path: Path, lang: str) -> None:
    """The engine dies while it looks (killed here): the page says the evaluation failed and
    why, instead of dropping it without a word; the button asks again."""
    words = {"en": ("The engine looks at the position", "The engine could not evaluate the "
                    "position: engine 'advisor' was killed"),
             "de": ("Die Engine bewertet die Stellung", "Die Engine konnte die Stellung nicht "
                    "bewerten: engine 'advisor' was killed")}[lang]
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[computer]\nhint_seconds = 30.0\n')  # (it looks long enough to be killed)
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"),
                               "--variant", "brandubh"])
    try:
        page = phone(browser, base + f"#pin={PIN}", lang)
        page.click("#controls > summary")
        button = page.locator("#ctl [data-act=eval]")
        button.click()
        wait_text(page, "#evaltext", words[0])
        wait_for(lambda: engine_pids(proc.proc.pid), what="the advisor's engine process")
        for pid in engine_pids(proc.proc.pid):
            os.kill(pid, signal.SIGKILL)
        wait_text(page, "#evaltext", words[1])
        assert "bad" in (page.get_attribute("#evaltext", "class") or "")
        assert state(base)["evaluation"]["error"].startswith("engine 'advisor' was killed")
        button.click()  # asked again: the engine looks again
        wait_text(page, "#evaltext", words[0])
        assert state(base)["evaluation"]["error"] is None
        assert page.errors == []
    finally:
        proc.stop()
