"""Playing the computer from the board's buttons and display alone (issue 20's "done when"):
the real daemon on the simulated board, driven through ``POST /api/button`` (the buttons),
``POST /api/click`` (the hands on the pieces) and ``/api/state``'s ``display.lines`` (what the
display says). The menu chooses the computer, its level and the clock; the hint button gives
the person's moves, the display names the computer's; the clock is paused and resumed, a move
and the computer's reply are taken back, the game is played to its end and the next one
started with a long press."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import test_e2e_browser as e2e
from test_daemon_support import PATIENCE, PIN, board_reads, control, spawn_daemon, state, wait_for
from test_e2e_browser import browser_page

browser = e2e.browser

MOVE = re.compile(r"([a-s]\d+) → ([a-s]\d+)")
MAX_PLIES = 160


def start(tmp_path: Path, *extra: str):
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      "[computer]\nhint_seconds = 0.2\n")
    return spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"),
                         "--variant", "brandubh", *extra])


def lines(base: str) -> list[str]:
    return (state(base).get("display") or {}).get("lines") or []


def press(base: str, button: str, long: bool = False) -> list[str]:
    status, out = control(base, "api/button", {"button": button,
                                               "press": "long" if long else "short"})
    assert status == 200, out
    return list(out["display"])


def shows(base: str, pattern: str, timeout: float = PATIENCE) -> re.Match[str]:
    """Wait until a display line matches ``pattern``; the match."""
    def find() -> re.Match[str] | None:
        for line in lines(base):
            m = re.search(pattern, line)
            if m:
                return m
        return None

    try:
        return wait_for(find, timeout=timeout, what=f"the display to show {pattern!r}")
    except AssertionError as exc:  # what it shows when the wait gave up
        raise AssertionError(f"{exc} (it shows {lines(base)})") from None


def click(base: str, square: str) -> None:
    status, out = control(base, "api/click", {"square": square})
    assert status == 200, out


def make(base: str, frm: str, to: str) -> None:
    """The hand at the board makes the move, then lifts what it captured."""
    n = len(state(base)["moves"])
    click(base, frm)
    click(base, to)
    wait_for(lambda: len(state(base)["moves"]) == n + 1, what=f"{frm}-{to}")
    fix_board(base)


def _moves_on(base: str, seen: dict) -> None:
    """Wait until the board's guidance or tracking is no longer what ``seen`` showed."""
    wait_for(lambda: (now := state(base))["guidance"] != seen["guidance"]
             or now["tracking"] != seen["tracking"], what="the board's guidance to change")


def fix_board(base: str) -> None:
    """Do what the LEDs ask until the board matches the game (captures lifted, pieces put
    back after a takeback)."""
    for _ in range(40):
        s = state(base)
        g = s["guidance"] or {}
        if g.get("kind") == "setup":
            fill, clear = list(g.get("fill") or {}), list(g.get("clear") or [])
            for sq in fill + clear:
                click(base, sq)
            board_reads(base, s["occupied"], clear, fill)
        elif g.get("kind") in ("lift_captured", "game_over") and g.get("squares"):
            lift = [sq for sq in g["squares"] if sq in s["occupied"]]
            for sq in lift:
                click(base, sq)
            board_reads(base, s["occupied"], lift, [])
            if not lift:
                _moves_on(base, s)
        elif s["tracking"] in ("ready", "over") or s["result"] != "ongoing":
            return
        else:
            _moves_on(base, s)
    raise AssertionError(f"the board was not put right: {state(base)['guidance']}")


def choose_in_menu(base: str, item: str, value: str) -> None:
    """Press OK until the menu shows ``item``, then next/prev until it shows ``value``."""
    for _ in range(8):
        if lines(base)[1:2] == [item]:
            break
        press(base, "clock")
    assert lines(base)[1] == item, lines(base)
    for _ in range(12):
        if lines(base)[2] == f"◀ {value} ▶":
            return
        press(base, "hint")
    raise AssertionError(f"{item} never showed {value}: {lines(base)}")


def person_moves(base: str) -> None:
    """The person's move, as the display's hint says."""
    press(base, "hint")
    m = shows(base, r"^Hint ([a-s]\d+) → ([a-s]\d+)")
    make(base, m[1], m[2])


def computer_moves(base: str) -> None:
    """The computer's move, as the display says it."""
    m = shows(base, r"^Computer: ([a-s]\d+) → ([a-s]\d+)")
    make(base, m[1], m[2])


def test_a_whole_game_against_the_computer_from_buttons_and_display(tmp_path):
    d, base = start(tmp_path)
    try:
        shows(base, "^Page:$")  # the address (once the panel drew it)
        assert lines(base)[1] == "127.0.0.1"
        # the menu: the computer, level 2, playing the defenders, Brandubh, 5+3
        assert press(base, "new")[:2] == ["Menu", "Opponent"]
        choose_in_menu(base, "Opponent", "Computer")
        choose_in_menu(base, "Level", "2")
        choose_in_menu(base, "Computer plays", "Defenders")
        choose_in_menu(base, "Variant", "Brandubh")
        choose_in_menu(base, "Clock", "5+3")
        assert press(base, "clock")[1:3] == ["Coach", "◀ nobody ▶"]
        assert press(base, "clock")[1] == "Start game"
        shown = press(base, "clock")
        assert shown[0] == "Attackers to move", shown
        s = state(base)
        assert s["players"]["defenders"] == {"name": "Computer", "kind": "computer", "level": 2}
        assert s["clock"]["control"]["text"] == "5+3"
        # the clocks: standing until the first move or the clock button, then the attackers'
        # (the display in the state follows the press's own answer: wait for it)
        shows(base, r"^ 5:00   5:00$")
        press(base, "clock")
        assert state(base)["clock"]["running"] == "attackers"
        shows(base, r"^▶[45]:\d\d   5:00$")
        assert press(base, "clock")[2] == "Clock paused"
        assert state(base)["clock"]["paused"]
        shows(base, "^Clock paused$")
        frozen = lines(base)[1]
        time.sleep(1.2)
        assert lines(base)[1] == frozen  # a paused clock stands still on the display
        press(base, "clock")
        assert not state(base)["clock"]["paused"]
        # two moves each, then the last pair taken back with the takeback button
        for _ in range(2):
            person_moves(base)
            computer_moves(base)
        before = list(state(base)["moves"])
        person_moves(base)
        computer_moves(base)
        assert press(base, "takeback")[3] == "Taken back"
        wait_for(lambda: state(base)["moves"] == before, what="both moves taken back")
        fix_board(base)
        # the hint button while the computer thinks is refused, and says so
        person_moves(base)
        thinking = state(base)["thinking"]
        if thinking:
            assert press(base, "hint")[3] in ("No hint now", "")
        computer_moves(base)
        # on to the end of the game
        for _ in range(MAX_PLIES):
            s = state(base)
            if s["result"] != "ongoing":
                break
            if s["turn"] == "attackers":
                person_moves(base)
            else:
                computer_moves(base)
        s = state(base)
        assert s["result"] != "ongoing", f"no result after {MAX_PLIES} plies"
        winner = {"attackers": "Attackers win", "defenders": "Defenders win"}[s["result"]]
        shows(base, f"^{winner}$")
        shows(base, "^Hold NEW: new game$")
        # the next game: a long press of NEW, the same opponent and clock
        game = s["game"]
        press(base, "new", long=True)
        wait_for(lambda: state(base)["game"] != game, what="the next game")
        s = state(base)
        assert s["players"]["defenders"]["kind"] == "computer"
        assert s["clock"]["control"]["text"] == "5+3"
        shows(base, "^Attackers to move$")
    finally:
        d.stop()


def test_the_next_game_of_a_match_is_a_long_press(tmp_path):
    d, base = start(tmp_path, "--match", "--defenders", "computer:1")
    try:
        # like every control: the owner's (no PIN: 403), strict about what it takes
        assert control(base, "api/button", {"button": "clock"}, pin=None)[0] == 403
        assert control(base, "api/button", {"button": "lever"})[1]["code"] == "bad_button"
        assert control(base, "api/button", {"button": "new", "press": "double"})[0] == 400
        assert control(base, "api/button", {"button": "new", "hold": 1})[1]["code"] == "bad_field"
        shows(base, "^Page:$")  # none of these was a press: still the start-up address
        press(base, "clock")  # away from the start-up address (no clock: says so)
        shows(base, "^No clock$")
        person_moves(base)
        computer_moves(base)
        status, out = control(base, "api/resign", {"side": "attackers"})  # the quick way out
        assert status == 200, out
        shows(base, "^Defenders win$")
        shows(base, "^Hold NEW: game 2$")
        assert press(base, "clock")[3] == "Game over"
        press(base, "new", long=True)
        wait_for(lambda: state(base)["match"]["game"] == 2, what="game 2 of the match")
        s = state(base)
        assert s["players"]["attackers"]["kind"] == "computer"  # sides swapped
        fix_board(base)
        computer_moves(base)  # the computer opens game 2: its move on the display
        shows(base, r"^Match 0-1$|^Match 1-0$")
    finally:
        d.stop()


def test_the_page_shows_the_display_and_presses_the_buttons(tmp_path, browser):
    """Under the board at phone size: the display's four lines as /api/state has them, and for
    the owner of a simulated board the four buttons (a held "New game" is the long press)."""
    d, base = start(tmp_path, "--defenders", "computer:1")
    try:
        page = browser_page(browser, base + f"#pin={PIN}", ready="#boardpanel .oled")
        page.wait_for_selector("#boardpanel .panelbuttons button", state="visible")
        page.click("button[data-button=hint]")
        shows(base, r"^Hint ")
        page.wait_for_function("() => [...document.querySelectorAll('#boardpanel .oled div')]"
                               ".some(d => d.textContent.startsWith('Hint '))")
        def on_page() -> list[str]:
            return page.eval_on_selector_all("#boardpanel .oled div", "ds => ds.map(d => "
                                             "d.textContent.replace(/\\u00a0/g, ''))")

        # the page follows the state's display through its live connection
        wait_for(lambda: on_page() == lines(base), what="the page's display as the state's")
        game = state(base)["game"]
        page.hover("button[data-button=new]")
        page.mouse.down()
        wait_for(lambda: state(base)["game"] != game, what="the long press")
        page.mouse.up()
        assert not page.errors
        spectator = browser_page(browser, base, ready="#boardpanel .oled")
        assert not spectator.is_visible("#boardpanel .panelbuttons")  # no PIN: no buttons
    finally:
        d.stop()


def test_hardware_buttons_reach_the_game_through_the_loop(tmp_path):
    """A real board's buttons (gpiozero on MockFactory pins, in the daemon's own process) and
    its display (luma's capture device): a press on the pin starts the clock before the first
    move (no clock runs before it otherwise), the next pauses it, through the panel's thread
    and the session's loop, and the text is in /api/state."""
    from dataclasses import replace

    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory
    from session_helpers import HandBoard
    from test_daemon_support import test_config

    from companion.daemon import Daemon
    from companion.hardware_config import ButtonsConfig, DisplayConfig
    from companion.rules import get_variant
    from companion.rules.game import Game

    factory = MockFactory()
    saved, Device.pin_factory = Device.pin_factory, factory
    board = HandBoard(7, Game(get_variant("brandubh")).board.occupied_names())
    cfg = replace(test_config(tmp_path, variant="brandubh", time_control="5+3"),
                  buttons=ButtonsConfig(kind="gpio"), display=DisplayConfig(kind="capture"))
    d = Daemon(cfg, board=board)
    d.start()
    try:
        base = d.url.replace("localhost", "127.0.0.1")
        wait_for(lambda: state(base)["tracking"] in ("ready", "check_pieces"), what="set up")
        assert state(base)["clock"]["running"] is None  # the clocks stand until the first move
        pin = factory.pin(5)  # the clock button's default pin

        def press_pin() -> None:
            pin.drive_low()
            time.sleep(0.1)
            pin.drive_high()

        press_pin()  # ... or the clock button
        wait_for(lambda: state(base)["clock"]["running"] == "attackers", what="the clock")
        press_pin()
        wait_for(lambda: state(base)["clock"]["paused"], what="the press applied")
        shows(base, "^Clock paused$")
        assert control(base, "api/button", {"button": "clock"})[1]["code"] == "real_board"
    finally:
        d.stop()
        Device.pin_factory = saved


FROM_BOARD = {  # the display's words: the menu's items and values, what it says
    "en": {"from": ("Start from", "This position"), "turn": ("To move", "Defenders"),
           "pieces": "Pieces: {n}", "refused": ["Not legal:", "No king", ""],
           "start": "Start game", "playing": "Defenders to move"},
    "de": {"from": ("Stellung", "vom Brett"), "turn": ("Am Zug", "Verteidiger"),
           "pieces": "Steine: {n}", "refused": ["Nicht erlaubt:", "Kein König", ""],
           "start": "Partie starten", "playing": "Verteidiger am Zug"},
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_game_from_a_position_set_up_on_the_board_with_the_buttons(tmp_path, lang):
    """Issue 21: "set up a position on the board and play from it … the side to move chosen
    on the board's display": the menu starts the game from the pieces on the board, the rules
    check it (a position they refuse says why on the display), in English and German."""
    config = tmp_path / "config.toml"
    config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      f'[display]\nlanguage = "{lang}"\n')
    d, base = spawn_daemon(["--config", str(config), "--data-dir", str(tmp_path / "data"),
                            "--variant", "brandubh"])
    w = FROM_BOARD[lang]
    try:
        game = state(base)["game"]
        press(base, "new")
        choose_in_menu(base, *w["from"])
        assert lines(base)[3] == w["pieces"].format(n=13)
        wait_for(lambda: state(base)["tracking"] == "reading", what="the board read")
        for square in state(base)["occupied"]:     # the hands clear the board but d1
            if square != "d1":
                click(base, square)
        wait_for(lambda: state(base)["guidance"].get("squares") == ["d1"], what="read")
        assert not [e for e in state(base)["events"] if e["kind"] in ("illegal", "warning")]
        choose_in_menu(base, *w["turn"])
        for _ in range(4):
            if lines(base)[1] == w["start"]:
                break
            press(base, "clock")
        assert press(base, "clock")[:3] == w["refused"]   # no king: nothing started
        assert state(base)["game"] == game
        click(base, "d4")                                 # the king in the middle
        wait_for(lambda: state(base)["guidance"].get("squares") == ["d1", "d4"], what="read")
        press(base, "clock")
        wait_for(lambda: state(base)["game"] != game, what="the game from the board")
        s = state(base)
        assert (s["position"], s["turn"], s["moves"]) == ("/3t3/7/7/3K3/7/7/7/", "defenders",
                                                          [])
        shows(base, f"^{w['playing']}$")
        wait_for(lambda: state(base)["tracking"] == "ready", what="the board as the game")
        make(base, "d4", "b4")
        assert state(base)["moves"] == ["d4-b4"]
    finally:
        d.stop()
