"""The phone page in headless Chromium (Playwright) against the real daemon on loopback with a
simulated board and the real tracker: phone-size layout, live moves (their latency is
bench/page_latency.py's), capture and illegal-move messages, read-only without the PIN, and a
short game played by clicking."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from prerequisites import require
from test_daemon_support import PATIENCE, PIN, spawn_daemon, state, wait_for

CHROMIUM = "/usr/bin/chromium"
require(importlib.util.find_spec("playwright") is not None, "the playwright package",
        module_level=True)
require(Path(CHROMIUM).exists(), "/usr/bin/chromium (apt-get install chromium)",
        module_level=True)
playwright = pytest.importorskip("playwright.sync_api")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp")



@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def daemon(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data")])
    yield base
    proc.stop()


def browser_page(browser, url: str, viewport=PHONE, ready: str = "#board .hit",
                 live: bool = True, **context):
    """A page of ``url`` in a new browser context (``context``: Playwright's options), dialogs
    accepted, uncaught page errors collected in ``page.errors``; ready once ``ready`` is shown
    and, with ``live``, the live connection is up. The one way every browser test opens a page.
    """
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the page's CSP forbids
    # (the first test runs the page under its CSP and checks it logs no error)
    ctx = browser.new_context(viewport=viewport, bypass_csp=True, **context)
    ctx.set_default_timeout(PATIENCE * 1000)  # every wait of the page, as patient as the others
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector(ready)
    if live:
        page.wait_for_selector("#conn.live")
    return page


def open_page(browser, url: str):
    return browser_page(browser, url, device_scale_factor=2, is_mobile=True, has_touch=True)


def click(page, square: str) -> None:
    page.click(f'#board [data-sq="{square}"]')


def move(page, frm: str, to: str) -> None:
    """Lift and place a piece by clicks and wait until the page shows the accepted move."""
    n = page.inner_text("#nmoves")
    click(page, frm)
    click(page, to)
    try:
        page.wait_for_function(
            f"document.getElementById('nmoves').textContent !== {json.dumps(n)}")
    except playwright.Error:  # say what the daemon and the page saw
        s = state(page.url.split("#")[0])
        raise AssertionError(
            f"{frm}-{to} not shown: tracking {s['tracking']!r}, message {s['message']!r}, "
            f"moves {s['moves']}, leds {s['leds']}; page: {page.inner_text('#msg')!r}") from None


def message(page) -> str:
    return page.inner_text("#msg")


def test_page_fits_a_phone_and_is_small(browser, daemon) -> None:
    sizes, errors = [], []
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: sizes.append(len(r.body()) if r.url.endswith(
        (".js", ".css", "/")) or "?v=" in r.url else 0))
    page.goto(daemon)
    page.wait_for_selector("#board .hit")
    page.wait_for_selector("#conn.live")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] and box["width"] > 340
    assert page.inner_text("#turntext") == "Attackers to move"
    font = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert font >= 16  # readable without zooming
    assert sum(sizes) < 100 * 1024, f"page load {sum(sizes)} bytes"
    assert errors == []  # no script error, no CSP violation
    page.screenshot(path=str(SHOTS / "tafl-e2e-start.png"), full_page=True)
    ctx.close()


def test_accepted_moves_are_drawn_and_their_latency_recorded(browser, daemon) -> None:
    """The page draws each accepted move and records the time from the daemon's acceptance (its
    wall time in the state) to the drawing. How short that is, bench/page_latency.py measures
    (median 63 ms, p95 84 ms on a loaded 2-core machine): a threshold here failed whenever
    the machine was busy."""
    page = open_page(browser, daemon + f"#pin={PIN}")
    move(page, "d1", "d4")
    assert "d1-d4" in page.inner_text("#moves")
    assert page.inner_text("#turntext") == "Defenders to move"
    move(page, "f4", "e4")
    move(page, "h1", "h2")
    latency = page.evaluate("window.taflLatency")
    assert len(latency) == 3 and all(0 <= x < 60_000 for x in latency), latency
    print(json.dumps({"move_to_display_ms": latency}))
    page.context.close()


def test_capture_and_illegal_messages(browser, daemon) -> None:
    page = open_page(browser, daemon + f"#pin={PIN}")
    for frm, to in (("d1", "d4"), ("f4", "e4"), ("f2", "f4")):
        move(page, frm, to)
    page.wait_for_function("document.getElementById('msg').textContent.includes('e4')")
    assert "Lift the captured defender on e4" in message(page)
    # a captured piece to lift is ringed with an arrow; an illegal square gets a cross
    assert page.locator("#board circle.liftring").count() == 1
    assert page.locator("#board path.mark").count() == 0
    page.screenshot(path=str(SHOTS / "tafl-e2e-capture.png"), full_page=True)
    click(page, "e4")  # lift the captured piece
    page.wait_for_function("!document.querySelector('#board circle.liftring')")
    click(page, "g5")  # a defender jumps off its lines to h3: illegal (h4 would be a knock)
    click(page, "h3")
    page.wait_for_function("document.getElementById('msg').textContent.startsWith('Illegal')")
    text = message(page)
    assert "straight lines" in text and "put the piece back on g5" in text
    assert page.locator("#board rect.led.illegal").count() >= 1
    assert page.locator("#board path.mark").count() >= 1
    assert page.locator("#board circle.liftring").count() == 0
    assert "bad" in page.get_attribute("#msg", "class")
    page.screenshot(path=str(SHOTS / "tafl-e2e-illegal.png"), full_page=True)
    click(page, "h3")  # put it back: the mark clears
    click(page, "g5")
    page.wait_for_function("!document.querySelector('#board rect.led.illegal')")
    page.context.close()


def test_controls_refused_without_the_pin(browser, daemon) -> None:
    page = open_page(browser, daemon)
    click(page, "d1")
    page.wait_for_function("document.getElementById('msg').textContent.includes('Read-only')")
    assert "d1" in state(daemon)["occupied"]  # the click changed nothing
    assert page.is_visible("#pinform") and not page.is_visible("#ctl")
    page.fill("#pin", "0000")
    page.click("#pinform button")
    page.wait_for_function("document.getElementById('ctlmsg').textContent.includes('Wrong PIN')")
    assert not page.is_visible("#ctl")
    # a hand-made request from the page without the PIN is refused too
    status = page.evaluate("""fetch('/api/new', {method: 'POST', headers: {'Content-Type':
        'application/json', 'X-Tafl-Request': '1'}, body: '{}'}).then(r => r.status)""")
    assert status == 403
    page.fill("#pin", PIN)
    page.click("#pinform button")
    page.wait_for_selector("#ctl", state="visible")
    page.screenshot(path=str(SHOTS / "tafl-e2e-controls.png"), full_page=True)
    page.context.close()


# a page's fetch that holds each tap's request 300 ms and counts how many are on the way at once
SLOW_CLICKS = """
window.tapsInFlight = 0; window.tapsMost = 0;
const plainFetch = window.fetch;
window.fetch = async (url, opts) => {
  if (!String(url).includes("/api/click")) return plainFetch(url, opts);
  window.tapsMost = Math.max(window.tapsMost, ++window.tapsInFlight);
  await new Promise((done) => setTimeout(done, 300));
  try { return await plainFetch(url, opts); } finally { window.tapsInFlight--; }
};
"""


def test_quick_taps_reach_the_board_in_the_order_tapped(browser, daemon) -> None:
    """Lift and place tapped at once are sent one after the other: sent together over two
    connections they could be served in the other order (a move lost under load, found when a
    CI run's short game stalled)."""
    ctx = browser.new_context(viewport=PHONE, bypass_csp=True)
    ctx.set_default_timeout(PATIENCE * 1000)
    ctx.add_init_script(SLOW_CLICKS)
    page = ctx.new_page()
    page.goto(daemon + f"#pin={PIN}")
    page.wait_for_selector("#board .hit")
    wait_for(lambda: state(daemon)["tracking"] == "ready", what="the set-up checked")
    move(page, "h1", "h3")  # both taps at once: the second waits for the first
    assert page.evaluate("window.tapsMost") == 1
    assert state(daemon)["moves"] == ["h1-h3"]
    ctx.close()


def test_a_tap_across_a_redraw_still_counts(browser, daemon) -> None:
    """The board is redrawn at every live update; a tap pressed before one and released after
    it must still reach the board (its target was a new node each time: the tap was lost, and
    a CI run's short game stalled with the king lifted and never placed)."""
    page = open_page(browser, daemon + f"#pin={PIN}")
    wait_for(lambda: state(daemon)["tracking"] == "ready", what="the set-up checked")
    box = page.locator('#board [data-sq="h1"]').bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("window.T.live.redraw()")  # a live update between press and release
    page.mouse.up()
    wait_for(lambda: "h1" not in state(daemon)["occupied"], what="h1 lifted by the tap")
    page.context.close()


def test_play_a_short_game_by_clicking(browser, daemon) -> None:
    page = open_page(browser, daemon + f"#pin={PIN}")
    page.click("#controls summary")
    page.click("#newgame summary")
    page.wait_for_function("(document.getElementById('variant') || {options: []})"
                           ".options.length > 5")
    page.select_option("#variant", "brandubh")
    page.click("button[data-act=new]")
    page.wait_for_function("document.getElementById('board').getAttribute('viewBox')"
                           ".endsWith('7.62 7.62')")
    # the tracker checks the (simulated) set-up of the new game before play starts
    wait_for(lambda: (s := state(daemon))["variant"] == "brandubh" and s["tracking"] == "ready",
             what="the new game's set-up to be checked")
    move(page, "d1", "e1")
    move(page, "d3", "e3")
    # a takeback from the page: the last move is undone and the board guided back
    page.click("button[data-act=takeback]")
    page.wait_for_function("document.getElementById('moves').textContent.indexOf('d3-e3') < 0")
    assert "d3" in page.inner_text("#msg")  # the page says where the piece goes back
    click(page, "e3")
    click(page, "d3")
    wait_for(lambda: state(daemon)["tracking"] == "ready", what="the piece to be back on d3")
    assert page.inner_text("#turntext") == "Defenders to move"
    for frm, to in (("d3", "e3"), ("d2", "e2"), ("d4", "d1"), ("e1", "f1"), ("d1", "a1")):
        move(page, frm, to)
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result").startswith("Defenders win")
    assert page.inner_text("#turntext") == "Game over"
    s = state(daemon)
    assert s["result"] == "defenders" and s["moves"][-1] == "d1-a1"
    assert s["moves"] == ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]
    page.screenshot(path=str(SHOTS / "tafl-e2e-won.png"), full_page=True)
    # the finished game is in the list and opens in the review
    page.click("#games summary")
    page.wait_for_selector("#gamelist a[data-review]")
    assert "6 moves" in page.inner_text("#gamelist")
    page.click("#gamelist a[data-review]")
    page.wait_for_selector("#review:not([hidden])")
    assert page.url.endswith(f"/review/{s['game']}")
    page.click("button[data-rv=first]")
    assert page.inner_text("#rvpos") == "Move 0 of 6"
    page.click("button[data-rv=next]")
    assert "d1-e1" in page.inner_text("#rvmsg")
    page.screenshot(path=str(SHOTS / "tafl-e2e-replay.png"), full_page=True)
    page.click("#rvclose")
    page.wait_for_selector("#live:not([hidden])")
    assert page.inner_text("#turntext") == "Game over"
    page.context.close()
