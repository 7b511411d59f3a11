"""The tournament room's view of the club: every board's latest public state, from the broker.

:class:`ClubRoom` subscribes to ``tafl/{club}/+/state`` and ``tafl/{club}/+/status`` (retained:
a room started late sees every board at once), checks every message (a bad one is logged and
changes nothing), and keeps one entry per board. Two documents come out of it:

- :meth:`document`: ``GET /api/club``, ``{"club", "boards": [{"board", "online", "state"}]}``
  with each board's full public state (INTERFACES.md §4);
- :meth:`summary`: what the room page's live stream carries (position, clocks, last move,
  result, players, move count per board; small, so that a hundred viewers of fifty boards cost
  little); a page showing one board fetches its full state when the summary changes.

Changes are coalesced: the summary goes out at most every ``interval`` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import NotRequired, TypedDict

from companion.club import topics
from companion.club.config import check_name
from companion.club.link import ClubLink
from companion.club.room_check import BadState, check_state
from companion.club.topics import StateJSON
from companion.rules import PRESETS
from companion.rules.game import Game

log = logging.getLogger("companion.club")
MAX_BOARDS = 500
HOUSE_RULES = ("sheltered_king", "chain_capture", "king_armed", "escape", "repetition")
SUMMARY_FIELDS = ("game", "variant", "variant_name", "size", "turn", "result", "reason",
                  "reason_text", "position", "last", "players", "clock", "throne", "corners",
                  "published", "move_to_make", "remote")


class _Entry(TypedDict, total=False):
    """What the room knows of a board: whether it is online, its checked public state."""

    online: bool
    state: StateJSON


class PairSide(TypedDict):
    """A side of a game two boards play: the board it is played at, its player's name."""

    board: str
    name: str | None


class Pair(TypedDict):
    """The other board of a pair, whether this board's state is the one shown, both sides."""

    board: str
    lead: bool
    sides: dict[str, PairSide]


class RoomBoard(TypedDict):
    """A board in the room's documents: its name, whether it is online, its state (the whole
    public state, or its summary with ``plies``) and, for a pair, the pair."""

    board: str
    online: bool | None
    state: StateJSON
    pair: NotRequired[Pair]


class RoomJSON(TypedDict):
    """The room: its club, its broker link's state and every board."""

    club: str
    link: str
    boards: list[RoomBoard]


class BoardReview(TypedDict):
    """A board's game move by move (the positions after each move)."""

    board: str
    game: int
    variant: str
    moves: list[str]
    positions: list[str]
    result: str
    reason: str | None


class ClubRoom:
    """Every board of ``club`` as the broker last told (see the module docstring)."""

    def __init__(self, link: ClubLink, club: str, *, interval: float = 0.25,
                 on_summary: Callable[[RoomJSON], object] = lambda doc: None) -> None:
        self.link, self.club = link, club
        self.interval = interval
        self._on_summary = on_summary
        self._lock = threading.Lock()
        self._boards: dict[str, _Entry] = {}
        self._dirty = threading.Event()
        self._stop = False
        self.rejected = 0
        self._thread = threading.Thread(target=self._run, name="club-room", daemon=True)
        # the status first: a board's retained documents are checked against it (seal.py)
        link.subscribe(f"{topics.ROOT}/{club}/+/{topics.STATUS}", self._received)
        link.subscribe(f"{topics.ROOT}/{club}/+/{topics.STATE}", self._received)

    def start(self) -> None:
        self._thread.start()
        self._dirty.set()

    def close(self) -> None:
        self._stop = True
        self._dirty.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # -- reading ---------------------------------------------------------------------------
    def document(self) -> RoomJSON:
        with self._lock:
            return {"club": self.club, "link": self.link.state,
                    "boards": [{"board": name, "online": b.get("online"), "state": state}
                               for name, b in sorted(self._boards.items())
                               if (state := b.get("state")) is not None]}

    def board(self, name: str) -> RoomBoard | None:
        with self._lock:
            entry = self._boards.get(name)
            if entry is None or entry.get("state") is None:
                return None
            return {"board": name, "online": entry.get("online"), "state": entry["state"]}

    def review(self, name: str) -> BoardReview | None:
        """The board's game move by move: the position after each move (for the review)."""
        entry = self.board(name)
        if entry is None:
            return None
        state = entry["state"]
        rules = PRESETS[state["variant"]]
        settings = state.get("settings")
        options = settings.get("options") if isinstance(settings, dict) else None
        if isinstance(options, dict):
            known = {k: v for k, v in options.items()
                     if k in HOUSE_RULES and isinstance(v, bool | str)}
            with contextlib.suppress(TypeError, ValueError):  # else the preset's rules
                rules = rules.with_options(**known)
        game = Game(rules)
        positions = [game.board.otn()]
        for text in state["moves"]:
            try:
                game.play_text(text)
            except ValueError:
                break  # house rules the preset does not have: the review stops there
            positions.append(game.board.otn())
        return {"board": name, "game": state["game"], "variant": state["variant"],
                "moves": state["moves"][:len(positions) - 1], "positions": positions,
                "result": state["result"], "reason": state.get("reason")}

    def summary(self) -> RoomJSON:
        """Every board's summary; two boards playing one game with each other say so
        (``pair``: the other board, which of the two shows the game, both sides' players)."""
        with self._lock:
            boards: list[RoomBoard] = []
            smalls: dict[str, StateJSON] = {}
            for name, b in sorted(self._boards.items()):
                state = b.get("state")
                if state is None:
                    continue
                small = {k: state[k] for k in SUMMARY_FIELDS if k in state}
                small["plies"] = len(state["moves"])
                smalls[name] = small
                boards.append({"board": name, "online": b.get("online"), "state": small})
        pairs = pair_boards(smalls)
        for shown in boards:
            if shown["board"] in pairs:
                shown["pair"] = pairs[shown["board"]]
        return {"club": self.club, "link": self.link.state, "boards": boards}

    def link_changed(self, state: str, error: str | None) -> None:
        """The room's own broker link changed: the page is told at once."""
        self._dirty.set()

    # -- the broker's messages (network thread) --------------------------------------------
    def _received(self, topic: str, payload: bytes) -> None:
        where = topics.split(topic, self.club)
        if where is None:
            return
        board, kind, _ = where
        try:
            check_name(board, "board")
            with self._lock:
                if board not in self._boards and len(self._boards) >= MAX_BOARDS:
                    raise BadState(f"more than {MAX_BOARDS} boards")
            if not payload:  # a cleared retained message: the board left the club
                with self._lock:
                    self._boards.pop(board, None)
                self._dirty.set()
                return
            doc = topics.decode(payload)
            if kind == topics.STATE:
                state = check_state(doc)
                with self._lock:
                    self._boards.setdefault(board, {})["state"] = state
            else:
                with self._lock:
                    self._boards.setdefault(board, {})["online"] = doc.get("online") is True
        except ValueError as exc:  # PayloadError, BadState, a bad name
            self.rejected += 1
            if self.rejected <= 20 or self.rejected % 100 == 0:
                log.warning("club room: ignored a message on %s: %s", topic[:120], exc)
            return
        self._dirty.set()

    def _run(self) -> None:
        while True:
            self._dirty.wait()
            if self._stop:
                return
            self._dirty.clear()
            try:
                self._on_summary(self.summary())
            except Exception:
                log.exception("club room: publishing the summary failed")
            time.sleep(self.interval)


def pair_boards(states: Mapping[str, StateJSON]) -> dict[str, Pair]:
    """The boards that play one game with each other (the same agreed game, each naming the
    other, one side each): for each, the other board, whether its state is the one the page
    shows (``lead``: the board that is ahead, i.e. whose move the other has not carried out
    yet; when even, the board of the side to move, whose clock runs there), and both sides'
    players as each board names its own."""
    by_ref: dict[str, list[str]] = {}
    for name, state in states.items():
        remote = state.get("remote")
        if isinstance(remote, Mapping) and remote.get("kind") == "club" and remote.get("ref"):
            by_ref.setdefault(str(remote["ref"]), []).append(name)
    out: dict[str, Pair] = {}
    for names in by_ref.values():
        if len(names) != 2:
            continue
        a, b = names
        ra, rb = states[a]["remote"], states[b]["remote"]
        if (ra.get("peer"), rb.get("peer")) != (b, a) or ra.get("local_side") == rb.get(
                "local_side") or ra.get("local_side") not in ("attackers", "defenders"):
            continue
        sa, sb = states[a], states[b]
        if sa["plies"] != sb["plies"]:
            lead = a if sa["plies"] > sb["plies"] else b
        else:
            lead = a if ra.get("local_side") == sa.get("turn") else b
        at = {ra["local_side"]: a, rb["local_side"]: b}
        sides: dict[str, PairSide] = {
            side: {"board": board, "name": ((states[board].get("players") or {})
                                            .get(side) or {}).get("name")}
            for side, board in at.items()}
        out[a] = {"board": b, "lead": lead == a, "sides": sides}
        out[b] = {"board": a, "lead": lead == b, "sides": sides}
    return out
