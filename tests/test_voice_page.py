"""The phone as the board's speaker (docs/voice.md), in headless Chromium at phone size: with
the board's voice on, the page speaks the board's own sentences (not its own words), puts them
in a live region a screen reader announces, and offers the owner *Say it again*, *Say the
clocks* and *Describe the position*, reachable from the keyboard."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_e2e_browser as e2e  # noqa: F401 - skips the module without a browser
from test_daemon_support import PIN, spawn_daemon, state, wait_for
from test_e2e_browser import (
    browser,  # noqa: F401 - the fixture
    click,
)
from test_e2e_play import page_for
from test_e2e_watch import RECORDER, heard


@pytest.fixture()
def voiced(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[players]\ndefenders = "computer:1"\n[voice]\nengine = "page"\n')
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data")])
    yield base
    proc.stop()


def spoken(page) -> list[str]:
    return [text for _, text in heard(page)["said"]]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_page_speaks_the_boards_sentences(browser, voiced, lang) -> None:  # noqa: F811
    page = page_for(browser, voiced + f"#pin={PIN}", locale="de-DE" if lang == "de" else "en-GB")
    page.add_init_script(RECORDER)
    page.reload()
    page.wait_for_selector("#conn.live")
    page.click("#settings summary")
    page.check("input[data-set=speech]")
    heard(page)
    click(page, "d1")
    click(page, "d4")
    mtm = wait_for(lambda: state(voiced)["move_to_make"], what="the computer's move")
    want = f"Computer: {mtm['from']} to {mtm['to']}"
    page.wait_for_function("t => [...window.taflAnnounced].some(a => a.kind === 'voice' && "
                           "a.text.startsWith(t))", arg=want)
    said = spoken(page)
    assert "d1 to d4." in said  # the board's sentence ...
    assert not any(t.startswith(("Attackers: d1", "Angreifer: d1")) for t in said)  # ... only
    assert any(t.startswith(want) for t in said)
    region = page.locator("#voicesaid")
    assert region.get_attribute("aria-live") == "polite"
    page.wait_for_function("t => document.getElementById('voicesaid').textContent.includes(t)",
                           arg=want)
    # the owner's voice buttons: labelled, reachable with the keyboard
    row = page.locator("#voicerow")
    assert row.is_visible()
    labels = row.locator("button").all_inner_texts()
    assert labels == (["Say it again", "Say the clocks", "Describe the position"] if lang == "en"
                      else ["Noch einmal sagen", "Uhren ansagen", "Stellung beschreiben"])
    page.locator("#voicerow button[data-voice=describe]").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => [...window.taflAnnounced].some(a => a.kind === 'voice' && "
                           "a.text.startsWith('Attackers: '))")
    assert page.errors == []
    page.context.close()


def test_a_spectator_hears_the_board_but_has_no_voice_buttons(browser, voiced) -> None:  # noqa: F811
    page = page_for(browser, voiced)
    page.add_init_script(RECORDER)
    page.reload()
    page.wait_for_selector("#conn.live")
    assert not page.locator("#voicerow").is_visible()
    assert page.locator("#voicesaid").get_attribute("role") == "log"
    page.context.close()
