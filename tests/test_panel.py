"""The board's panel (companion/panel): every button in every state of a game, against the real
session (real tracker on a virtual clock, real store, real engine processes where the computer
plays), the display drawn on luma's capture device; the menu, the words, stuck buttons, and a
display that hangs without holding up the session."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from session_helpers import Harness, wait

from companion.drivers.buttons import ButtonEvent, SimButtons
from companion.drivers.display import FONT_SIZES, WIDTH, _fit, capture_display
from companion.hardware_config import ButtonsConfig, parse_buttons
from companion.panel import Panel
from companion.panel.menu import Menu
from companion.panel.text import clock_text, game_lines
from companion.panel.words import WORDS
from companion.rules import PRESETS
from companion.session import OWNER

SCRIPT = Path(__file__).with_name("scripted_engine.py")
VARIANTS = [(r.id, r.name) for r in PRESETS.values() if r.size == 7]
m_sides = ("attackers", "defenders")


def make_panel(h: Harness, cfg: ButtonsConfig | None = None, lang: str = "en") -> Panel:
    cfg = cfg or ButtonsConfig()
    panel = Panel(h.session, h.session.state, buttons=SimButtons(),
                  display=capture_display(), action=cfg.action, variants=VARIANTS, lang=lang,
                  wall=lambda: 1.7e9 + h.t)
    panel.refresh()
    return panel


def press(h: Harness, panel: Panel, button: str, long: bool = False) -> list[str]:
    out = panel.press(button, long)["display"]
    h.run(0.1)
    return list(out)


# -- the states -------------------------------------------------------------------------------


def ready(tmp_path: Path) -> Harness:
    """Brandubh against the computer, the person (attackers) to move, a 5+3 clock running."""
    h = Harness(tmp_path, variant="brandubh", tc="5+3", defenders="computer:1")
    h.move("d1", "c1")
    m = wait(h, lambda: h.session.move_to_make, "the computer's move")
    h.move(m["from"], m["to"])
    assert h.state["clock"]["running"] == "attackers"
    return h


def paused(tmp_path: Path) -> Harness:
    h = ready(tmp_path)
    h.session.clock_control(OWNER, "pause")
    return h


def pending(tmp_path: Path) -> Harness:
    """The computer has chosen its move; the person at the board has not made it yet."""
    h = ready(tmp_path)
    h.move("c1", "b1")
    wait(h, lambda: h.session.move_to_make, "the computer's move")
    return h


def thinking(tmp_path: Path) -> Harness:
    """An engine that never answers plays the defenders: it is always thinking."""
    h = Harness(tmp_path, variant="brandubh", tc="5+3",
                defenders=f"engine:{sys.executable} {SCRIPT} silent")
    h.move("d1", "c1")
    wait(h, lambda: h.state["thinking"], "the engine thinking")
    return h


def over(tmp_path: Path) -> Harness:
    h = ready(tmp_path)
    h.session.resign(OWNER, "attackers")
    h.run(0.1)
    return h


STATES = {"ready": ready, "paused": paused, "pending": pending, "thinking": thinking,
          "over": over}


def snapshot(h: Harness) -> dict[str, Any]:
    s = h.state
    return {"game": s["game"], "moves": list(s["moves"]), "result": s["result"],
            "paused": (s["clock"] or {}).get("paused"), "pending": s["move_to_make"],
            "hint": bool(s["hint_pending"] or s["hint"]), "turn": s["turn"]}


# what each press does, state by state: the change in the game, and the display's last line
EXPECT: dict[tuple[str, str], tuple[str, str]] = {
    ("ready", "clock"): ("paused", "Clock paused"),
    ("ready", "hint"): ("hint", ""),
    ("ready", "takeback"): ("takeback", "Taken back"),
    ("paused", "clock"): ("resumed", ""),
    ("paused", "hint"): ("hint", ""),
    ("paused", "takeback"): ("takeback", "Taken back"),
    ("pending", "clock"): ("paused", "Clock paused"),
    ("pending", "hint"): ("nothing", "No hint now"),
    ("pending", "takeback"): ("takeback", "Taken back"),
    ("thinking", "clock"): ("paused", "Clock paused"),
    ("thinking", "hint"): ("nothing", "No hint now"),
    ("thinking", "takeback"): ("takeback", "Taken back"),
    ("over", "clock"): ("nothing", "Game over"),
    ("over", "hint"): ("nothing", "Game over"),
    ("over", "takeback"): ("reopened", "Taken back"),
}


@pytest.mark.parametrize("button", ["clock", "hint", "takeback", "new", "new-long"])
@pytest.mark.parametrize("state", list(STATES))
def test_every_button_in_every_state(tmp_path: Path, state: str, button: str) -> None:
    h = STATES[state](tmp_path)
    try:
        panel = make_panel(h)
        before = snapshot(h)
        name, long = button.removesuffix("-long"), button.endswith("-long")
        shown = press(h, panel, name, long)
        after = snapshot(h)
        if name == "new" and not long:  # the menu opens; nothing else changes
            assert shown[:2] == ["Menu", "Opponent"] and after == before
            assert press(h, panel, "new")[0] != "Menu"  # the same button closes it
            assert snapshot(h) == before
            return
        if name == "new":  # a long press starts the next game, the same opponent and clock
            assert after["game"] != before["game"] and after["moves"] == []
            assert h.state["players"]["defenders"]["kind"] in ("computer", "engine")
            assert h.state["clock"]["control"]["text"] == "5+3"
            return
        change, note = EXPECT[(state, name)]
        if change == "paused":
            assert after["paused"] and not before["paused"]
        elif change == "resumed":
            assert before["paused"] and not after["paused"]
        elif change == "hint":
            assert after["hint"] and after["moves"] == before["moves"]
        elif change == "takeback":
            assert len(after["moves"]) < len(before["moves"]) and not after["pending"]
        elif change == "reopened":
            assert after["result"] == "ongoing" and after["moves"] == before["moves"]
        else:
            assert after == before
        if note:
            assert shown[-1] == note or shown[2] == note, shown
        assert (h.state["display"] or {}).get("lines") == shown
    finally:
        h.session.close()


def test_the_display_names_the_computers_move_and_the_clocks(tmp_path: Path) -> None:
    h = pending(tmp_path)
    try:
        panel = make_panel(h)
        m = h.state["move_to_make"]
        lines = panel.refresh()
        assert lines[0] == f"Computer: {m['from']} → {m['to']}"
        clock = h.state["clock"]
        marks = {side: "▶" if clock["running"] == side else " " for side in m_sides}
        assert lines[1] == (f"{marks['attackers']}{clock_text(clock['attackers'])}  "
                            f"{marks['defenders']}{clock_text(clock['defenders'])}")
        assert clock["running"] == "attackers"  # the person's, making the computer's move
        assert panel.display is not None
        image = panel.display.image()  # type: ignore[attr-defined]
        assert image is not None and image.size == (128, 64) and image.getbbox() is not None
    finally:
        h.session.close()


def test_a_stuck_button_is_shown_and_does_nothing_until_free(tmp_path: Path) -> None:
    h = ready(tmp_path)
    try:
        panel = make_panel(h)
        before = snapshot(h)
        panel.handle(ButtonEvent("takeback", "stuck"))
        assert panel.refresh()[3] == "Takeback stuck?"
        panel.handle(ButtonEvent("takeback", "short"))  # a stuck contact's "press"
        h.run(0.1)
        assert snapshot(h) == before
        press(h, panel, "clock")  # the other buttons still work
        assert h.state["clock"]["paused"]
        panel.handle(ButtonEvent("takeback", "free"))
        assert panel.refresh()[3] != "Takeback stuck?"
        press(h, panel, "takeback")
        assert len(h.state["moves"]) < len(before["moves"])
    finally:
        h.session.close()


def test_the_menu_chooses_the_next_game(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh")
    try:
        panel = make_panel(h, lang="de")
        assert press(h, panel, "new")[:3] == ["Menü", "Gegner", "◀ Person ▶"]
        assert press(h, panel, "hint")[2] == "◀ Computer ▶"
        assert press(h, panel, "clock")[1] == "Stufe"
        assert press(h, panel, "takeback")[2] == "◀ 5 ▶"  # takeback: the value before
        assert press(h, panel, "clock")[1:3] == ["Computer spielt", "◀ Verteidiger ▶"]
        press(h, panel, "hint")  # the computer takes the attackers
        assert press(h, panel, "clock")[1] == "Variante"
        assert press(h, panel, "clock")[1:3] == ["Stellung", "◀ Ausgangsstellung ▶"]
        assert press(h, panel, "clock")[1:3] == ["Uhr", "◀ keine ▶"]
        press(h, panel, "hint")
        assert press(h, panel, "clock")[1:3] == ["Trainer", "◀ niemand ▶"]
        assert press(h, panel, "clock")[:3] == ["Computer 5", "Partie starten", "Brandubh"]
        game = h.state["game"]
        press(h, panel, "clock")
        s = h.state
        assert s["game"] != game
        assert s["players"]["attackers"] == {"name": "Computer", "kind": "computer", "level": 5}
        assert s["players"]["defenders"]["kind"] == "board"
        assert s["clock"]["control"]["text"] == "3+2"
    finally:
        h.session.close()


def test_two_buttons_are_enough(tmp_path: Path) -> None:
    """A board with two buttons (an 11x11 Pi-header build): A short = clock, A long = menu,
    B short = hint, B long = takeback; the menu is walked with the same presses."""
    cfg = parse_buttons({"kind": "gpio", "pins": {"clock": 8, "hint": 9}, "clock_long": "menu",
                         "hint_long": "takeback", "new": "none", "new_long": "none"})
    h = ready(tmp_path)
    try:
        panel = make_panel(h, cfg)
        n = len(h.state["moves"])
        press(h, panel, "hint", long=True)  # takeback
        assert len(h.state["moves"]) < n
        assert press(h, panel, "clock", long=True)[0] == "Menu"
        for _ in range(8):  # OK until "Start game"
            if panel.lines[1] == "Start game":
                break
            press(h, panel, "clock")
        game = h.state["game"]
        press(h, panel, "clock")
        assert h.state["game"] != game
    finally:
        h.session.close()


def test_a_hanging_display_never_holds_up_the_session(tmp_path: Path) -> None:
    """The display is drawn on the panel's thread only: while a draw hangs (a wedged I2C bus),
    the session's publications still return at once (they only wake the panel)."""
    h = Harness(tmp_path, variant="brandubh")
    release = threading.Event()
    drawing = threading.Event()

    class Wedged:
        kind = "wedged"

        def show(self, lines: Any) -> None:
            drawing.set()
            release.wait(10)

        def status(self) -> dict[str, Any]:
            return {}

        def close(self) -> None:
            release.set()

    panel = Panel(h.session, h.session.state, buttons=None,
                  display=Wedged(), action=ButtonsConfig().action, variants=VARIANTS)
    announce = h.session.ctx.announcer.announce
    h.session.ctx.announcer.announce = (  # as the daemon's hub
        lambda state: (announce(state), panel.wake()))
    try:
        threading.Thread(target=panel._run, daemon=True).start()
        panel.wake()
        assert drawing.wait(5)
        # this thread is the session's loop: a move with the display wedged, published at once
        published = len(h.states)
        h.move("d1", "c1")
        assert h.state["moves"] == ["d1-c1"] and len(h.states) > published
    finally:
        release.set()
        panel.close()
        h.session.close()


# -- pure parts --------------------------------------------------------------------------------


def test_both_languages_have_every_word_and_every_line_fits() -> None:
    assert set(WORDS["en"]) == set(WORDS["de"])
    sample = {"side": "Verteidiger", "who": "Computer", "move": "e10 → e11",
              "squares": "a1 b2 c3 …", "square": "k11", "n": 12, "of": 2, "a": "1.5", "b": "0.5",
              "button": "Zurück", "m": 24, "goal": "Schlagen", "r": 1850, "drop": "12,5",
              "score": "12,5"}
    for lang, table in WORDS.items():
        for key, text in table.items():
            line = text.format(**sample)
            fitted, font = _fit(line, WIDTH - 2)
            assert not fitted.endswith("…") or line.endswith("…"), (lang, key, line)
            assert font.size >= FONT_SIZES[-1]


def test_menu_values_wrap_and_make_the_request() -> None:
    m = Menu.from_state({"variant": "brandubh", "players": {
        "defenders": {"kind": "computer", "level": 3}},
        "clock": {"control": {"text": "5+3"}}}, VARIANTS)
    assert (m.opponent, m.level, m.computer_side, m.clock) == ("computer", 3, "defenders", "5+3")
    assert m.items() == ["opponent", "level", "plays", "variant", "from", "clock", "coach",
                         "start"]
    m = m.ok().step(-3)  # level 3 -> 10 (wraps)
    assert m.level == 10
    assert m.request() == {"variant": "brandubh", "time_control": "5+3", "players": {
        "attackers": {"kind": "board"}, "defenders": {"kind": "computer", "level": 10}},
        "coach": None}
    assert Menu.from_state({}, VARIANTS).items() == ["opponent", "variant", "from", "clock",
                                                     "coach", "start"]
    board = Menu.from_state({"variant": "brandubh"}, VARIANTS)
    board = board.ok().ok().step(1)  # Start from: this position; the side to move appears
    assert (board.current, board.origin) == ("from", "board")
    assert board.items() == ["opponent", "variant", "from", "turn", "clock", "coach", "start"]
    with pytest.raises(ValueError):
        board.request()  # a game from the board needs its position
    assert board.ok().step(1).request("/3t3/7/7/3K3/7/7/7/") == {
        "variant": "brandubh", "time_control": "none", "players": {
            "attackers": {"kind": "board"}, "defenders": {"kind": "board"}},
        "position": "/3t3/7/7/3K3/7/7/7/", "turn": "defenders", "coach": None}


def test_game_lines_from_a_snapshot() -> None:
    st = {"turn": "defenders", "result": "ongoing", "moves": ["d1-c1"],
          "clock": {"attackers": 297.0, "defenders": 300.0, "running": "defenders",
                    "paused": False, "at": 1000.0},
          "move_to_make": {"from": "e7", "to": "c7", "by": "computer", "captures": ["c6"]},
          "match": {"players": ["Ann", "Computer"], "score": {"Ann": 1.0, "Computer": 0.0},
                    "next": False}}
    assert game_lines(st, "en", now=1004.5) == [
        "Computer: e7 → c7", " 4:57  ▶4:55", "then lift c6", "Match 1-0"]
    assert game_lines({**st, "move_to_make": None, "result": "attackers", "match": None},
                      "de", now=1000.0)[0] == "Angreifer gewinnen"
    assert clock_text(3725) == "1:02:05" and clock_text(9.44) == "0:09.4"
    # a reed board asks for a check of the pieces; a paused clock says so first
    check = {"turn": "attackers", "moves": [], "guidance": {"kind": "check_pieces"}}
    assert game_lines(check, "de", now=0.0)[:3] == ["Angreifer am Zug", "Zug 1", "Steine prüfen"]
    paused = {**check, "clock": {"attackers": 300.0, "defenders": 300.0, "paused": True}}
    assert game_lines(paused, "en", now=0.0)[2] == "Clock paused"
    reading = {"turn": "attackers", "guidance": {"kind": "reading", "squares": ["d1", "d4"]}}
    assert game_lines(reading, "en", now=0.0)[::2] == ["Set up a position", "Pieces: 2"]


def test_the_clock_button_ends_a_move_when_the_owner_prefers(tmp_path: Path) -> None:
    """[buttons] press_to_end_move: as on a chess clock, the mover's clock runs until the clock
    button is pressed after the move (and after the captured pieces are lifted)."""
    h = Harness(tmp_path, variant="brandubh", tc="5+3")
    h.session.press_to_end = True
    try:
        panel = make_panel(h)
        panel.press_to_end = True
        assert h.state["clock"]["running"] is None  # no clock before the first move...
        press(h, panel, "clock")  # ...unless the clock button starts them
        assert h.state["clock"]["running"] == "attackers"
        h.move("d1", "c1")
        h.run(2.0)
        s = h.state
        assert s["turn"] == "defenders" and s["clock"]["running"] == "attackers"
        assert panel.refresh()[2] == "Press CLOCK"
        press(h, panel, "clock")
        s = h.state
        assert s["clock"]["running"] == "defenders" and not s["clock"]["paused"]
        # the attackers' clock ran until the press (2 s after the move), then the increment:
        # switched at the placement it would read about 302
        assert 299.0 < s["clock"]["attackers"] < 301.0
        assert panel.refresh()[2] == ""
        press(h, panel, "clock")  # no move waits: the button pauses, as without the option
        assert h.state["clock"]["paused"]
    finally:
        h.session.close()


def test_buttons_without_a_display_put_no_text_in_the_state(tmp_path: Path) -> None:
    h = ready(tmp_path)
    try:
        panel = Panel(h.session, h.session.state, buttons=SimButtons(), display=None,
                      action=ButtonsConfig().action, variants=VARIANTS)
        panel.press("clock")
        assert h.state["clock"]["paused"] and h.state["display"] is None
    finally:
        h.session.close()


# -- a game from the position on the board ------------------------------------------------------

ENDGAME = "/3t3/7/7/3K3/7/7/7/"  # Brandubh: the king in the middle, one attacker on d1


def on_the_board(tmp_path: Path) -> tuple[Harness, Any]:
    """A board of reed switches (the hands set its pieces) with the start of Brandubh."""
    from session_helpers import HandBoard

    from companion.rules import get_variant
    from companion.rules.game import Game

    start = Game(get_variant("brandubh")).board.occupied_names()
    h = Harness(tmp_path, variant="brandubh", board=HandBoard(7, start))
    return h, start


def to_item(h: Harness, panel: Panel, item: str) -> list[str]:
    for _ in range(8):
        if panel.lines[1] == item:
            return panel.lines
        press(h, panel, "clock")
    raise AssertionError(f"the menu never showed {item}: {panel.lines}")


def test_a_game_from_the_position_on_the_board(tmp_path: Path) -> None:
    """Issue 21: "set up a position on the board and play from it", with the buttons: the
    menu's "Start from: This position" reads the board (nothing is guided back or judged while
    the hands set it up), "To move" chooses the side, and the rules check the position: a
    position they refuse says why on the display, and the game starts once the board is
    right."""
    h, _start = on_the_board(tmp_path)
    try:
        panel = make_panel(h)
        game = h.state["game"]
        press(h, panel, "new")
        assert to_item(h, panel, "Start from") == ["Menu", "Start from", "◀ Set-up ▶",
                                                   "OK ▶ next"]
        assert h.state["tracking"] != "reading"
        assert press(h, panel, "hint")[1:] == ["Start from", "◀ This position ▶",
                                               "Pieces: 13"]
        assert h.state["tracking"] == "reading"
        h.board.set_occupied({"d1"})               # the hands clear the board but one attacker
        h.run(1.0)
        assert panel.refresh()[3] == "Pieces: 1"
        assert not [e for e in h.store.events(game) if e["kind"] in ("illegal", "warning")]
        assert press(h, panel, "clock")[1:3] == ["To move", "◀ Attackers ▶"]
        assert press(h, panel, "hint")[2] == "◀ Defenders ▶"
        to_item(h, panel, "Start game")
        assert press(h, panel, "clock") == ["Not legal:", "No king", "", "Fix, OK: again"]
        assert h.state["game"] == game and h.state["tracking"] == "reading"
        h.board.set_occupied({"d1", "d4"})         # the king in the middle
        h.run(1.0)
        assert press(h, panel, "clock")[3] == "New game"
        s = h.state
        assert s["game"] != game and panel.menu is None
        assert (s["position"], s["turn"], s["moves"]) == (ENDGAME, "defenders", [])
        assert s["tracking"] == "ready"            # the board shows it already
        h.move("d4", "b4")
        assert h.state["moves"] == ["d4-b4"]
    finally:
        h.session.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_display_says_why_a_position_is_not_legal(tmp_path: Path, lang: str) -> None:
    h, start = on_the_board(tmp_path)
    cases = [  # the pieces on the board, what the display says (the attackers to move)
        (start | {"a2"}, {"en": ["9 attackers", "at most 8"],
                          "de": ["9 Angreifer", "höchstens 8"]}),
        ({"a1", "d1"}, {"en": ["King escaped", ""], "de": ["König entkommen", ""]}),
        ({"d4"}, {"en": ["No legal move", "for attackers"],
                  "de": ["Kein Zug möglich", "für Angreifer"]}),
        ({"a1", "g7", "d1"}, {"en": ["Soldier on g7", ""], "de": ["Stein auf g7", ""]}),
    ]
    try:
        panel = make_panel(h, lang=lang)
        game = h.state["game"]
        press(h, panel, "new")
        for _ in range(2):
            press(h, panel, "clock")
        press(h, panel, "hint")                    # Start from: this position
        assert panel.menu is not None and panel.menu.origin == "board"
        for _ in range(4):
            press(h, panel, "clock")               # To move (attackers), Clock, Coach, Start
        for pieces, said in cases:
            h.board.set_occupied(pieces)
            h.run(1.0)
            shown = press(h, panel, "clock")
            assert shown[1:3] == said[lang], (pieces, shown)
            assert shown[0] == {"en": "Not legal:", "de": "Nicht erlaubt:"}[lang]
            assert h.state["game"] == game
        press(h, panel, "new")                     # the menu closed: the game's board again
        assert panel.menu is None and h.state["tracking"] != "reading"
    finally:
        h.session.close()


def test_the_board_is_read_as_long_as_the_menu_asks(tmp_path: Path) -> None:
    """The session ends a reading nobody renews (60 s); the panel renews it while its menu
    starts from the board, however long the hands take."""
    from companion.session import game_setup as setup

    h, _start = on_the_board(tmp_path)
    try:
        panel = make_panel(h)
        press(h, panel, "new")
        for _ in range(2):
            press(h, panel, "clock")
        press(h, panel, "hint")
        for _ in range(int(setup.READING_S) * 2 // 5):
            h.run(5.0)
            panel.refresh()                         # the panel's thread, 4 times a second
        assert h.state["tracking"] == "reading"
        press(h, panel, "hint")                     # back to the set-up: the board is judged
        assert h.state["tracking"] != "reading"
    finally:
        h.session.close()


def test_the_menu_starts_a_puzzle_of_the_library(tmp_path: Path) -> None:
    """Issue 28: a puzzle chosen with the buttons (its goal, length and rating on the display),
    easiest first; starting it sets the board up for it."""
    from companion.coach.puzzles import shipped

    first = sorted(shipped("brandubh"), key=lambda p: (p.rating, p.id))[0]
    goal = {"escape": "Escape", "capture": "Capture", "win": "Win"}[first.goal]
    h = Harness(tmp_path, variant="brandubh")
    try:
        panel = make_panel(h)
        assert press(h, panel, "new")[1] == "Opponent"
        press(h, panel, "clock")  # the variant
        assert press(h, panel, "clock")[1:3] == ["Start from", "◀ Set-up ▶"]
        press(h, panel, "hint")
        assert press(h, panel, "hint")[2] == "◀ A puzzle ▶"
        shown = press(h, panel, "clock")
        assert shown[1:3] == ["Puzzle", f"◀ {goal} {first.moves} ({first.rating}) ▶"]
        assert press(h, panel, "hint")[2] != shown[2]  # the next puzzle
        press(h, panel, "takeback")
        assert press(h, panel, "clock")[:3] == ["Puzzle", "Start game", "Brandubh"]
        press(h, panel, "clock")
        s = wait(h, lambda: h.state if h.state.get("puzzle") else None, "the puzzle")
        assert s["puzzle"]["id"] == first.id and s["position"] == first.position
        assert s["turn"] == first.side
    finally:
        h.session.close()


def test_the_menu_chooses_the_coach_and_the_display_says_its_warning() -> None:
    m = Menu.from_state({"variant": "brandubh", "coach": {"side": "defenders"}}, VARIANTS)
    assert m.coach == "defenders"
    while m.current != "coach":
        m = m.ok()
    assert m.lines("en")[1:3] == ["Coach", "◀ Defenders ▶"]
    m = m.step(1)
    assert m.lines("de")[1:3] == ["Trainer", "◀ niemand ▶"] and m.request()["coach"] is None
    assert m.step(1).request()["coach"] == "attackers"
    st = {"turn": "defenders", "result": "ongoing", "moves": ["b4-b3"],
          "coach": {"side": "attackers", "warning": {
              "move": "b4-b3", "kind": "escape", "target": "g1", "moves": 2}}}
    assert game_lines(st, "en") == ["Careful: b4 → b3", "Move 1", "King g1 in 2",
                                    "Take it back?"]
    assert game_lines(st, "de") == ["Vorsicht: b4 → b3", "Zug 1", "König g1 in 2",
                                    "Zurücknehmen?"]
    st["coach"]["warning"].update(kind="drop", drop=2.25, target=None, moves=None)
    assert game_lines(st, "de")[2] == "2,2 Steine weg"
    st["coach"]["warning"].update(kind="capture", moves=1)
    assert game_lines(st, "en")[2] == "King taken in 1"


def test_the_display_shows_the_evaluation_asked_for() -> None:
    st = {"turn": "attackers", "result": "ongoing", "moves": [],
          "evaluation": {"side": "attackers", "score": -1.25, "best": "d1-d3", "ply": 0}}
    assert game_lines(st, "en")[2] == "Defenders +1.2"
    assert game_lines(st, "de")[2] == "Verteidiger +1,2"
    st["evaluation"]["score"] = 995.0
    assert game_lines(st, "en")[2] == "Attackers can win"
    st["evaluation"]["score"] = None  # still looking: nothing yet
    assert game_lines(st, "en")[2] == ""
