"""The page in headless Chromium against the real daemon (simulated board, real tracker, real
store): the review of a finished game step by step, an imported .otg, German, dark mode,
phone and desktop layouts without horizontal scroll, a 19×19 board on a phone, the rules card,
and the raichi warning with its announcement."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PIN, control, http, state, wait_for
from test_e2e_browser import PHONE, SHOTS, click, move

from companion.rules import get_variant
from companion.rules.game import Game
from companion.rules.otg import export_otg

browser = e2e.browser  # the fixtures of the browser tests: one Chromium, a daemon per test
daemon = e2e.daemon
DESKTOP = {"width": 1280, "height": 800}
TABLET = {"width": 768, "height": 1024}           # a tablet held upright
TABLET_WIDE = {"width": 1024, "height": 768}      # and across
BRANDUBH_WIN = ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]


def new_page(browser, url: str, viewport=PHONE, **kw):
    return e2e.browser_page(browser, url, viewport, ready="#board .hit, #rvboard .hit",
                            live=False, **kw)


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def new_game(base: str, variant: str) -> None:
    status, _ = control(base, "api/new", {"variant": variant})
    assert status == 200
    wait_for(lambda: (s := state(base))["variant"] == variant and s["tracking"] == "ready",
             what=f"a new {variant} game to be set up")


def test_review_a_finished_game_step_by_step(browser, daemon) -> None:
    new_game(daemon, "brandubh")
    page = new_page(browser, daemon + f"#pin={PIN}")
    gid = state(daemon)["game"]
    for m in BRANDUBH_WIN[:3]:
        move(page, *m.split("-"))
    # the game in play reviews too: unfinished, up to its last move, and back to the live game
    page.click("#games summary")
    page.click(f"#gamelist a[data-review='{gid}']")
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    assert "unfinished" in page.inner_text("#rvinfo")
    assert page.inner_text("#rvpos") == "Move 3 of 3"
    assert page.is_hidden("#rvanalyse")            # no analysis of the game still in play
    page.keyboard.press("Escape")
    page.wait_for_selector("#live:not([hidden])")
    assert page.inner_text("#turntext") == "Defenders to move"
    for m in BRANDUBH_WIN[3:]:
        move(page, *m.split("-"))
    page.wait_for_selector("#result:not([hidden])")
    page.goto(daemon + f"review/{gid}")           # the shareable link
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    assert page.is_hidden("#live")
    info = page.inner_text("#rvinfo")
    assert "Brandubh · 7×7" in info and "Defenders win: the king escaped" in info
    assert "Player 1" in info and "Player 2" in info
    assert re.search(r"20\d\d", info)                # the date it was played
    assert page.input_value("#rvlink") == daemon + f"review/{gid}"
    assert page.inner_text("#rvpos") == "Move 6 of 6"
    page.keyboard.press("Home")
    assert page.inner_text("#rvpos") == "Move 0 of 6"
    assert page.is_disabled("button[data-rv=prev]")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#rvpos") == "Move 1 of 6"
    assert "Attackers: d1-e1" in page.inner_text("#rvmsg")
    assert page.url.endswith(f"/review/{gid}#1")
    page.click("#rvmoves button[data-ply='4']")   # the king's move to d1: a raichi
    assert "Defenders: d4-d1" in page.inner_text("#rvmsg")
    assert "Raichi" in page.inner_text("#rvmsg")
    assert page.locator("#rvboard circle.p.K").count() == 1
    page.click("button[data-rv=last]")
    assert page.is_disabled("button[data-rv=next]")
    assert page.locator("#rvmoves .mv.now").inner_text() == "d1-a1"
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#rvpos") == "Move 5 of 6"
    page.keyboard.press("End")
    assert page.inner_text("#rvpos") == "Move 6 of 6"
    assert page.get_attribute("#rvotg", "href") == f"/api/games/{gid}/game.otg"
    assert page.get_attribute("#rvcsv", "href") == f"/api/games/{gid}/record.csv"
    for link, want in (("#rvotg", "d1-a1"), ("#rvcsv", "d1-a1")):
        with page.expect_download() as got:
            page.click(link)
        assert want in Path(got.value.path()).read_text(), link
    page.screenshot(path=str(SHOTS / "tafl-e2e-review.png"), full_page=True)
    # a reload keeps the position; leaving returns to the live game
    page.goto(daemon + f"review/{gid}#3")
    # only the hash changed, so goto alone does not load the page again
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    page.wait_for_function("document.querySelector('#rvpos').innerText === 'Move 3 of 6'")
    page.click("#rvclose")
    page.wait_for_selector("#live:not([hidden])")
    assert page.url == daemon and page.inner_text("#turntext") == "Game over"
    page.click("#games summary")                  # the list again, its script now loaded
    page.wait_for_selector(f"#gamelist a[data-review='{gid}']")
    assert "6 moves" in page.inner_text("#gamelist")
    assert page.errors == []
    page.context.close()


def test_import_an_otg_file_and_review_it(browser, daemon, tmp_path: Path) -> None:
    game = Game(get_variant("copenhagen"))
    for m in ("d1-d4", "f4-e4", "f2-f4xe4"):
        game.play_text(m)
    game.resign("defenders")
    path = tmp_path / "from-opentafl.otg"
    path.write_text(export_otg(game, tags={"attackers": "Ragnar", "defenders": "Sigrid"}))
    page = new_page(browser, daemon + f"#pin={PIN}")
    page.click("#games summary")
    page.set_input_files("#importfile", str(path))
    page.wait_for_selector("#review:not([hidden]) #rvboard .hit")
    info = page.inner_text("#rvinfo")
    assert "Ragnar" in info and "Sigrid" in info and "the defenders resigned" in info
    assert "imported from from-opentafl.otg" in info
    page.click("#rvmoves button[data-ply='3']")
    assert "Captured: 1 defender." in page.inner_text("#rvmsg")
    assert "Taken by the attackers: 1 defender" in page.inner_text("#rvcaps")
    assert page.locator("#rvboard circle.p.gone").count() == 1  # the taken piece, faded
    page.context.close()
    # a file with an illegal move is refused, in the page's language, and nothing is stored
    bad = tmp_path / "bad.otg"
    bad.write_text(path.read_text().replace("d1-d4", "d1-d9"))
    stored = len(json.loads(http(daemon + "api/games")[2])["games"])
    # (the refusal names its reason and the move: the daemon's own detail follows it)
    for lang, lead in (("en", "The file was not imported, nothing was stored: the rules refuse "
                              "its game at move 1: bad.otg: "),
                       ("de", "Die Datei wurde nicht importiert, nichts wurde gespeichert: Die "
                              "Regeln lehnen ihre Partie bei Zug 1 ab: bad.otg: ")):
        page = new_page(browser, daemon + f"?lang={lang}#pin={PIN}")
        page.click("#games summary")
        page.wait_for_selector("#importform:not([hidden])")
        page.set_input_files("#importfile", str(bad))
        page.wait_for_selector("#importmsg:not([hidden])")
        assert page.inner_text("#importmsg").startswith(lead), page.inner_text("#importmsg")
        assert "d1-d9" in page.inner_text("#importmsg")
        assert page.is_hidden("#review") and page.errors == []
        page.context.close()
    assert len(json.loads(http(daemon + "api/games")[2])["games"]) == stored


def test_german_browser_gets_a_german_page(browser, daemon) -> None:
    page = new_page(browser, daemon + f"#pin={PIN}", locale="de-DE")
    page.wait_for_selector("#conn.live")
    assert page.get_attribute("html", "lang") == "de"
    from companion.i18n import key_hash
    for text in ("Attackers to move", "Königszabel Hnefatafl · 19×19 …", "{side}: {move}"):
        assert page.evaluate("t => window.T.hash(t)", text) == key_hash(text)
    assert page.inner_text("#turntext") == "Angreifer am Zug"
    assert page.inner_text("#msg") == "Angreifer am Zug"
    # an illegal move: the tracker's structured guidance, worded in German
    move(page, "d1", "d4")
    click(page, "g5")
    click(page, "h3")
    page.wait_for_function("document.getElementById('msg').textContent.startsWith('Nicht erlaubt')")
    assert page.inner_text("#msg") == ("Nicht erlaubt: Steine ziehen gerade entlang einer Reihe "
                                       "oder Spalte, nie diagonal – stell den Stein zurück auf g5")
    assert "bad" in page.get_attribute("#msg", "class")
    click(page, "h3")
    click(page, "g5")
    page.wait_for_function("document.getElementById('msg').textContent === 'Verteidiger am Zug'")
    assert "Züge" in page.inner_text(".moves h2")
    side = page.inner_text("#side-attackers")
    assert "0 Verteidiger geschlagen" in side
    assert "Spieler 1" in side and "Player 1" not in side  # the default name, in German too
    page.click("#rulesbtn")
    page.wait_for_selector("#rulescard[open]")
    card = page.inner_text("#rulescard")
    assert "Kopenhagener Hnefatafl" in card and "Die Angreifer ziehen zuerst." in card
    page.click("#rulesclose")
    # the switch: English, kept for the next visit
    page.click("#settings summary")
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.wait_for_selector("#conn.live")
    assert page.inner_text("#turntext") == "Defenders to move"
    page.context.close()


def test_dark_mode_follows_the_device_and_the_switch(browser, daemon) -> None:
    page = new_page(browser, daemon, color_scheme="dark")
    bg = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(bg) == "rgb(21, 19, 15)"
    # the board stays readable: the attackers' fill and the defenders' outline stand out from
    # every square at least 3:1 (WCAG's contrast for graphical objects)
    style = "(sel, prop) => getComputedStyle(document.querySelector(sel))[prop]"
    for square in ("#board .sq:not(.special)", "#board .sq.special"):
        sq = page.evaluate(f"({style})('{square}', 'fill')")
        assert contrast(sq, page.evaluate(f"({style})('#board .p.t', 'fill')")) >= 3
        assert contrast(sq, page.evaluate(f"({style})('#board .p.T', 'stroke')")) >= 3
    page.screenshot(path=str(SHOTS / "tafl-e2e-dark.png"), full_page=True)
    page.click("#settings summary")
    page.select_option("#theme", "light")
    assert page.evaluate(bg) == "rgb(244, 239, 230)"
    page.reload()                       # the choice is kept (a cookie: no flash on load)
    page.wait_for_selector("#board .hit")
    assert page.evaluate(bg) == "rgb(244, 239, 230)"
    page.context.close()
    light = new_page(browser, daemon, color_scheme="light")
    assert light.evaluate(bg) == "rgb(244, 239, 230)"
    light.context.close()


def contrast(a: str, b: str) -> float:
    def lum(css: str) -> float:
        r, g, bl = (int(x) / 255 for x in css[css.index("(") + 1:-1].split(",")[:3])
        f = [(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4) for c in (r, g, bl)]
        return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("viewport", [PHONE, TABLET, TABLET_WIDE, DESKTOP],
                         ids=["phone", "tablet", "tablet-across", "desktop"])
def test_layout_without_horizontal_scroll(browser, daemon, viewport) -> None:
    page = new_page(browser, daemon + f"#pin={PIN}", viewport=viewport)
    page.click("#controls summary")
    page.click("#newgame summary")
    page.wait_for_function("(document.getElementById('variant') || {options: []})"
                           ".options.length > 5")
    for d in ("#games", "#settings"):
        page.click(d + " summary")
    assert scroll_width(page) <= viewport["width"]
    sel = page.locator("#variant").bounding_box()
    assert sel["x"] >= 0 and sel["x"] + sel["width"] <= viewport["width"]
    labels = page.eval_on_selector_all("#variant option", "os => os.map(o => o.textContent)")
    assert "Tablut · 9×9" in labels and not any("seed" in x or x.count("×") > 2 for x in labels)
    # a draw offer cannot be missed: in view without scrolling, large and bold
    control(daemon, "api/draw", {"action": "offer", "side": "attackers"})
    page.wait_for_selector("#drawbanner:not([hidden])")
    page.evaluate("window.scrollTo(0, 0)")
    banner = page.locator("#drawbanner").bounding_box()
    assert banner["y"] >= 0 and banner["y"] + banner["height"] <= viewport["height"], banner
    assert page.evaluate("(s => parseFloat(s.fontSize) >= 16 && +s.fontWeight >= 700)"
                         "(getComputedStyle(document.getElementById('drawbanner')))")
    board = page.locator("#board").bounding_box()
    moves = page.locator("#moves").bounding_box()
    if viewport is not PHONE:           # side by side, the board as large as the height allows
        assert board["x"] + board["width"] <= moves["x"], viewport
        assert board["height"] >= min(500, viewport["width"] * 0.55), (viewport, board)
        assert moves["y"] < board["y"] + board["height"] / 2
    else:
        assert moves["y"] > board["y"] + board["height"]
    page.context.close()


def test_nineteen_by_nineteen_on_a_phone(browser, daemon) -> None:
    new_game(daemon, "alea-evangelii")
    page = new_page(browser, daemon + f"#pin={PIN}")
    page.wait_for_function(
        "document.getElementById('board').getAttribute('viewBox').endsWith('19.62 19.62')")
    assert page.is_visible("#zoom")
    page.click("#zoom")
    wrap = page.locator("#boardwrap")
    assert page.evaluate("(() => { const w = document.getElementById('boardwrap');"
                         " return w.scrollWidth > w.clientWidth * 1.8; })()")
    assert scroll_width(page) <= PHONE["width"]
    square = page.locator('#board [data-sq="a1"]').bounding_box()
    assert square["width"] >= 38          # a finger-sized square when zoomed
    assert wrap.bounding_box()["width"] <= PHONE["width"]
    page.context.close()


def test_raichi_warning_shown_and_announced(browser, daemon) -> None:
    new_game(daemon, "brandubh")
    page = new_page(browser, daemon + f"#pin={PIN}")
    page.wait_for_selector("#conn.live")
    for m in BRANDUBH_WIN[:3]:
        move(page, *m.split("-"))
    assert page.is_hidden("#threat")
    move(page, "d4", "d1")                # the king on d1: a free line to a1
    page.wait_for_selector("#threat:not([hidden])")
    assert page.inner_text("#threat") == "Raichi: the king has a free line to a1."
    assert page.locator("#board line.threat").count() == 1
    said = page.evaluate("window.taflAnnounced")
    assert {"kind": "threat", "text": "Raichi: the king has a free line to a1"} in said
    assert any(a["kind"] == "move" and a["text"] == "Defenders: d4 to d1" for a in said)
    assert state(daemon)["threat"] == {"kind": "raichi", "king": "d1", "squares": ["a1"]}
    page.screenshot(path=str(SHOTS / "tafl-e2e-raichi.png"), full_page=True)
    # configurable off
    page.click("#settings summary")
    page.uncheck("input[data-set=threats]")
    assert page.is_hidden("#threat") and page.locator("#board line.threat").count() == 0
    page.context.close()


def test_unreachable_daemon_is_never_shown_as_connected(browser, tmp_path: Path) -> None:
    from test_daemon_support import spawn_daemon

    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "d")])
    page = new_page(browser, base)
    page.wait_for_selector("#conn.live")
    assert page.inner_text("#boardstatus").startswith("Board connected")
    proc.stop()
    page.wait_for_selector("#conn.off")
    assert page.inner_text("#turntext") == "Companion unreachable"
    assert page.inner_text("#msg").startswith("The companion does not answer")
    assert "to move" not in page.inner_text("#msg")
    assert "Board connected" not in page.inner_text("#boardstatus")
    assert "Attackers to move" not in page.inner_text("header")
    page.context.close()


def first_load(browser, url: str, **kw) -> tuple[int, int]:
    """Bytes of the page's first load (HTML, style sheet, scripts, catalogue): ``(as sent,
    decoded)``; what the page loads later (review, analysis, rules cards, owner's forms) is not
    part of it."""
    sent: list[int] = []
    plain: list[int] = []
    ctx = browser.new_context(viewport=PHONE, **kw)
    page = ctx.new_page()

    def done(req) -> None:
        if req.resource_type in ("document", "script", "stylesheet"):
            sent.append(req.sizes()["responseBodySize"])
            plain.append(len(req.response().body()))
    page.on("requestfinished", done)
    page.goto(url)
    page.wait_for_selector("#conn.live")
    page.wait_for_timeout(200)
    ctx.close()
    return sum(sent), sum(plain)


def test_page_weight(browser, daemon) -> None:
    """Under 100 KB on first load in both languages, decoded (and about a third of it as sent:
    the page's files are gzip-compressed)."""
    figures = {}
    for lang in ("en", "de"):
        sent, plain = first_load(browser, daemon, locale=f"{lang}-{lang.upper()}")
        assert plain < 100 * 1024 and sent < plain / 2, (lang, sent, plain)
        figures[lang] = {"sent": sent, "decoded": plain}
    print(json.dumps({"first_load_bytes": figures}))


# English exceptions: where the page's own wording differs from companion/messages.py on purpose
PAGE_WORDING = {"game_over": "the reason in the past tense", "suspended": "says when play resumes",
                "lift_captured:K": "groups pieces by kind, the king last"}


def test_every_guidance_kind_and_code_is_worded_in_both_languages(browser, daemon) -> None:
    """Every kind and fault code of docs/events.md (samples in guidance_samples.json): German
    is a full translation and English says what companion/messages.py says."""
    from companion.messages import guidance_text

    samples = json.loads((Path(__file__).parent / "guidance_samples.json").read_text())
    kinds = {g["kind"] for g in samples} | {g["code"] for g in samples if "code" in g}
    doc = (Path(__file__).parent.parent / "docs" / "events.md").read_text()
    for lang in ("en", "de"):
        page = new_page(browser, daemon + f"?lang={lang}")
        texts = page.evaluate("gs => gs.map(g => window.T.guidanceText(g))", samples)
        for g, text in zip(samples, texts):
            assert text and "{" not in text and "undefined" not in text, (lang, g, text)
            key = g["kind"] + (":K" if "K" in g.get("pieces", []) and len(g["pieces"]) > 1 else "")
            if lang == "en" and key not in PAGE_WORDING and g["kind"] not in PAGE_WORDING:
                assert text == guidance_text(g), g
            if lang == "de":
                assert text != guidance_text(g), g
        page.context.close()
    table = re.compile(r"^\| `(\w+)` \|", re.M)
    guidance = doc.split("## Guidance")[1].split("## Fault codes")[0]
    codes = doc.split("## Fault codes")[1].split("## LED")[0]
    documented = set(table.findall(guidance)) | set(table.findall(codes))
    assert documented <= kinds, f"no sample for {documented - kinds}"
