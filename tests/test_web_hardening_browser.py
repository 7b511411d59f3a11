"""The page in headless Chromium keeps an owner session token, never the PIN (issue 12 item 5):
after the unlock link, after typing the PIN, after a reload; an old page's stored PIN is traded
for a token; a token the daemon no longer accepts locks the controls again."""

from __future__ import annotations

from test_daemon_support import PIN
from test_e2e_browser import browser, daemon  # noqa: F401  (the fixtures)


def storage(page) -> dict:
    return page.evaluate("Object.assign({}, localStorage)")


def unlocked(page) -> bool:
    return page.is_visible("#ctl") and not page.is_visible("#pinform")


def test_the_unlock_link_leaves_a_token_and_no_pin(browser, daemon) -> None:  # noqa: F811
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = ctx.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.headers) if r.method == "POST" else None)
    page.goto(daemon + f"#pin={PIN}")
    page.wait_for_function("localStorage.getItem('tafl-owner') !== null")
    kept = storage(page)
    assert kept["tafl-owner"].startswith("o1.")
    assert not any(PIN in v for v in kept.values()), kept
    assert PIN not in page.url
    page.reload()
    page.wait_for_selector("#board .hit")
    page.click("#controls summary")
    page.wait_for_selector("#ctl", state="visible")
    assert unlocked(page)
    # a control with the token only (its answer waited for: a busy machine sends the request
    # later than any fixed wait, 300 ms before)
    with page.expect_response(lambda r: r.request.method == "POST"
                              and r.url.endswith("/api/click")):
        page.click('#board [data-sq="d1"]')
    posts = [h for h in requests if "x-tafl-token" in h]
    assert posts and all("x-tafl-pin" not in h for h in posts)
    assert "error" not in (page.inner_text("#ctlmsg") or "").lower()
    ctx.close()


def test_typing_the_pin_and_an_old_stored_pin_are_traded_for_a_token(
        browser, daemon) -> None:  # noqa: F811
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = ctx.new_page()
    page.goto(daemon)
    page.wait_for_selector("#board .hit")
    page.click("#controls summary")
    page.fill("#pin", PIN)
    page.click("#pinform button")
    page.wait_for_selector("#ctl", state="visible")
    assert storage(page).get("tafl-owner", "").startswith("o1.")
    assert not any(PIN in v for v in storage(page).values())
    # a page from before kept the PIN itself: it is traded and forgotten on the next load
    page.evaluate(f"localStorage.removeItem('tafl-owner'); localStorage.setItem('tafl-pin', "
                  f"'{PIN}')")
    page.reload()
    page.wait_for_function("localStorage.getItem('tafl-owner') !== null")
    assert "tafl-pin" not in storage(page)
    # a token the daemon does not accept: the first control says so and locks the page again
    page.evaluate("localStorage.setItem('tafl-owner', 'o1.1.x.y')")
    page.reload()
    page.wait_for_selector("#board .hit")
    page.click('#board [data-sq="d1"]')
    page.wait_for_function("localStorage.getItem('tafl-owner') === null")
    assert "PIN" in page.inner_text("#msg") or "PIN" in page.inner_text("#ctlmsg")
    ctx.close()
