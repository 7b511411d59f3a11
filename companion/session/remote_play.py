"""The session's side of the seam for players at a distance (:mod:`companion.session.remote`).

:class:`RemoteGames` is the part of the session that owns everything about them: the remote
players attached to the session (at most one per kind: online, club), the game bound to one of
them (its :class:`~companion.session.remote.RemoteTerms`), the link's status and chat for the
page, and what is to be sent once it is stored.

Events from a network thread arrive through the inbox each attached player is given
(:meth:`RemoteGames.inbox_for`); the inbox only enqueues a command, and the loop thread applies
it here (:meth:`RemoteGames.handle`), through the :class:`RemoteHost` the session implements:
the command is handed the host when it runs (this part holds none, and is built before it).
What this board did goes the other way once it is stored: the session tells this part
(:meth:`moved`, :meth:`took_back`, :meth:`drew`, :meth:`resigned`) and calls :meth:`flush`
after every successful write, which calls the player's ``send_*`` methods.

Rules of the seam, as the session applies them (docs/session.md):

* ``RemoteStart`` starts a game with the terms (or resumes the one stored with the same
  ``ref``) and reconciles its moves with the other end's;
* ``RemoteMove`` for the next ply becomes the move to make (``by``: the player's kind); one for a
  ply already played is a duplicate (ignored when it is the same move); one further ahead, or a
  different one, asks the player for a resync (``started`` again, at most every
  :data:`RESYNC_EVERY` seconds);
* ``RemoteRefused`` takes this board's move back and guides the piece back;
* ``RemoteClock`` sets the clocks (the other end's are authoritative: no flag falls here);
* ``RemoteDraw``, ``RemoteResign``, ``RemoteTakeback``, ``RemoteEnd`` act as the other end's
  decisions; ``RemoteStatus`` and ``RemoteChat`` are shown on the page;
* ``RemoteLeave`` lets the game go (it stays stored as it stands).

A **watched** game (``RemoteTerms.watched``: both sides play at the other end) is followed move
by move (:mod:`companion.session.remote_watch`). Started fresh, it is caught up at once (the
board is guided to the position, the last move is the move to make); resumed (a reconnect, a
restart), the moves missed meanwhile wait in turn.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypedDict, assert_never

from companion.rules import other
from companion.rules.board import Move
from companion.session.game_moves import move_text, played_moves
from companion.session.remote import (
    Inbox,
    RemoteChat,
    RemoteClock,
    RemoteDraw,
    RemoteEnd,
    RemoteEvent,
    RemoteKind,
    RemoteLeave,
    RemoteMove,
    RemotePlayer,
    RemoteRefused,
    RemoteResign,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
)
from companion.session.remote_terms import disputed
from companion.session.remote_watch import Following, GameHolder

log = logging.getLogger("companion.session")

#: The events of the current game (the link's own, status, chat and start, come first).
GameEvent = (RemoteMove | RemoteLeave | RemoteRefused | RemoteClock | RemoteDraw | RemoteResign
             | RemoteTakeback | RemoteEnd)

RESYNC_EVERY = 2.0  # seconds between two resyncs asked of a player (a confused peer cannot loop)
CHAT_KEPT = 20


class RemoteHost(Protocol):
    """What :class:`RemoteGames` asks of the session (on the loop thread)."""

    def start_remote_game(self, terms: RemoteTerms, kind: RemoteKind) -> str | None:
        """Start a game with these terms (the board plays ``terms.local_side``); None, or why it
        cannot be played here (one sentence)."""
        ...

    def catch_up(self, moves: tuple[Move, ...], remote_side: str, by: str) -> None:
        """Play the other end's record on from this game's: every move at once (the board is
        guided to the new position), except a last move of the remote side, which becomes the
        move to make."""
        ...

    def remote_move_to_make(self, move: Move, by: str) -> str | None:
        """The remote side's move for the position now: the move to make; None, or why it is
        refused."""
        ...

    def take_back_to(self, ply: int, reason: str | None, by: str) -> None:
        """Take the game back to ``ply`` moves (``reason``: the other end refused this board's
        move; the board is guided to put it back)."""
        ...

    def remote_draw(self, side: str, action: str, by: str) -> None: ...

    def remote_resign(self, side: str, by: str) -> None: ...

    def remote_end(self, result: str, reason: str, by: str) -> None: ...

    def remote_clock(self, clock: RemoteClock, only: str | None) -> None:
        """Set the clocks as the other end reads them (``only``: that side's time alone)."""
        ...

    def remote_changed(self) -> None:
        """Publish (the link's status or chat changed)."""
        ...

    def remote_left(self, by: str) -> None:
        """The other end let the game go: a move to make of ``by`` is withdrawn; publish."""
        ...


#: Enqueue a command for the loop thread (never blocks); it is handed the host when it runs.
RemotePost = Callable[[Callable[[RemoteHost], None], str], object]


class RemoteJSON(TypedDict):
    """``remote`` in the page state: the game at a distance and the link's state."""

    kind: str
    ref: str | None
    opponent: str | None
    local_side: str | None
    rated: bool | None
    state: str | None
    message: str | None
    code: str | None
    chat: list[dict[str, object]]
    watching: bool
    queued: int  # a watched game: the other end's moves waiting behind the move to make
    pending_end: dict[str, str] | None  # a watched game's end, once the board made its moves
    dispute: dict[str, int] | None  # the other end's record would drop moves: the owner asked


@dataclass
class Binding:
    """The current game's player at a distance: its terms and what the session knows of it."""

    kind: RemoteKind
    terms: RemoteTerms
    player: RemotePlayer | None = None  # None until a player of this kind is attached
    authoritative_clock: bool = False  # the other end sent its clocks: no flag falls here
    resync_at: float = -1e9
    ending: tuple[str, str] | None = None  # (result, reason) in the other end's words
    following: Following | None = None  # a watched game: its moves not made here yet
    # the other end's record that would drop moves from ply ``at``, for the owner to take
    dispute: tuple[tuple[Move, ...], int] | None = None

    @property
    def remote_side(self) -> str:
        """The side played at the other end (a game with one side here)."""
        return other(self.terms.local_side)

    def is_remote(self, side: str) -> bool:
        return side in self.terms.remote_sides


@dataclass
class _Link:
    player: RemotePlayer
    status: RemoteStatus | None = None
    chat: deque[RemoteChat] = field(default_factory=lambda: deque(maxlen=CHAT_KEPT))


class RemoteGames:
    """Players at a distance and the game bound to one of them (see the module docstring)."""

    def __init__(self, record: GameHolder, monotonic: Callable[[], float],
                 post: RemotePost) -> None:
        self._record = record  # the game in play, read only
        self._monotonic = monotonic
        self._post = post
        self._links: dict[RemoteKind, _Link] = {}
        self.binding: Binding | None = None
        self._outgoing: list[Callable[[], None]] = []

    # -- attaching players (loop thread) ---------------------------------------------------
    def inbox_for(self, player: RemotePlayer) -> Inbox:
        """The inbox a player hands its events to (any thread; only enqueues)."""

        def inbox(event: RemoteEvent) -> None:
            self._post(lambda host: self.handle(host, player, event), type(event).__name__)

        return inbox

    def attach(self, player: RemotePlayer) -> None:
        """Play with ``player`` from now on (replacing one of its kind); the stored game with a
        player of its kind goes on with it."""
        kind = RemoteKind(player.kind)
        old = self._links.get(kind)
        if old is not None and old.player is not player:
            old.player.close()
        self._links[kind] = _Link(player)
        player.connect(self.inbox_for(player))
        b = self.binding
        if b is not None and b.kind is kind:
            b.player = player
            player.started(b.terms, played_moves(self._record.game))

    def close(self) -> None:
        for link in self._links.values():
            try:
                link.player.close()
            except Exception:  # noqa: BLE001 - closing must not stop the others
                log.exception("closing the %s player failed", link.player.kind)
        self._links.clear()

    # -- the current game ------------------------------------------------------------------
    def bind(self, kind: RemoteKind, terms: RemoteTerms, *, started: bool = True) -> None:
        """The current game is played with the player of ``kind`` on these terms (a new game,
        one restored from the store, or with ``terms.ref == ""`` one this board proposes:
        the player answers with a ``RemoteStart`` once both ends agree); ``started``: tell the
        player now."""
        link = self._links.get(kind)
        self.binding = Binding(kind, terms, link.player if link else None)
        self._follow_if_watched(self.binding)
        if started and link is not None:
            link.player.started(terms, played_moves(self._record.game))

    def unbind(self) -> None:
        """The current game is no longer played with a player at a distance (a new game)."""
        b, self.binding = self.binding, None
        self._outgoing.clear()
        if b is not None and b.player is not None:
            b.player.stopped()

    @property
    def remote_side(self) -> str | None:
        """The side played at a distance (None without one, or when the board watches)."""
        b = self.binding
        return b.remote_side if b is not None and not b.terms.watching else None

    def is_remote_side(self, side: str) -> bool:
        """Whether ``side`` is played at a distance (both are in a watched game)."""
        return self.binding is not None and self.binding.is_remote(side)

    @property
    def watching(self) -> bool:
        return self.binding is not None and self.binding.terms.watching

    @property
    def agreed(self) -> bool:
        """False while a game this board proposed waits for the other end's ``RemoteStart``
        (no move is accepted meanwhile)."""
        return self.binding is None or self.binding.terms.ref != ""

    @property
    def local_side(self) -> str | None:
        return self.binding.terms.local_side if self.binding else None

    @property
    def takebacks(self) -> bool:
        """Whether a takeback may cross over (club), or is refused here (online, or no
        player attached yet)."""
        b = self.binding
        return b is None or (b.player is not None and b.player.takebacks)

    @property
    def authoritative_clock(self) -> bool:
        return self.binding is not None and self.binding.authoritative_clock

    @property
    def ending(self) -> tuple[str, str] | None:
        """How the game ended in the other end's words, when they differ from the rules'."""
        return self.binding.ending if self.binding else None

    def ended(self, ending: tuple[str, str] | None) -> None:
        """The other end ended the game (``ending``: in its words when they differ from the
        rules', else None)."""
        if self.binding is not None:
            self.binding.ending = ending

    def attached(self) -> list[RemoteKind]:
        return list(self._links)

    # -- this board's actions, sent once stored -------------------------------------------
    def moved(self, ply: int, move: Move) -> None:
        self._send(lambda p: p.send_move(ply, move))

    def took_back(self, ply: int) -> None:
        self._send(lambda p: p.send_takeback(ply))

    def drew(self, side: str, action: str) -> None:
        self._send(lambda p: p.send_draw(side, action))

    def resigned(self, side: str) -> None:
        self._send(lambda p: p.send_resign(side))

    def _send(self, call: Callable[[RemotePlayer], None]) -> None:
        b = self.binding
        if b is None:
            return
        self._outgoing.append(lambda: self._deliver(b, call))

    @staticmethod
    def _deliver(b: Binding, call: Callable[[RemotePlayer], None]) -> None:
        if b.player is None:
            return  # attached later: started() hands it the stored game
        try:
            call(b.player)
        except Exception:  # noqa: BLE001 - a client's bug must not stop the loop
            log.exception("the %s player failed to take a message", b.kind)

    def flush(self) -> None:
        """Send what was stored (called after every successful write); a watched game moves on
        to its next move to make once the board made one."""
        outgoing, self._outgoing = self._outgoing, []
        for send in outgoing:
            send()
        b = self.binding
        if b is not None and b.following is not None:
            b.following.advance()

    # -- events from the other end (loop thread) ---------------------------------------------
    def handle(self, host: RemoteHost, player: RemotePlayer, event: RemoteEvent) -> None:
        kind = RemoteKind(player.kind)
        link = self._links.get(kind)
        if link is None or link.player is not player:
            log.info("an event from a %s player no longer attached: %s", kind, event)
            return
        match event:  # the link's own events first: they need no current game
            case RemoteStatus():
                link.status = event
                host.remote_changed()
                return
            case RemoteChat():
                link.chat.append(event)
                host.remote_changed()
                return
            case RemoteStart():
                self._start(host, kind, player, event)
                return
        b = self.binding
        if b is None or b.player is not player:
            log.info("%s: not the current game's player: %s ignored", kind, event)
            return
        self._game_event(host, kind, link, b, event)

    def _game_event(self, host: RemoteHost, kind: RemoteKind, link: _Link, b: Binding,
                    event: GameEvent) -> None:
        """An event of the current game's player (``b.player``)."""
        by = kind.value
        match event:
            case RemoteMove():
                if b.following is not None:
                    b.following.follow(host, event)
                else:
                    self._move(host, b, event)
            case RemoteLeave():
                self._leave(host, link, b, event)
            case RemoteRefused():
                self._refused(host, b, event)
            case RemoteClock() if kind is RemoteKind.ONLINE:
                # the server's clocks: both sides', and its flag
                b.authoritative_clock = True
                host.remote_clock(event, None)
            case RemoteClock():  # another board's: its side's time is its word, ours ours
                host.remote_clock(event, b.remote_side)
            case RemoteDraw():
                host.remote_draw(event.side, event.action, by)
            case RemoteResign():
                host.remote_resign(event.side, by)
            case RemoteTakeback():
                if b.player is None or not b.player.takebacks:
                    log.warning("%s: a takeback from a player without takebacks ignored", kind)
                elif event.ply <= len(self._record.game.played):  # (equal: a move to make only)
                    host.take_back_to(max(0, event.ply), None, by)
            case RemoteEnd():
                f = b.following
                waits = f is not None and f.end(host, event.result, event.reason)
                if not waits:  # (a watched game's end waits until the board made its moves)
                    host.remote_end(event.result, event.reason, by)
            case _:
                assert_never(event)

    def _start(self, host: RemoteHost, kind: RemoteKind, player: RemotePlayer,
               event: RemoteStart) -> None:
        terms = event.terms
        b = self.binding
        if b is not None and b.kind is kind and b.terms.ref == terms.ref:
            b.player = player  # the same game goes on (a reconnect, a restart)
            b.terms = terms
        else:
            self.binding = None  # a new game replaces the one bound (told below if another's)
            self._outgoing.clear()
            if b is not None and b.player is not None and b.player is not player:
                b.player.stopped()
            problem = host.start_remote_game(terms, kind)
            if problem is not None:
                log.warning("%s game %s cannot be played here: %s", kind, terms.ref, problem)
                self._links[kind].status = RemoteStatus("error", problem, "cannot_play")
                player.stopped()
                host.remote_changed()
                return
            b = self.binding = Binding(kind, terms, player)
            self._follow_if_watched(b)
            if terms.watching:
                self._reconcile(host, b, event.moves)  # caught up at once
                return
        if b.following is not None and b.following.resume(host, event.moves):
            return  # the moves missed meanwhile wait in turn
        self._reconcile(host, b, event.moves, event.confirmed)

    def _follow_if_watched(self, b: Binding) -> None:
        if b.terms.watching:
            b.following = Following(self._record, self._post, b.kind.value,
                                    lambda: self.binding is b,
                                    lambda why: self._resync(b, why))

    def _reconcile(self, host: RemoteHost, b: Binding, theirs: tuple[Move, ...],
                   confirmed: int = 0, agreed: bool = False) -> None:
        """Make the game follow the other end's record: the common start stays; moves of this
        board the other end lacks are for the client to resend (its ``started`` tells it).
        A record that differs, or lacks a move the other end had confirmed, would drop moves
        of this board's on the other end's word: the game keeps them, the page asks the owner
        (:meth:`take_record`, ``agreed``), and nothing is sent or resynced meanwhile."""
        game = self._record.game
        ours = played_moves(game)
        at = None if agreed else disputed(ours, theirs, confirmed)
        if at is not None:
            log.warning("the %s game %s: the other end's record drops moves from ply %d: the "
                        "owner is asked", b.kind, b.terms.ref, at + 1)
            b.dispute = (theirs, at)
            host.remote_changed()
            return
        b.dispute = None
        common = 0
        while common < min(len(ours), len(theirs)) and ours[common] == theirs[common]:
            common += 1
        if common < len(ours) and (common < len(theirs) or agreed):
            log.warning("the %s game %s differs from ply %d: the other end's record is kept",
                        b.kind, b.terms.ref, common + 1)
            host.take_back_to(common, None, b.kind.value)
        if len(theirs) > common:
            last, turn = theirs[-1], self._record.game.turn  # (the game has ``common`` plies)
            # the side of the record's last move (sides alternate from the position now)
            mover = turn if (len(theirs) - 1 - common) % 2 == 0 else other(turn)
            side = mover if b.is_remote(mover) else b.remote_side
            host.catch_up(theirs[common:], side, b.kind.value)
            if b.following is not None and played_moves(self._record.game) == theirs[:-1]:
                b.following.caught_up(last, len(theirs) - 1)  # its move to make
        if b.player is not None and not b.terms.watching:  # (a watcher has nothing to send)
            b.player.started(b.terms, played_moves(self._record.game))

    def _leave(self, host: RemoteHost, link: _Link, b: Binding, event: RemoteLeave) -> None:
        """The other end let the game go: the board is free (the game stays as stored)."""
        log.info("%s game %s let go: %s", b.kind, b.terms.ref, event.reason)
        self.binding = None
        self._outgoing.clear()
        link.status = RemoteStatus("left", event.reason, event.code)
        host.remote_left(b.kind.value)

    def _move(self, host: RemoteHost, b: Binding, event: RemoteMove) -> None:
        game = self._record.game
        ours = played_moves(game)
        if event.ply < len(ours):
            if ours[event.ply] != event.move:
                self._resync(b, f"ply {event.ply + 1} differs")
            return  # a duplicate
        if event.ply > len(ours):
            self._resync(b, f"a gap before ply {event.ply + 1}")
            return
        if game.turn != b.remote_side:
            self._resync(b, f"ply {event.ply + 1} is this board's")
            return
        problem = host.remote_move_to_make(event.move, b.kind.value)
        if problem is not None:
            log.warning("%s move %s refused: %s", b.kind, move_text(game, event.move), problem)

    def _refused(self, host: RemoteHost, b: Binding, event: RemoteRefused) -> None:
        game = self._record.game
        if event.ply != len(game.played) - 1 or game.played[-1].side != b.terms.local_side:
            log.info("%s refused ply %d, which is not this board's last move", b.kind,
                     event.ply + 1)
            return
        host.take_back_to(event.ply, event.reason, b.kind.value)

    def take_record(self, host: RemoteHost) -> bool:
        """The owner takes the other end's disputed record: the game follows it (moves of this
        board's it lacks are taken back). False if there is none."""
        b = self.binding
        if b is None or b.dispute is None:
            return False
        self._reconcile(host, b, b.dispute[0], agreed=True)
        host.remote_changed()
        return True

    def _resync(self, b: Binding, why: str) -> None:
        now = self._monotonic()
        if b.player is None or now - b.resync_at < RESYNC_EVERY or b.dispute is not None:
            return
        b.resync_at = now
        log.info("%s game %s: %s; asking the other end to resync", b.kind, b.terms.ref, why)
        b.player.started(b.terms, played_moves(self._record.game))

    # -- the page --------------------------------------------------------------------------
    def to_json(self) -> RemoteJSON | None:
        b = self.binding
        f = b.following if b else None
        kind = b.kind if b else next(iter(self._links), None)
        if kind is None:
            return None
        link = self._links.get(kind)
        status = link.status if link else None
        return {
            "kind": kind.value,
            "ref": b.terms.ref if b else None,
            "opponent": b.terms.opponent if b else None,
            "local_side": (b.terms.local_side or None) if b else None,
            "rated": b.terms.rated if b else None,
            "state": status.state if status else None,
            "message": status.message if status else None,
            "code": status.code if status else None,
            "chat": [{"by": c.by, "text": c.text, "wall": c.wall}
                     for c in (link.chat if link else ())],
            "watching": b is not None and b.terms.watching,
            "queued": f.queued if f else 0,
            "pending_end": ({"result": f.end_waiting[0], "reason": f.end_waiting[1]}
                            if f and f.end_waiting else None),
            "dispute": ({"from": b.dispute[1] + 1, "ours": len(self._record.game.played),
                         "theirs": len(b.dispute[0])} if b and b.dispute else None),
        }
