"""The computer as opponent, in headless Chromium at phone size against the real daemon (the
built-in engine as a child process, simulated board, real tracker and store): whole Brandubh
games against the computer at two levels, started from the page's form, with a hint, a takeback
of the person's move and the computer's reply, and the analysis graph at the end. The person at
the board chooses his moves with the project's own engine in this process (depth-limited, so
the games are the same every run)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import test_e2e_browser as e2e
from test_daemon_support import PIN, board_reads, control, spawn_daemon, state, wait_for
from test_e2e_browser import SHOTS, click
from test_e2e_play import page_for, wait_text

from companion.engine import Engine
from companion.rules import get_variant
from companion.rules.game import Game

browser = e2e.browser
MAX_PLIES = 120


def start(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      "[computer]\nhint_seconds = 0.3\nanalysis_seconds = 0.05\n")
    return spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"),
                         "--variant", "brandubh"])


def new_computer_game(page, base: str, you: str, level: int, secs: int | None = None) -> None:
    """Start a game against the computer from the owner's form (``secs``: its time per move;
    default: as its level plays)."""
    if not page.is_visible("#nf-mode"):
        if not page.is_visible("#newgame summary"):
            page.click("#controls summary")
        page.click("#newgame summary")
    page.wait_for_selector("#nf-mode", state="visible")
    page.select_option("#variant", "brandubh")
    page.select_option("#nf-mode", "computer")
    page.select_option("#nf-you", you)
    page.fill("#nf-you-name", "Eva")
    page.select_option("#nf-level", str(level))
    page.select_option("#nf-secs", str(secs or ""))
    page.select_option("#nf-tc", "none")
    before = state(base)["game"]
    page.click("button[data-act=new]")
    foe = "attackers" if you == "defenders" else "defenders"
    want = {"name": "Computer", "kind": "computer", "level": level,
            **({"seconds": secs} if secs else {})}
    wait_for(lambda: (s := state(base))["game"] != before and s["tracking"] == "ready"
             and s["players"][foe] == want
             and s["players"][you]["name"] == "Eva",
             what="the game against the computer to be set up")


def make(page, base: str, move: str) -> None:
    """The person at the board makes ``move`` (clicks on the simulated board), lifting what it
    captures, and waits until the board is ready again."""
    n = len(state(base)["moves"])
    frm, to = move.split("-")[:2]
    click(page, frm)
    click(page, to)
    wait_for(lambda: len(state(base)["moves"]) == n + 1, what=f"{move} accepted")
    for sq in state(base)["last"]["captured"]:
        if sq in state(base)["occupied"]:
            click(page, sq)
    wait_for(lambda: (s := state(base))["tracking"] in ("ready", "over") or s["result"] !=
             "ongoing", what="the board to be ready")


def put_back(page, base: str) -> None:
    """Follow the set-up guidance (after a takeback) until the board matches the game."""
    for _ in range(4):
        s = state(base)
        g = s["guidance"] or {}
        if g.get("kind") != "setup":
            break
        clear, fill = list(g.get("clear", [])), sorted(g.get("fill", {}))
        for sq in clear:
            click(page, sq)
        for sq in fill:
            click(page, sq)
        board_reads(base, s["occupied"], clear, fill)
    wait_for(lambda: state(base)["tracking"] == "ready", what="the set-up")


def play_out(page, base: str, you: str, extras: bool) -> dict:
    """Play the game to its end: the person's moves by the in-process engine, the computer's
    from the move to make. With ``extras``: the first move is the hint's, and the second move
    and the computer's reply are taken back once."""
    person = Engine(get_variant("brandubh"), level=4, seed=7)
    hinted = taken_back = False
    seen = {"tomake": 0}
    while (s := state(base))["result"] == "ongoing" and len(s["moves"]) < MAX_PLIES:
        if s["turn"] == you:
            if extras and not hinted:
                page.wait_for_selector("#hintbtn:not([hidden])")
                page.click("#hintbtn")
                wait_for(lambda: state(base)["hint"], what="the hint")
                hint = state(base)["hint"]
                wait_text(page, "#hinttext", f"{hint['from']} to {hint['to']}")
                page.wait_for_selector("#board rect.led.hint_to", state="attached")
                assert state(base)["leds"][hint["from"]] == "hint_from"
                make(page, base, hint["move"])
                hinted = True
                continue
            game = Game(get_variant("brandubh"))
            for m in s["moves"]:
                game.play_text(m)
            make(page, base, person.choose(game.board).move)
            continue
        wait_for(lambda: (t := state(base))["move_to_make"] or t["result"] != "ongoing",
                 what="the computer's move")
        m = state(base)["move_to_make"]
        if m is None:
            continue
        assert m["by"] == "computer"
        wait_text(page, "#tomake", f"The computer ({m['side']}) plays {m['from']} to {m['to']}.")
        seen["tomake"] += 1
        make(page, base, m["move"])
        if extras and not taken_back and len(state(base)["moves"]) >= 4:
            if not page.is_visible("#ctl"):
                page.click("#controls summary")
            n = len(state(base)["moves"])
            page.click("button[data-act=takeback]")
            wait_text(page, "#ctlmsg", "and the computer's reply")
            s = state(base)
            assert len(s["moves"]) == n - 2 and s["events"][-1]["kind"] == "takeback"
            assert s["turn"] == you
            put_back(page, base)
            taken_back = True
    return {"plies": len(state(base)["moves"]), "hinted": hinted, "taken_back": taken_back,
            **seen}


def test_brandubh_against_the_computer_at_two_levels(browser, tmp_path: Path) -> None:
    proc, base = start(tmp_path)
    figures = {}
    try:
        page = page_for(browser, base + f"#pin={PIN}")
        for level, extras, secs in ((1, True, None), (2, False, 1)):
            t0 = time.monotonic()
            new_computer_game(page, base, "defenders", level, secs)
            wait_text(page, "#side-attackers", f"computer, level {level}")
            got = play_out(page, base, "defenders", extras)
            s = state(base)
            assert s["result"] != "ongoing", f"level {level}: no result after {got['plies']}"
            page.wait_for_selector("#result:not([hidden])")
            figures[level] = {**got, "result": s["result"], "reason": s["reason"],
                              "seconds": round(time.monotonic() - t0, 1)}
            if extras:
                assert got["hinted"] and got["taken_back"]
                assert s["hints"]["defenders"] == 1
                assert "1 hint used" in page.inner_text("#side-defenders")
                gid = s["game"]
        # the analysis of the first game: the graph over its moves, the biggest swings, and
        # the engine's better move on the board
        # (finished games are analysed in the background from 20 s after their end: by now it
        # is queued, running or done; the owner's button starts it at once where it is shown)
        page.goto(base + f"review/{gid}")
        page.wait_for_function("document.querySelector('#rvgraph svg.evgraph')"
                               " || document.querySelector('#rvgraph p')")
        page.evaluate("(() => { const b = document.getElementById('rvanalyse');"
                      " if (!b.hidden) b.click(); })()")
        page.wait_for_selector("#rvgraph svg.evgraph")
        points = page.get_attribute("#rvgraph polyline.evline", "points").split()
        assert len(points) == figures[1]["plies"] + 1
        swings = page.locator("#rvswings [data-swing]")
        assert swings.count() >= 1          # a beginner's game has its mistakes
        assert page.locator("#rvgraph circle.swing").count() == swings.count()
        swings.first.click()
        wait_text(page, "#rvmsg", "here: ")
        assert "instead of" in page.inner_text("#rvmsg")
        assert page.locator("#rvboard rect.led.hint_to").count() == 1
        assert page.locator("#rvboard rect.led.hint_from").count() == 1
        page.screenshot(path=str(SHOTS / "tafl-e2e-analysis.png"), full_page=True)
        assert page.errors == []
        print(json.dumps({"computer_games": figures}))
    finally:
        proc.stop()


def test_the_computer_is_seen_thinking_with_its_best_move_on_request(browser,
                                                                   tmp_path: Path) -> None:
    """While the computer thinks the page says so; on request it adds its best move so far and
    the score; the indicator goes when the move to make is shown."""
    proc, base = start(tmp_path)
    try:
        status, _ = control(base, "api/new", {"variant": "brandubh", "players": {
            "defenders": {"kind": "computer", "level": 10, "seconds": 4}}})
        assert status == 200
        wait_for(lambda: state(base)["tracking"] == "ready", what="the new game")
        page = page_for(browser, base + f"#pin={PIN}")
        page.wait_for_selector("#thinking", state="hidden")
        make(page, base, "d1-e1")
        page.wait_for_selector("#thinking:not([hidden])")
        assert page.inner_text("#thinking") == "The computer (defenders) is thinking…"
        assert page.inner_text("#thoughtsbtn") == "Show what the computer thinks"
        page.click("#thoughtsbtn")
        wait_text(page, "#thinking", "Best move so far ")
        shown = page.inner_text("#thinking")
        assert shown.startswith("The computer (defenders) is thinking… Best move so far "), shown
        assert "(depth " in shown and " stand better by " in shown or "about even" in shown, shown
        wait_for(lambda: state(base)["move_to_make"], what="the computer's move")
        page.wait_for_selector("#thinking", state="hidden")
        m = state(base)["move_to_make"]
        wait_text(page, "#tomake", f"The computer (defenders) plays {m['from']} to {m['to']}.")
        assert page.errors == []
        print(json.dumps({"thinking_shown": shown}))
    finally:
        proc.stop()


def test_the_computer_and_the_people_keep_their_own_names(browser, tmp_path: Path) -> None:
    """The form names the computer "Computer"; a person whose name is left empty never takes
    the computer's name when sides change (nor the computer a person's: its games would count in
    that person's results)."""
    proc, base = start(tmp_path)
    try:
        page = page_for(browser, base + f"#pin={PIN}")
        page.click("#controls summary")
        page.click("#newgame summary")
        page.wait_for_selector("#nf-mode", state="visible")

        def new(mode: str, you: str | None = None) -> dict:
            before = state(base)["game"]
            if page.is_visible("#nf-mode"):                     # (a new game puts it away)
                page.click("#newgame summary")                  # closed and opened again:
            if not page.is_visible("#newgame summary"):         # (and the page goes back to
                page.click("#controls summary")                 # the board: issue 26, 9)
            page.click("#newgame summary")                      # the players as they are now
            page.wait_for_selector("#nf-mode", state="visible")
            now = state(base)["players"]
            for side in ("attackers", "defenders"):
                shown = page.input_value(f"#nf-name-{side}")
                assert shown == ("" if now[side]["kind"] == "computer" else now[side]["name"])
            page.select_option("#variant", "brandubh")
            page.select_option("#nf-mode", mode)
            if mode == "people":
                for side in ("attackers", "defenders"):
                    page.select_option(f"#nf-kind-{side}", "board")
            if you:
                page.select_option("#nf-you", you)
                page.fill("#nf-you-name", "")
                page.select_option("#nf-level", "1")
            page.click("button[data-act=new]")
            wait_for(lambda: state(base)["game"] != before, what="the new game")
            page.wait_for_selector("#nf-mode", state="hidden")  # the page put the form away
            return {side: p["name"] for side, p in state(base)["players"].items()}

        control(base, "api/players", {"attackers": {"name": "Ann"}, "defenders": {"name": "Bo"}})
        assert new("computer", "defenders") == {"attackers": "Computer", "defenders": "Bo"}
        assert new("computer", "attackers") == {"attackers": "Player 1", "defenders": "Computer"}
        assert new("people") == {"attackers": "Player 1", "defenders": "Player 2"}
        wait_text(page, "#side-defenders", "Player 2")
        assert page.errors == []
    finally:
        proc.stop()
