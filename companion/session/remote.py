"""Players at a distance: the seam between a network client (``companion.online``: a game on a
hnefatafl.org server; ``companion.club``: another board of the club, over MQTT) and the session.

The network client runs on threads of its own and never touches the game or the store. What
arrives from the network becomes a :data:`RemoteEvent`, handed to the session's ``inbox``
(thread-safe; it only enqueues). The session's loop thread drains the inbox like every other
command: it checks each event by the rules, stores it, and only then announces it (LEDs, page,
display). A move that arrives is a *move to make* (``move_to_make.by`` is the player's kind):
the person at the board carries it out, as for the computer's moves.

The other way, the session tells the remote player what happened at this board through the
``send_*`` methods, called on the loop thread **after** the move or control is stored. They must
never block (queue the work for the network thread). The store is the source of truth: after a
restart the session calls :meth:`RemotePlayer.started` with the stored game, and the client
reconciles it with what the other end knows (resends what it did not get, reports what it
missed as :class:`RemoteMove`), so a crash between storing and sending loses nothing.

A board may also only **watch** a game played by two others at the other end
(:attr:`RemoteTerms.watched`): every move of both sides is a move to make, in turn; the board
sends nothing, and :class:`RemoteLeave` lets the game go when the watching stops.

Names of squares exist only at the edges: a client turns the protocol's square names into
:class:`~companion.rules.board.Move` objects (ints) with the game's geometry before handing
them in, and back when it sends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from companion.rules.board import Move
from companion.session.clock import TimeControl
from companion.session.settings import GameSettings, SettingsError

# the clients build terms with these (re-exported: a client imports nothing else of the session)
__all__ = ["GameSettings", "Inbox", "RemoteChat", "RemoteClock", "RemoteDraw", "RemoteEnd",
           "RemoteEvent", "RemoteKind", "RemoteLeave", "RemoteMove", "RemotePlayer",
           "RemoteRefused", "RemoteResign", "RemoteSeat", "RemoteStart", "RemoteStatus",
           "RemoteTakeback", "RemoteTerms", "SettingsError", "TimeControl"]

SIDES = ("attackers", "defenders")


class RemoteKind(StrEnum):
    """The kinds of player at a distance (``players.*.kind`` and ``move_to_make.by``)."""

    ONLINE = "online"
    CLUB = "club"


@dataclass(frozen=True)
class RemoteSeat:
    """One side of a game the board only watches: the player's name and rating there."""

    name: str
    rating: float | None = None


@dataclass(frozen=True)
class RemoteTerms:
    """What both ends agreed on before the first move: the rules (a preset and its house rules,
    or a rule set matching a server exactly), the clock, who plays what, and the game's id at
    the other end (``ref``: stored with the game, so a restart finds it again).

    A game the board only **watches** (``watched``: the attackers' and the defenders' seats at
    the other end; ``local_side`` is then ""): both sides' moves arrive as moves to make, the
    person at the board carries each out, and the board plays and sends nothing of its own."""

    settings: GameSettings
    time_control: TimeControl | None
    local_side: str           # the side played at this board ("attackers" | "defenders"; "")
    opponent: str             # the other end's display name
    ref: str                  # e.g. "hnefatafl.org:49152/4" or "club:oslo/table-2/17"
    rating: float | None = None
    rated: bool | None = None
    watched: tuple[RemoteSeat, RemoteSeat] | None = None  # (attackers, defenders) when watched
    local_name: str | None = None  # this board's name at the other end (online: the account)

    @property
    def watching(self) -> bool:
        return self.watched is not None

    @property
    def remote_sides(self) -> tuple[str, ...]:
        """The sides played at the other end: one, or both in a watched game."""
        if self.watched is not None:
            return SIDES
        return tuple(s for s in SIDES if s != self.local_side)


@dataclass(frozen=True)
class RemoteStart:
    """A game starts (or, after a restart or a reconnect, goes on) with the other end.
    ``moves``: every move already played there, in order (empty for a new game).
    ``confirmed``: how many of this game's moves the other end had confirmed before (its own
    moves, its acknowledgements of this board's): a record that lacks one of them contradicts
    the other end's own word, and the session asks the owner before it drops a move."""

    terms: RemoteTerms
    moves: tuple[Move, ...] = ()
    confirmed: int = 0


@dataclass(frozen=True)
class RemoteMove:
    """The other end's move for ply ``ply`` (0-based: the number of moves before it). A move
    for a ply already played is a duplicate (ignored); one further ahead asks for a resync."""

    ply: int
    move: Move


@dataclass(frozen=True)
class RemoteRefused:
    """The other end refused this board's move of ply ``ply`` (e.g. a server house rule): the
    session takes it back and guides the piece back; ``reason`` is a sentence for the page."""

    ply: int
    reason: str


@dataclass(frozen=True)
class RemoteClock:
    """The other end's clocks (authoritative for online games): seconds left per side, the
    side whose clock runs, and ``at``: the local ``time.monotonic()`` when they were read (the
    network lag already taken into account by the client)."""

    attackers: float
    defenders: float
    running: str | None
    at: float


@dataclass(frozen=True)
class RemoteDraw:
    """A draw offer from the other end (``action`` "offer"), or its answer to ours
    ("accept" / "decline")."""

    side: str
    action: str


@dataclass(frozen=True)
class RemoteResign:
    side: str


@dataclass(frozen=True)
class RemoteTakeback:
    """The other end took back moves: the game goes back to ``ply`` moves (club play only)."""

    ply: int


@dataclass(frozen=True)
class RemoteEnd:
    """The game ended at the other end, in its words: ``result`` "attackers" | "defenders" |
    "draw", ``reason`` a short id ("resignation", "time", "agreement", "move_limit", a rules
    termination, or "server" when the server gives none)."""

    result: str
    reason: str


@dataclass(frozen=True)
class RemoteLeave:
    """The other end no longer plays or shows the game bound to this player (the board stopped
    watching it; the server dropped it without a result). The session lets the game go: it
    stays stored as it stands, and the board is free for another game. ``reason``: a sentence
    for the page (English; the page may translate by ``code``)."""

    reason: str
    code: str | None = None


@dataclass(frozen=True)
class RemoteChat:
    by: str
    text: str
    wall: float


@dataclass(frozen=True)
class RemoteStatus:
    """The link's state for the page: ``state`` e.g. "connected", "reconnecting", "error";
    ``message`` a sentence (English; the page may translate by ``code``)."""

    state: str
    message: str | None = None
    code: str | None = None
    details: dict[str, object] = field(default_factory=dict)


RemoteEvent = (RemoteStart | RemoteMove | RemoteRefused | RemoteClock | RemoteDraw | RemoteResign
               | RemoteTakeback | RemoteEnd | RemoteChat | RemoteStatus | RemoteLeave)

#: Where a remote player hands its events (the session's inbox; thread-safe, never blocks).
Inbox = Callable[[RemoteEvent], None]


class RemotePlayer(Protocol):
    """A player at a distance, as the session drives it (every method on the loop thread,
    none may block)."""

    @property
    def kind(self) -> RemoteKind: ...

    @property
    def takebacks(self) -> bool:
        """Whether a takeback crosses over (club) or is refused at this board (online)."""
        ...

    def connect(self, inbox: Inbox) -> None:
        """Where to hand events from now on."""
        ...

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        """The session plays this game with the other end now (a new game, or after a restart:
        the stored moves); the client reconciles and reports what is missing."""
        ...

    def send_move(self, ply: int, move: Move) -> None:
        """This board's move of ply ``ply`` was accepted and stored."""
        ...

    def send_draw(self, side: str, action: str) -> None:
        """This board's side offers ("offer"), accepts ("accept") or declines ("decline")."""
        ...

    def send_resign(self, side: str) -> None: ...

    def send_takeback(self, ply: int) -> None:
        """The game went back to ``ply`` moves here (only when :attr:`takebacks`)."""
        ...

    def stopped(self) -> None:
        """The session no longer plays with this player (a new game with other players)."""
        ...

    def close(self) -> None: ...
