"""The board's display and LEDs as a new user found them (issue 26): a takeback from the board's
button guided as well as from the page, why a game ended, the frame the hardware gets, short
variant names. Real sessions (tests/session_helpers.Harness) and luma's capture device."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_helpers import wait
from test_panel import make_panel, over, press, ready

from companion.drivers.display import capture_display
from companion.panel.text import clock_text, game_lines
from companion.panel.words import WORDS


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_takeback_from_the_boards_button_says_which_piece_goes_where(tmp_path: Path,
                                                                       lang: str) -> None:
    """Issue 26, 4: the display said "Set up the board / 4 squares to fix" and all four LEDs
    had the same ``setup`` role; now the display, the LEDs, the English message and the page's
    data all carry each piece home as a move (from where it stands to where it goes)."""
    h = ready(tmp_path)  # Brandubh, the person (attackers) against the computer: d1-c1, reply
    try:
        reply = h.state["moves"][-1]  # the computer's reply, made on the board
        r_from, r_to = reply.split("x")[0].split("-")
        panel = make_panel(h, lang=lang)
        shown = press(h, panel, "takeback")
        assert h.state["moves"] == []
        g = h.state["guidance"]
        assert g["kind"] == "setup"
        board = h.session.game.board
        piece = board.piece_at(list(board.geo.names).index(r_from))
        assert g["back"] == [{"piece": piece, "from": r_to, "to": r_from},
                             {"piece": "t", "from": "c1", "to": "d1"}]  # the latest first
        leds = h.state["leds"]
        assert leds["c1"] == "make_from" and leds["d1"] == "make_to"
        assert leds[r_to] == "make_from" and leds[r_from] == "make_to"
        assert "setup" not in leds.values()
        word = {"t": "attacker", "T": "defender", "K": "king"}[piece]
        assert h.state["message"] == (f"Takeback: move the {word} from {r_to} back to {r_from}; "
                                      "move the attacker from c1 back to d1")
        lines = panel.refresh()
        assert lines[0] == WORDS[lang]["carry_back"], lines
        assert lines[2] == f"{r_to} → {r_from} c1 → d1", lines
        assert shown[-1] == WORDS[lang]["taken_back"]
        # following it: the board is set up again, nothing to fix
        h.click(r_to, 0.1)  # in the hand, still on its way home
        assert len(h.state["guidance"]["back"]) == 2 and h.state["leds"][r_from] == "make_to"
        h.click(r_from, 0.1)
        assert h.state["guidance"]["back"] == [{"piece": "t", "from": "c1", "to": "d1"}]
        h.click("c1", 0.1)
        h.click("d1", 1.0)
        assert h.state["tracking"] == "ready", h.state["message"]
    finally:
        h.session.close()


def test_two_takebacks_before_the_board_follows_carry_each_piece_to_its_first_home(
        tmp_path: Path) -> None:
    """Two presses before any piece is moved back: the guidance still starts from the board as
    it stands (the first takeback's pieces are not forgotten)."""
    h = ready(tmp_path)
    try:
        h.move("c1", "b1")
        m = wait(h, lambda: h.session.move_to_make, "the computer's move")
        h.move(m["from"], m["to"])
        panel = make_panel(h)
        press(h, panel, "takeback")
        press(h, panel, "takeback")
        assert h.state["moves"] == []
        back = {(b["from"], b["to"]) for b in h.state["guidance"]["back"]}
        assert ("b1", "d1") in back  # d1-c1 then c1-b1: the attacker goes straight home
    finally:
        h.session.close()


ENDINGS = {  # reason, result -> line 3 in English and German
    ("escape", "defenders"): ("King escaped", "König entkommen"),
    ("king_captured", "attackers"): ("King captured", "König gefangen"),
    ("encirclement", "attackers"): ("Encircled", "Eingekesselt"),
    ("exit_fort", "defenders"): ("King's exit fort", "Randfestung"),
    ("repetition", "draw"): ("Repetition", "Wiederholung"),
    ("repetition", "attackers"): ("Repetition", "Wiederholung"),
    ("no_moves", "defenders"): ("No legal move", "Kein Zug möglich"),
    ("agreement", "draw"): ("Draw agreed", "Remis vereinbart"),
    ("resignation", "defenders"): ("Attackers resigned", "Angreifer gaben auf"),
    ("time", "attackers"): ("Defenders: time up", "Verteidiger: Zeit um"),
}


@pytest.mark.parametrize(("reason", "result"), list(ENDINGS))
def test_the_display_says_why_the_game_ended(reason: str, result: str) -> None:
    """Issue 26, 6: the display said "Defenders win" and never why; the reason is line 3, in
    both languages, whole in the 128×64 frame luma draws."""
    from companion.drivers.display import WIDTH, _fit

    st = {"turn": "attackers", "moves": ["d1-c1"], "result": result, "reason": reason,
          "clock": None}
    for lang, want in zip(("en", "de"), ENDINGS[(reason, result)]):
        lines = game_lines(st, lang, now=0.0)
        assert lines[2] == want, (lang, lines)
        assert not _fit(lines[2], WIDTH - 2)[0].endswith("…")
        display = capture_display()
        display.show(lines)
        assert display.image().getbbox() is not None


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_resignation_is_named_on_the_boards_display(tmp_path: Path, lang: str) -> None:
    h = over(tmp_path)  # the person (attackers) resigned against the computer
    try:
        lines = make_panel(h, lang=lang).refresh()
        assert lines[:1] + lines[2:3] == {
            "en": ["Defenders win", "Attackers resigned"],
            "de": ["Verteidiger gewinnen", "Angreifer gaben auf"]}[lang], lines
    finally:
        h.session.close()


def every_variant() -> list[tuple[str, str, int]]:
    from companion.rules import PRESETS
    from companion.rules.hnefatafl_org import SERVER_RULESETS

    return [(r.id, r.name, r.size) for r in (*PRESETS.values(), *SERVER_RULESETS.values())]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_variant_has_a_display_name_that_fits(lang: str) -> None:
    """Issue 26, 5: the menu showed "◀ Copenhagen Hnefa…" and "Computer 1, Copenh…" (the
    rule set's long name, cut by the real OLED). Each variant has a short name that the 128×64
    frame shows whole, in the menu's value and on its start line."""
    from companion.drivers.display import WIDTH, _fit
    from companion.panel.menu import Menu
    from companion.panel.words import SHORT_NAMES, short_name

    for vid, name, _size in every_variant():
        assert vid in SHORT_NAMES["en"], vid
        menu = Menu(((vid, name),), opponent="computer", level=10, variant=vid)
        while menu.current != "variant":
            menu = menu.ok()
        value = menu.lines(lang)[2]
        assert value == f"◀ {short_name(vid, lang)} ▶"
        while menu.current != "start":
            menu = menu.ok()
        for line in (value, *menu.lines(lang)):
            assert not _fit(line, WIDTH - 2)[0].endswith("…"), (vid, line)


def test_no_development_labels_in_the_variants_names() -> None:
    """"Tablut (Linnaeus, as in seed 002)", "Hnefatafl (Königszabel rule sheet)", "Tawlbwrdd
    (Bell layout)" reached the page and exports; a user reads these names."""
    for vid, name, _size in every_variant():
        for label in ("seed", "rule sheet", "layout", "as in", "/", "museum"):
            assert label not in name.lower(), (vid, name)


def test_the_mirror_is_the_frame_the_hardware_gets(tmp_path: Path) -> None:
    """Issue 26, 5: the page's mirror drew the lines as text, whole, where the OLED cuts them:
    Panel.frame (GET /api/display) is the very image luma was given; a simulated display draws
    another language for a page in it."""
    from companion.drivers.display import render

    h = ready(tmp_path)
    try:
        panel = make_panel(h)
        press(h, panel, "new")  # the menu
        lines, image = panel.frame()
        assert panel.display is not None
        assert image is panel.display.image()  # type: ignore[attr-defined]
        assert lines == panel.lines and image.size == (128, 64)
        assert image.tobytes() == render(lines).tobytes()
        de_lines, de_image = panel.frame("de")
        assert de_lines[:2] == ["Menü", "Gegner"] and de_image.size == (128, 64)
        assert panel.frame()[0][:2] == ["Menu", "Opponent"]  # the display itself stays English
    finally:
        h.session.close()


@pytest.mark.parametrize("ending", ["resign", "draw"])
def test_the_exported_time_left_is_the_time_at_the_end(tmp_path: Path, ending: str) -> None:
    """Issue 26, 12: "time left at the end" was the time after the side's last own move (4:07.6)
    where the page and the display showed 4:00.8: the clocks stopped at the ending were never
    stored. The export, the state and the display now agree."""
    from test_panel import Harness

    from companion.session import OWNER
    from companion.session.export import _clock_text, game_csv, game_otg
    from companion.store import Store

    h = Harness(tmp_path, variant="brandubh", tc="5+3")
    try:
        h.move("d1", "c1")        # the attackers: 5:00 + 3 s, the defenders' clock runs
        h.run(7.0)
        if ending == "resign":
            h.session.resign(OWNER, "defenders")
        else:
            h.session.draw(OWNER, "offer", "defenders")
            h.session.draw(OWNER, "accept", "attackers")
        h.run(0.1)
        clock = h.state["clock"]
        assert clock["running"] is None and clock["defenders"] < 300 - 7
        gid = h.state["game"]
        lines = make_panel(h).refresh()
        a, d = (clock_text(clock[s]) for s in ("attackers", "defenders"))
        assert lines[1] == f" {a}   {d}", lines
    finally:
        h.session.close()
        h.store.close()
    store = Store(tmp_path / "games.sqlite3")
    try:
        csv = game_csv(store, gid)
        a, d = (_clock_text(clock[s]) for s in ("attackers", "defenders"))
        assert f"# time left at the end: attackers {a}, defenders {d}" in csv, csv
        assert f"{a} {d}" in game_otg(store, gid)
    finally:
        store.close()


def test_a_dropped_club_link_says_so_in_words() -> None:
    """Issue 26, 13: a lost broker connection read "the broker link dropped (Unspecified
    error)": paho's name for a lost socket, or a code it has no name for."""
    from paho.mqtt.client import MQTTErrorCode, convert_disconnect_error_code_to_reason_code
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.reasoncodes import ReasonCode

    from companion.club.link import dropped_words, reason_words

    lost = convert_disconnect_error_code_to_reason_code(MQTTErrorCode.MQTT_ERR_CONN_LOST)
    assert dropped_words(lost) == "the connection to the broker was lost; reconnecting"
    keepalive = convert_disconnect_error_code_to_reason_code(MQTTErrorCode.MQTT_ERR_KEEPALIVE)
    assert dropped_words(keepalive) == ("the broker closed the link (keep alive timeout); "
                                        "reconnecting")
    refused = ReasonCode(PacketTypes.CONNACK, "Not authorized")
    assert reason_words(refused) == "not authorized"
    odd = ReasonCode(PacketTypes.CONNACK, "Unspecified error")
    assert reason_words(odd) == "no reason given (code 128)"
    for words in (dropped_words(lost), reason_words(odd)):
        assert "Unspecified" not in words
