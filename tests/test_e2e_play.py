"""Who plays and how long they have, in headless Chromium at phone size against the real daemon
(simulated board, real tracker, real store): a remote player on a second browser plays against
the person at the board, the clocks run down and switch, a flag falls, a two-game match with
swapped sides is scored, a spectator can do nothing but sees everything (a takeback by hand, a
draw offer), and a player link cannot act for the other side."""

from __future__ import annotations

import json
import re
from pathlib import Path

import test_e2e_browser as e2e
from test_daemon_support import PATIENCE, PIN, control, spawn_daemon, state, wait_for
from test_e2e_browser import SHOTS, click, move

browser = e2e.browser  # one Chromium for the module
BRANDUBH_WIN = ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]  # the defenders win


def start(tmp_path: Path, *args: str):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    return spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"), *args])


def page_for(browser, url: str, **kw):
    return e2e.browser_page(browser, url, is_mobile=True, has_touch=True, **kw)


def text(page, sel: str) -> str:
    return page.inner_text(sel)


def wait_text(page, sel: str, part: str, timeout: float = PATIENCE * 1000) -> None:
    page.wait_for_function("([s, t]) => (document.querySelector(s) || {}).textContent"
                           "?.includes(t)", arg=[sel, part], timeout=timeout)


def clock_seconds(page, side: str) -> float:
    shown = page.inner_text(f"#clocks [data-side={side}] .ctime")
    if ":" in shown:
        parts = [int(x) for x in shown.split(":")]
        return float(parts[-1] + 60 * parts[-2] + (3600 * parts[0] if len(parts) == 3 else 0))
    return float(shown)


def running(page) -> list[str]:
    return page.eval_on_selector_all("#clocks .clock.run", "cs => cs.map(c => c.dataset.side)")


def tap(page, square: str) -> None:
    page.click(f'#board [data-sq="{square}"]')


def test_remote_player_plays_against_the_board(browser, tmp_path: Path) -> None:
    proc, base = start(tmp_path, "--variant", "brandubh", "--defenders", "page",
                       "--time-control", "2+1")
    try:
        _, links = control(base, "api/links")
        board = page_for(browser, base + f"#pin={PIN}")        # the person at the board
        remote = page_for(browser, base.rstrip("/") + links["links"]["defenders"]["path"])
        wait_text(remote, "#you", "You play the defenders (Player 2).")
        assert "player=" not in remote.url                      # the token is kept, not shown
        assert remote.is_hidden("#controls")                     # no owner controls
        assert "you" in text(remote, "#side-defenders")
        # not his turn, and never the other side's controls
        tap(remote, "d1")
        wait_text(remote, "#msg", "Not your turn: the attackers are to move.")
        status = remote.evaluate("""fetch('/api/resign', {method: 'POST', headers: {
            'Content-Type': 'application/json', 'X-Tafl-Request': '1', 'X-Tafl-Player':
            localStorage.getItem('tafl-player')}, body: '{"side": "attackers"}'})
            .then(r => r.json().then(j => [r.status, j.code]))""")
        assert status == [403, "not_your_side"]
        # no clock runs before the first move (issue 21), and the page says so
        wait_text(board, "#clocks", "The clocks start with the first move")
        assert running(board) == [] and state(base)["clock"]["running"] is None
        for i, m in enumerate(BRANDUBH_WIN):
            frm, to = m.split("-")
            if i % 2 == 0:                                       # the attackers at the board
                move(board, frm, to)
                wait_for(lambda: running(remote) == ["defenders"], what="the clock to switch")
                continue
            wait_text(remote, "#you", "Your move: tap a piece")
            tap(remote, frm)
            remote.wait_for_selector("#board circle.tgt")       # the legal targets are shown
            assert remote.locator("#board circle.tgt").count() >= 1
            tap(remote, to)
            # the person at the board sees the move to make, in words and on the LEDs, until
            # he has made it
            wait_text(board, "#tomake", f"Player 2 (defenders, on a phone) plays {frm} to {to}.")
            assert "Make this move on the board." in text(board, "#tomake")
            assert text(board, "#msg").startswith(f"Move the defender from {frm} to {to}") or \
                text(board, "#msg").startswith(f"Move the king from {frm} to {to}")
            s = state(base)
            assert s["move_to_make"]["move"] == m and s["move_to_make"]["by"] == "page"
            assert s["leds"][frm] == "make_from" and s["leds"][to] == "make_to"
            board.wait_for_selector("#board rect.led.make_to", state="attached")
            wait_text(remote, "#you", f"Your move {frm} to {to} waits to be made at the board.")
            if i == 1:   # a wrong move at the board is refused and guided back
                click(board, "c4")
                click(board, "c3")
                wait_text(board, "#msg", "c4")
                print(json.dumps({"wrong_move": text(board, "#msg")}))
                assert "d3 to e3" in text(board, "#msg")
                click(board, "c3")
                click(board, "c4")
                wait_for(lambda: state(base)["leds"].get("d3") == "make_from",
                         what="the move to make to be shown again")
            move(board, frm, to)
            wait_for(lambda: "make_to" not in state(base)["leds"].values(),
                     what="the move-to-make lights to go out")
            assert board.is_hidden("#tomake")
            if i < len(BRANDUBH_WIN) - 1:
                wait_for(lambda: running(board) == ["attackers"], what="the clock to switch")
        board.wait_for_selector("#result:not([hidden])")
        assert text(board, "#result") == "Defenders win: the king escaped"
        assert text(remote, "#result") == "Defenders win: the king escaped"
        assert clock_seconds(board, "defenders") > 100 and clock_seconds(board, "attackers") > 100
        s = state(base)
        assert s["moves"] == BRANDUBH_WIN and s["clock"]["running"] is None
        # per-player results on the page
        wait_text(board, "#side-defenders", "1 game · wins: 0 as attackers, 1 as defenders")
        remote.screenshot(path=str(SHOTS / "tafl-e2e-remote.png"), full_page=True)
        assert board.errors == [] and remote.errors == []
    finally:
        proc.stop()


def test_clocks_pause_resume_and_flag_fall(browser, tmp_path: Path) -> None:
    proc, base = start(tmp_path, "--variant", "brandubh", "--time-control", "0.06")  # 3.6 s
    try:
        page = page_for(browser, base + f"#pin={PIN}")
        move(page, "d1", "e1")  # the first move starts the clocks: the defenders' runs
        wait_for(lambda: running(page) == ["defenders"], what="the defenders' clock to run")
        # both clocks large, side by side above the board, readable from the table
        big = page.eval_on_selector_all("#clocks .ctime", "cs => cs.map(c => "
                                        "parseFloat(getComputedStyle(c).fontSize))")
        assert len(big) == 2 and min(big) >= 32, big
        boxes = [page.locator(f"#clocks [data-side={s}]").bounding_box()
                 for s in ("attackers", "defenders")]
        assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"]
        assert boxes[0]["y"] < page.locator("#board").bounding_box()["y"]
        page.wait_for_selector("#pausebtn:not([hidden])")
        page.click("#pausebtn")
        wait_for(lambda: state(base)["clock"]["paused"], what="the pause")
        wait_text(page, "#clocks", "Clocks paused")   # the page has the paused reading
        paused_at = clock_seconds(page, "defenders")
        page.wait_for_timeout(600)
        assert clock_seconds(page, "defenders") == paused_at
        assert "Clocks paused" in text(page, "#clocks")
        page.click("#pausebtn")                                   # resume
        wait_for(lambda: not state(base)["clock"]["paused"], what="the clocks to run again")
        page.wait_for_selector("#clocks .clock.low.run")         # the low-time warning
        page.wait_for_selector("#result:not([hidden])")
        assert text(page, "#result") == "Attackers win: the defenders ran out of time"
        assert "out" in page.get_attribute("#clocks [data-side=defenders]", "class")
        assert text(page, "#clocks [data-side=defenders] .ctime") == "0:00"
        assert "The defenders ran out of time." in text(page, "#events")
        s = state(base)
        assert s["reason"] == "time" and s["result"] == "attackers"
        assert s["clock"]["flagged"] == "defenders"
        said = page.evaluate("window.taflAnnounced")
        assert any("less than ten seconds" in a["text"] for a in said)
        page.screenshot(path=str(SHOTS / "tafl-e2e-flag.png"), full_page=True)
    finally:
        proc.stop()


def test_two_game_match_with_swapped_sides(browser, tmp_path: Path) -> None:
    proc, base = start(tmp_path)
    try:
        page = page_for(browser, base + f"#pin={PIN}")
        page.click("#controls summary")
        page.click("#newgame summary")
        page.wait_for_selector("#variant option[value=brandubh]", state="attached")
        page.select_option("#variant", "brandubh")
        page.fill("#nf-name-attackers", "Ann")
        page.fill("#nf-name-defenders", "Bo")
        page.select_option("#nf-tc", "fischer")
        page.fill("#nf-main", "5")
        page.fill("#nf-inc", "3")
        page.click("button[data-act=newmatch]")
        wait_for(lambda: (s := state(base))["match"] and s["tracking"] == "ready",
                 what="the match's first game to be set up")
        s = state(base)
        assert s["variant"] == "brandubh" and s["clock"]["control"]["text"] == "5+3"
        wait_text(page, "#matchline", "Match, game 1 of 2 · Ann 0 – Bo 0")
        for m in BRANDUBH_WIN:
            move(page, *m.split("-"))
        wait_text(page, "#matchline", "Ann 0 – Bo 1")
        page.wait_for_selector("button[data-act=next]:not([hidden])")
        page.click("button[data-act=next]")                       # game 2: sides swapped
        wait_text(page, "#matchline", "Match, game 2 of 2")
        assert "Bo" in text(page, "#side-attackers") and "Ann" in text(page, "#side-defenders")
        page.click("button[data-act=resign][data-side=defenders]")
        wait_text(page, "#matchline", "Match over: Bo wins")
        assert text(page, "#matchline").endswith("Ann 0 – Bo 2")
        wait_text(page, "#events", "The defenders resigned (by the owner).")
        assert text(page, "#events").count("The match is over: Bo wins.") == 1
        page.screenshot(path=str(SHOTS / "tafl-e2e-match.png"), full_page=True)
        # the review of a match game shows both games and the score
        gid = state(base)["game"]
        page.goto(base + f"review/{gid}")
        page.wait_for_selector("#rvmatch:not([hidden])")
        box = text(page, "#rvmatch")
        assert "Game 1: Ann attacks, Bo defends · Defenders win: the king escaped" in box
        assert "Game 2: Bo attacks, Ann defends · Attackers win: the defenders resigned" in box
        assert "Match over: Bo wins" in box
        assert "Clock: 5+3" in text(page, "#rvinfo")
        page.click("#rvmatch a[data-review]")                      # to game 1
        wait_text(page, "#turntext", f"Review of game {gid - 1}")
        page.click("button[data-rv=first]")
        page.click("button[data-rv=next]")
        wait_text(page, "#rvclock", "Clocks after this move: attackers")
        assert re.search(r"attackers [45]:\d\d, defenders 5:00", text(page, "#rvclock"))
    finally:
        proc.stop()


def test_spectator_sees_everything_and_can_do_nothing(browser, tmp_path: Path) -> None:
    proc, base = start(tmp_path)
    try:
        owner = page_for(browser, base + f"#pin={PIN}")
        watcher = page_for(browser, base)
        assert watcher.is_hidden("#ctl") and watcher.is_hidden("#you")
        tap(watcher, "d1")
        wait_text(watcher, "#msg", "Read-only")
        for path, body in (("/api/takeback", {}), ("/api/move", {"move": "d1-d4"}),
                           ("/api/resign", {"side": "attackers"}), ("/api/links", {})):
            got = watcher.evaluate("""([p, b]) => fetch(p, {method: 'POST', headers: {
                'Content-Type': 'application/json', 'X-Tafl-Request': '1'},
                body: JSON.stringify(b)}).then(r => r.status)""", [path, body])
            assert got == 403, path
        assert "d1" in state(base)["occupied"]
        # the owner moves, then takes the move back by hand at the board
        move(owner, "d1", "d4")
        click(owner, "d4")
        click(owner, "d1")
        wait_text(watcher, "#note", "Move d1-d4 was taken back (at the board).")
        assert "Move d1-d4 was taken back (at the board)." in text(watcher, "#events")
        said = watcher.evaluate("window.taflAnnounced")
        assert {"kind": "event", "text": "Move d1-d4 was taken back (at the board)."} in said
        # a draw offer: prominent, and who did it
        control(base, "api/draw", {"action": "offer", "side": "attackers"})
        watcher.wait_for_selector("#drawbanner:not([hidden])")
        assert text(watcher, "#drawbanner").startswith("The attackers offer a draw.")
        wait_text(watcher, "#events", "The attackers offer a draw (by the owner).")
        watcher.screenshot(path=str(SHOTS / "tafl-e2e-spectator.png"), full_page=True)
        control(base, "api/draw", {"action": "decline", "side": "defenders"})
        wait_text(watcher, "#note", "The defenders decline the draw (by the owner).")
        watcher.wait_for_selector("#drawbanner", state="hidden")
        # a swap of the players, then a resignation: who did it, and the result
        names = [text(watcher, f"#side-{s} .pname") for s in ("attackers", "defenders")]
        control(base, "api/swap")
        wait_text(watcher, "#note", "The players swapped sides (by the owner).")
        assert [text(watcher, f"#side-{s} .pname") for s in ("attackers", "defenders")] == \
            names[::-1]
        control(base, "api/resign", {"side": "defenders"})
        wait_text(watcher, "#note", "The defenders resigned (by the owner).")
        assert "strong" in watcher.get_attribute("#note", "class")
        assert text(watcher, "#result") == "Attackers win: the defenders resigned"
        said = [a["text"] for a in watcher.evaluate("window.taflAnnounced")]
        assert "The players swapped sides (by the owner)." in said
        assert "The defenders resigned (by the owner)." in said
        assert watcher.errors == [] and owner.errors == []
        print(json.dumps({"spectator_events": text(watcher, "#events")}))
    finally:
        proc.stop()


def test_a_friends_page_follows_a_swap_of_sides_without_a_reload(browser, tmp_path: Path) -> None:
    """Issue 26 item 2: the friend's link follows him to the next game; the owner swaps sides
    during it: the page says at once which side he plays now and takes his taps for it (it
    asked /api/whoami only when the game changed, so it kept the old side until a reload)."""
    proc, base = start(tmp_path, "--variant", "brandubh")
    try:
        control(base, "api/players", {"attackers": {"name": "Bo"},
                                      "defenders": {"name": "Ann", "kind": "page"}})
        _, links = control(base, "api/links")
        friend = page_for(browser, base.rstrip("/") + links["links"]["defenders"]["path"])
        wait_text(friend, "#you", "You play the defenders (Ann).")
        assert control(base, "api/new", {})[0] == 200       # the link follows Ann to game 2
        wait_for(lambda: state(base)["game"] == 2, what="game 2")
        wait_text(friend, "#you", "You play the defenders (Ann).")
        status, doc = control(base, "api/swap")
        assert status == 200 and doc["applies_to"] == "this_game"
        wait_text(friend, "#you", "You play the attackers (Ann).")
        wait_text(friend, "#you", "Your move: tap a piece")
        token = links["links"]["defenders"]["token"]
        who = json.loads(e2e_whoami(base, token))
        assert who == {"role": "player", "side": "attackers"}
        tap(friend, "d2")
        friend.wait_for_selector("#board circle.tgt")
        tap(friend, "b2")
        wait_for(lambda: (state(base)["move_to_make"] or {}).get("move") == "d2-b2",
                 what="the friend's move to be the move to make")
        assert friend.errors == []
    finally:
        proc.stop()


def e2e_whoami(base: str, token: str) -> bytes:
    from test_daemon_support import http

    return http(base + "api/whoami", headers={"X-Tafl-Player": token})[2]
