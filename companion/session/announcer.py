"""The announcer: the session's recent events and the publication of its state.

The page state has two parts: the *game* part, rebuilt only after the store has written (so
nothing unsaved is ever shown), and the *live* part (LEDs, guidance, board, storage, ...),
rebuilt at every publication. :meth:`Announcer.publish` compares both with what was published
last and, when anything changed, makes a new immutable :class:`~companion.session.snapshot.
Snapshot` for other threads and hands the state to the ``announce`` callback (the page's event
stream). While the loop applies queued commands publication is deferred to the end of the loop
step (:meth:`deferred`), so that a command's caller never sees a state older than its command.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from companion.drivers.base import BoardSource
from companion.parts import PartStatus
from companion.rules.game import Game
from companion.session.snapshot import EMPTY, LegalMoves, Snapshot, legal_moves
from companion.session.state_document import (
    BoardStatus,
    GameState,
    LiveState,
    SessionEvent,
    StateDocument,
)

log = logging.getLogger("companion.session")

RECENT = 20  # session events kept for the page
STATUS_EVERY = 0.5  # seconds between two readings of the board's health


class Announcer:
    """Recent events, the board's health and the published state (see the module docstring)."""

    def __init__(self, announce: Callable[[StateDocument], object],
                 wall: Callable[[], float],
                 stamp: Callable[[str], Mapping[str, object]] = lambda by: {}) -> None:
        self.announce = announce  # where each new state goes (the page's event stream)
        self._wall = wall
        self._stamp = stamp  # what an event by ``by`` keeps of the moment (see note)
        self.recent: deque[SessionEvent] = deque(maxlen=RECENT)
        self._event_id = 0
        self.status: BoardStatus = {}
        self._parts: list[PartStatus] = []
        self._status_at = -1e9
        self._snapshot = EMPTY
        self._legal: tuple[GameState, LegalMoves] | None = None
        self._published_live: LiveState | None = None
        self._published_game: GameState | None = None
        self._deferring = False
        self._forced = False

    # -- events ----------------------------------------------------------------------------
    def note(self, kind: str, by: str, **data: object) -> SessionEvent:
        """A session event for the page's event list (who did what). It keeps what was true
        when it happened (the stamp): its game, and for an event by a side the name and kind of
        that side's player then, so that a later change of players never rewrites it."""
        self._event_id += 1
        event: SessionEvent = {"id": self._event_id, "t": round(self._wall(), 3), "kind": kind,
                               "by": by, **self._stamp(by), **data}
        self.recent.append(event)
        return event

    # -- the board's health ----------------------------------------------------------------------
    def read_status(self, board: BoardSource, now: float, force: bool = False) -> None:
        """Read the board's health, at most every :data:`STATUS_EVERY` seconds."""
        if now - self._status_at <= STATUS_EVERY and not force:
            return
        self._status_at = now
        try:
            raw = board.status()
            self.status = {"kind": str(raw.get("kind", board.kind)),
                           "connected": raw.get("connected") is True,
                           "detail": raw.get("detail"), "parts": self._parts_json()}
        except Exception as exc:  # noqa: BLE001 - a failing driver shows disconnected
            self.status = {"kind": board.kind, "connected": False,
                           "detail": f"status failed: {exc}", "parts": self._parts_json()}

    def set_parts(self, parts: Sequence[PartStatus]) -> None:
        """The board's missing parts now (``board.parts``; shown with the next publication)."""
        self._parts = [p.copy() for p in parts]
        if self.status:
            self.status = {**self.status, "parts": self._parts_json()}

    def _parts_json(self) -> list[PartStatus]:
        return [p.copy() for p in self._parts]

    # -- publication ---------------------------------------------------------------------------
    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Publish nothing inside (queued commands are being applied): the next
        :meth:`publish` after it publishes everything, forced if one inside asked to."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False

    def publish(self, game_part: GameState, live: Callable[[], LiveState],
                game: Game, gid: int, match: tuple[int, int] | None,
                force: bool = False) -> bool:
        """Publish the state if anything in it changed (or ``force``); True if it did.
        ``match`` is ``(id, game number)`` of the current match."""
        if self._deferring:
            self._forced |= force
            return False
        force, self._forced = force or self._forced, False
        now_live = live()
        if (not force and now_live == self._published_live
                and game_part is self._published_game):
            return False
        self._published_live, self._published_game = now_live, game_part
        state: StateDocument = {**game_part, **now_live}
        if self._legal is None or self._legal[0] is not game_part:
            self._legal = (game_part, legal_moves(game, gid))
        self._snapshot = Snapshot(state, self._legal[1], gid, match[0] if match else None,
                                  match[1] if match else 0, self._snapshot.version + 1)
        self.announce(state)
        return True

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot
