"""The board's panel: what a button press does and what the display says.

It sits above the session like the web layer: it reads the session's published state snapshots
and acts through the session's controls, as the board's actor (whoever touches the board is at
the board: no PIN). Presses from hardware arrive on the button driver's thread and are handled
on the panel's own thread; a press of the simulated board (``POST /api/button``) is handled on
the request's thread so its answer carries the new text. The display is redrawn on the panel's
thread only, at most ``max_hz`` times a second and only when its text changed, so nothing the
display or the buttons do can slow the scan loop.

What a press does in play is configured per button (``[buttons]``, :mod:`companion.
hardware_config`): ``clock`` (pause / resume the clocks), ``hint``, ``takeback``, ``menu``
(open the menu for the next game), ``new_game`` (the next game of a match, else a new game as
the menu says). In the menu the same actions play the roles ``ok`` (clock), ``next`` (hint),
``prev`` (takeback), ``close`` (menu) and ``start`` (new_game).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol, TypedDict

from companion.coach.puzzles import PuzzleCatalogue
from companion.drivers.buttons import ButtonEvent, ButtonSource
from companion.drivers.display import LumaDisplay, TextDisplay, render
from companion.panel.menu import Menu
from companion.panel.setup_from_board import board_position, reading_squares, refusal
from companion.panel.text import address_lines, game_lines, puzzle_line, with_book
from companion.panel.words import words
from companion.rules import PRESETS
from companion.session.actors import BOARD, Actor, ControlError

log = logging.getLogger("companion.panel")

MENU_ROLES = {"clock": "ok", "hint": "next", "takeback": "prev", "menu": "close",
              "new_game": "start"}
#: ControlError codes -> the display's word for them
REFUSALS = {"nothing_to_take_back": "nothing_back", "no_hint": "no_hint",
            "not_your_turn": "no_hint", "game_over": "game_over", "time_loss": "time_loss",
            "storage": "not_saving", "no_clock": "no_clock"}
NOTE_SECONDS = 4.0
#: While the menu starts from the board's position, the board is read; the session ends a
#: reading 60 s after it was last asked for (``game_setup.READING_S``): asked again this often.
READING_RENEW_S = 20.0


class PanelSession(Protocol):
    """The session's controls the panel uses (``companion.session.api``; what they answer is
    not read: a refusal is a ControlError), and the hook that puts the display's text into the
    state document."""

    def takeback(self, actor: Actor) -> object: ...

    def request_hint(self, actor: Actor, seconds: object = None) -> object: ...

    def clock_control(self, actor: Actor, action: str) -> object: ...

    def next_game(self, actor: Actor) -> object: ...

    def end_move(self, actor: Actor) -> object: ...

    def new_game(self, actor: Actor, request: Mapping[str, object]) -> object: ...

    def read_board(self, actor: Actor, on: bool) -> object: ...

    def set_display(self, lines: list[str] | None) -> None: ...

    def start_puzzle(self, actor: Actor, pid: object) -> object: ...

    def puzzles(self, variant: str) -> PuzzleCatalogue:
        """The variant's puzzles (``GET /api/puzzles``'s answer; any thread)."""
        ...

    def state(self) -> Mapping[str, object]:  # the published StateDocument ({} at first)
        """The state as last published (any thread)."""
        ...


class PressResult(TypedDict):
    """A simulated press: the button, ``short`` or ``long``, and the display's lines after."""

    button: str
    press: str
    display: list[str]


class Panel:
    """Buttons in, display out (see the module docstring)."""

    def __init__(self, session: PanelSession, snapshot: Callable[[], Mapping[str, Any]], *,
                 buttons: ButtonSource | None, display: TextDisplay | None,
                 action: Callable[[str, bool], str], variants: list[tuple[str, str]],
                 lang: str = "en", url: str | None = None, address_seconds: float = 60.0,
                 wall: Callable[[], float] = time.time, max_hz: float = 5.0,
                 press_to_end: bool = False) -> None:
        self.session = session
        self._snapshot = snapshot
        self.buttons = buttons
        self.display = display
        self._action = action
        self.variants = variants
        self.lang = lang
        self.press_to_end = press_to_end  # the clock button ends a move at the board
        self._wall = wall
        self._min_gap = 1.0 / max_hz
        self.menu: Menu | None = None
        self._read_at: float | None = None  # when the board's reading was last asked for
        self._note = ""  # the key of its words
        self._note_until = 0.0
        self._stuck: set[str] = set()
        self._url = url
        self._address: list[str] | None = address_lines(url, lang) if url else None
        self._address_until = wall() + address_seconds
        self._lines: list[str] = []
        self._published: list[str] | None = None
        self._last_state: str | None = None
        self._lock = threading.RLock()
        self._events: queue.Queue[ButtonEvent] = queue.Queue(maxsize=64)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="panel", daemon=True)
        self.presses = 0
        if buttons is not None:
            buttons.listen(self._queue)

    # -- threads ---------------------------------------------------------------------------
    def start(self) -> None:
        """Run the panel's thread (its first redraw at once)."""
        self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread, release the buttons and blank the display (once)."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        with self._lock:  # (a part being attached now sees the panel closed)
            parts = (self.buttons, self.display)
        for part in parts:
            if part is not None:
                part.close()

    def attach_buttons(self, buttons: ButtonSource) -> None:
        """The buttons, found after the start (companion.parts): their presses count from now
        on. RuntimeError once the panel is closed (the caller closes them again)."""
        with self._lock:
            if self._stop.is_set():
                raise RuntimeError("the panel is closed")
            self.buttons = buttons
        buttons.listen(self._queue)

    def attach_display(self, display: TextDisplay) -> None:
        """The display, found after the start (companion.parts): the next refresh draws on it
        and puts its text into the state. RuntimeError once the panel is closed."""
        with self._lock:
            if self._stop.is_set():
                raise RuntimeError("the panel is closed")
            self.display = display
            self._published = None  # its text goes to the state afresh
        self._wake.set()

    def wake(self) -> None:
        """A new state was published (called on the publishing thread: returns at once)."""
        self._wake.set()

    def _queue(self, event: ButtonEvent) -> None:
        try:
            self._events.put_nowait(event)
        except queue.Full:  # a chattering button: drop, the panel is behind anyway
            log.warning("panel: too many button events; %s %s dropped", event.button, event.kind)
        self._wake.set()

    def _run(self) -> None:
        last = 0.0
        while not self._stop.is_set():
            self._wake.wait(0.25)  # at least 4 redraws a second for the running clock
            self._wake.clear()
            while True:
                try:
                    event = self._events.get_nowait()
                except queue.Empty:
                    break
                try:
                    self.handle(event)
                except Exception:  # a press must never stop the panel
                    log.exception("panel: handling %s failed", event)
            gap = self._min_gap - (time.monotonic() - last)
            if gap > 0 and self._stop.wait(gap):
                break
            last = time.monotonic()
            try:
                self.refresh()
            except Exception:
                log.exception("panel: refreshing the display failed")

    # -- presses ---------------------------------------------------------------------------
    def press(self, button: str, long: bool = False) -> PressResult:
        """A press of the simulated board's ``button`` (handled now, on this thread)."""
        event = ButtonEvent(button, "long" if long else "short")
        self.handle(event)
        return {"button": button, "press": event.kind, "display": self.refresh()}

    def handle(self, event: ButtonEvent) -> None:
        """Do what ``event`` asks (a press, or a button stuck / free again)."""
        with self._lock:
            self.presses += 1
            self._address = None  # the first press ends the start-up address
            if event.kind == "stuck":
                self._stuck.add(event.button)
                return
            if event.kind == "free":
                self._stuck.discard(event.button)
                return
            if event.button in self._stuck:
                return
            action = self._action(event.button, event.kind == "long")
            log.info("panel: %s %s press: %s", event.button, event.kind, action)
            if action == "none":
                return
            st = self._state()
            if self.menu is not None:
                self._in_menu(MENU_ROLES.get(action, ""), st)
            else:
                self._in_play(action, st)

    def _in_play(self, action: str, st: Mapping[str, Any]) -> None:
        if action == "clock":
            self._clock(st)
        elif action == "hint":
            self._control(lambda: self.session.request_hint(BOARD))
        elif action == "takeback":
            if self._control(lambda: self.session.takeback(BOARD)):
                self.note("taken_back")
        elif action == "menu":
            self.menu = Menu.from_state(st, self.variants)
        elif action == "new_game":
            self._new_game(st, None)

    def _clock(self, st: Mapping[str, Any]) -> None:
        clock = st.get("clock")
        if st.get("result", "ongoing") != "ongoing":
            self.note("game_over")
        elif not clock:
            self.note("no_clock")
        elif self.press_to_end and waits_for_press(st):
            self._control(lambda: self.session.end_move(BOARD))
        elif clock.get("paused"):
            self._control(lambda: self.session.clock_control(BOARD, "resume"))
        elif clock.get("running"):
            self._control(lambda: self.session.clock_control(BOARD, "pause"))
        else:  # set up and not started yet (it starts by itself with the first move)
            self._control(lambda: self.session.clock_control(BOARD, "start"))

    def _new_game(self, st: Mapping[str, Any], menu: Menu | None) -> None:
        match = st.get("match") or {}
        if menu is not None and menu.origin == "board":
            self._from_board(st, menu)
            return
        if menu is not None and menu.origin == "puzzle":
            pid = menu.puzzle_id
            if pid is not None and self._control(lambda: self.session.start_puzzle(BOARD, pid)):
                self.menu = None
                self.note("starting")
            return
        if menu is None and match.get("next") and st.get("result", "ongoing") != "ongoing":
            ok = self._control(lambda: self.session.next_game(BOARD))
        else:  # the menu's choices, or the same players, variant and clock again
            request: Mapping[str, object] = menu.request() if menu is not None else {}
            ok = self._control(lambda: self.session.new_game(BOARD, request))
        if ok:
            self.menu = None
            self.note("starting")

    def _from_board(self, st: Mapping[str, Any], menu: Menu) -> None:
        """A new game from the pieces on the board; the rules' refusal stays on the display
        (the menu at "Start game": put the board right, OK again)."""
        w = words(self.lang)
        rules = PRESETS[menu.variant]
        position = board_position(st, rules)
        if position is None:
            self.menu = replace(menu, refused=(w["other_size"], ""))
            return
        try:
            self.session.new_game(BOARD, menu.request(position))
        except ControlError as exc:
            log.info("panel: the board's position refused (%s): %s", exc.code, exc.message)
            self.menu = replace(menu, refused=refusal(exc.message, w) if exc.code ==
                                "bad_position" else (w[REFUSALS.get(exc.code, "cannot")], ""))
            return
        self._read_at = None  # the new game ended the reading
        self.menu = None
        self.note("starting")

    def _in_menu(self, role: str, st: Mapping[str, Any]) -> None:
        menu = self.menu
        assert menu is not None
        if role == "close":
            self.menu = None
        elif role == "start" or (role == "ok" and menu.current == "start"):
            self._new_game(st, menu)
        elif role == "ok":
            self.menu = menu.ok()
        elif role in ("next", "prev"):
            self.menu = menu.step(1 if role == "next" else -1)
        self._with_puzzles()
        self._follow_reading()

    def _with_puzzles(self) -> None:
        """Read the variant's puzzles into the menu when it offers a puzzle (easiest first)."""
        menu = self.menu
        if menu is None or menu.origin != "puzzle" or menu.puzzles_of == menu.variant:
            return
        choices = tuple((p["id"], p["goal"], p["moves"], p["rating"])
                        for p in self.session.puzzles(menu.variant)["puzzles"])
        self.menu = replace(menu, puzzles=choices, puzzles_of=menu.variant, puzzle=0)

    def _follow_reading(self, renew: bool = False) -> None:
        """The session reads the board while the menu starts from the board's position (and
        not otherwise); ``renew``: ask again before the session's reading runs out."""
        wanted = self.menu is not None and self.menu.origin == "board"
        now = self._wall()
        reading = self._read_at is not None
        if wanted == reading and not (wanted and renew and self._read_at is not None
                                      and now - self._read_at >= READING_RENEW_S):
            return
        try:
            self.session.read_board(BOARD, wanted)
        except ControlError as exc:  # a game at a distance, the store failing: not now
            log.info("panel: reading the board refused (%s): %s", exc.code, exc.message)
            if wanted and self.menu is not None:
                self.menu = replace(self.menu, origin="start")
                self.note(REFUSALS.get(exc.code, "cannot"))
            return
        self._read_at = now if wanted else None

    def _control(self, call: Callable[[], object]) -> bool:
        """Run one control; a refusal becomes a short note on the display."""
        try:
            call()
        except ControlError as exc:
            log.info("panel: refused (%s): %s", exc.code, exc.message)
            self.note(REFUSALS.get(exc.code, "cannot"))
            return False
        return True

    def note(self, key: str) -> None:
        """Show the word ``key`` on the last line for a few seconds."""
        with self._lock:
            words(self.lang)[key]  # KeyError for a word neither language has
            self._note = key
            self._note_until = self._wall() + NOTE_SECONDS

    # -- the display -----------------------------------------------------------------------
    def _state(self) -> Mapping[str, Any]:
        return self._snapshot()

    @property
    def lines(self) -> list[str]:
        with self._lock:
            return list(self._lines)

    def compose(self, st: Mapping[str, Any], lang: str | None = None) -> list[str]:
        """The lines to show for snapshot ``st`` now (in ``lang``: the display's language by
        default; another one for the simulated display's mirror on a page in it)."""
        now = self._wall()
        lang = lang or self.lang
        w = words(lang)
        with self._lock:
            if self._address is not None:
                if now < self._address_until and self._last_state in (None, _key(st)):
                    if lang == self.lang:
                        self._last_state = _key(st)
                    return address_lines(self._url, lang) if self._url else list(self._address)
                self._address = None
            if self.menu is not None:
                lines = self.menu.lines(lang)
                if self.menu.current == "from" and self.menu.origin == "board":
                    lines[3] = w["n_read"].format(n=len(reading_squares(st)[0]))
                return lines
            note = w[self._note] if self._note and now < self._note_until else ""
            if self._stuck:
                note = w["stuck"].format(button=w["b_" + sorted(self._stuck)[0]])
            lines = game_lines(st, lang, note, now)
            if st.get("puzzle") and not lines[2]:
                lines[2] = puzzle_line(st["puzzle"], w)
            if self.press_to_end and waits_for_press(st) and not lines[2]:
                lines[2] = w["press_clock"]
            return with_book(lines, st, w)

    def refresh(self) -> list[str]:
        """Compose, draw if changed, and put the text into the state; the lines."""
        with self._lock:
            if self._read_at is not None:
                self._follow_reading(renew=True)
        lines = self.compose(self._state())
        with self._lock:
            self._lines = lines
            changed = lines != self._published
        if self.display is None:  # buttons only: no text to show, none in the state
            return lines
        self.display.show(lines)
        if changed:
            try:
                self.session.set_display(lines)  # on the session's loop thread
            except ControlError as exc:  # the loop is busy or stopping: next refresh
                log.debug("panel: the display's text not published yet: %s", exc.message)
            else:
                with self._lock:
                    self._published = lines
        return lines


    def frame(self, lang: str | None = None) -> tuple[list[str], Any]:
        """The display's lines and its 128×64 image (PIL, 1 bit; None before the first):
        exactly the frame the hardware was given. Only a simulated display (luma's capture
        device) draws another ``lang`` for a page in it (nothing else sees that frame)."""
        display = self.display
        if not isinstance(display, LumaDisplay):
            return self.lines, None
        if lang and lang != self.lang and display.kind == "capture":
            lines = self.compose(self._state(), lang)
            return lines, render(lines, display.device.width, display.device.height)
        return display.lines or [], display.image()


def waits_for_press(st: Mapping[str, Any]) -> bool:
    """A move at the board is made and its mover's clock still runs: it waits for the clock
    button (``press_to_end``; or for the captured pieces to be lifted, which comes first)."""
    clock = st.get("clock") or {}
    running = clock.get("running")
    return (st.get("result", "ongoing") == "ongoing" and not clock.get("paused")
            and running is not None and running != st.get("turn")
            and not st.get("move_to_make"))


def _key(st: Mapping[str, Any]) -> str:
    """What counts as the game having moved on (which ends the start-up address)."""
    return json.dumps([st.get("game"), st.get("moves"), st.get("result"), st.get("move_to_make")],
                      sort_keys=True)
