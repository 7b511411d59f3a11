"""The talking board: the voice follows the session's published state like the display does
(on its own thread, woken by every publication), says what changed through the speaker, and
tells the session what it said (``voice`` of the state). Nothing here runs on the loop thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from companion.rules import get_variant
from companion.rules.board import Board

from .narrator import Narrator
from .sentences import State, Utterance, join, words
from .speaker import EspeakNg, PageVoice, Said, Speaker, SpeechEngine

log = logging.getLogger("companion.voice")

#: How often the voice looks at the clocks (a minute and ten seconds left).
CLOCK_EVERY = 0.5


def engine_for(name: str) -> SpeechEngine:
    return EspeakNg() if name == "espeak-ng" else PageVoice()


def describe(st: State, lang: str = "en") -> str:
    """The position in words: each side's pieces by square, the side to move and the king's
    free lines to the edge (what a player who cannot see the board asks for)."""
    w = words(lang)
    try:
        rules = get_variant(str(st.get("variant")))
        board = Board(rules, str(st.get("position")), str(st.get("turn") or rules.first))
    except (KeyError, ValueError) as exc:
        return f"{exc}"
    parts = []
    for side in ("attackers", "defenders"):
        squares = sorted((board.name(s) for s in board.pieces(side) if s != board.king),
                         key=lambda n: (n[0], int(n[1:])))
        parts.append(f"{w[side.title()]}: {join(squares, lang) or '-'}.")
    if board.king >= 0:
        king = board.name(board.king)
        ends = free_lines(board)
        parts.append(w["king_lines"].format(square=king, ends=join(ends, lang)) if ends
                     else w["king_no_lines"].format(square=king))
    parts.append(w["to_move"].format(side=w[str(st.get("turn", "attackers")).title()]))
    return " ".join(parts)


def free_lines(board: Board) -> list[str]:
    """The edge squares the king reaches along an empty line (his escape routes on an edge
    board; on a corner board the first step of one)."""
    n, king = board.size, board.king
    f0, r0 = king % n, king // n
    ends = []
    for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        f, r = f0 + df, r0 + dr
        last = None
        while 0 <= f < n and 0 <= r < n and board.piece_at(r * n + f) is None:
            last = r * n + f
            f, r = f + df, r + dr
        if last is not None and not (0 <= f < n and 0 <= r < n):
            ends.append(board.name(last))
    return ends


class VoiceStatus(TypedDict):
    """``voice`` of the page state: the speech engine, the language, what keeps it from
    speaking (None: nothing) and what it said last."""

    engine: str
    language: str
    problem: str | None
    said: list[Said]


class Voice:
    """The narrator and the speaker, fed by the state (see the module docstring)."""

    def __init__(self, engine: SpeechEngine, snapshot: Callable[[], Mapping[str, Any]],
                 publish: Callable[[VoiceStatus | None], None], lang: str = "en",
                 url: str | None = None, wall: Callable[[], float] = time.time) -> None:
        self.lang = lang
        self.narrator = Narrator(lang)
        self.speaker = Speaker(engine, lang, on_said=self._said, wall=wall)
        self._snapshot = snapshot
        self._publish = publish
        self._wall = wall
        self._before: State | None = None
        self._url = url
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="voice-narrator", daemon=True)

    def status(self, said: list[Said] | None = None) -> VoiceStatus:
        return {"engine": self.speaker.engine.name, "language": self.lang,
                "problem": self.speaker.problem,
                "said": self.speaker.said() if said is None else said}

    def start(self) -> None:
        self.speaker.start()
        self._thread.start()
        if self._url:
            self.say(Utterance("start", words(self.lang)["page_at"].format(url=self._url)))
        else:
            self._publish(self.status())

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.speaker.close()

    def wake(self) -> None:
        """A new state was published (the publishing thread: returns at once)."""
        self._wake.set()

    # -- requests (the page, the buttons) --------------------------------------------------
    def say(self, utterance: Utterance) -> None:
        self.speaker.say(utterance)

    def repeat(self) -> str:
        last = self.speaker.repeat()
        if last is None:
            text = words(self.lang)["nothing"]
            self.say(Utterance("repeat", text))
            return text
        return last.text

    def clocks(self) -> str:
        u = self.narrator.clocks(self._snapshot(), self._wall())
        self.say(u)
        return u.text

    def describe(self) -> str:
        text = describe(self._snapshot(), self.lang)
        self.say(Utterance("describe", text))
        return text

    # -- the narrator's thread -------------------------------------------------------------
    def step(self) -> list[Utterance]:
        """Look at the state now: say what changed and what the clocks call for."""
        now = self._snapshot()
        out = self.narrator.changes(self._before, now)
        out += self.narrator.clock_warnings(now, self._wall())
        self._before = now
        for u in out:
            self.speaker.say(u)
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(CLOCK_EVERY)
            self._wake.clear()
            try:
                self.step()
            except Exception:  # the voice never stops the board
                log.exception("voice: following the state failed")

    def _said(self, said: list[Said]) -> None:
        self._publish(self.status(said))
