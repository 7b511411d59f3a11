"""The other boards of the club, as the session's one club player.

The session plays with at most one player of each kind (``club``); a board of a club may play
any other board. :class:`ClubOpponents` is that one player: a
:class:`~companion.club.player.ClubPlayer` per other board that has said something to this
board (its document on ``tafl/{club}/{board}/play/{me}``) or that this board plays, and the
*active* one, whose game is the session's:

- :meth:`started` picks the board by the terms' opponent (``club:table-2`` proposes to
  ``table-2``; a restored game names the board it was agreed with);
- the boards' moves, clocks, draws, resignations and takebacks reach the session only from the
  active board; another board's proposal is shown (``remote.code`` "proposal") and waits for
  the owner (:meth:`accept`), and its agreement makes that board the active one;
- ``send_*`` and :meth:`observe` go to the active board only.

It also keeps which boards of the club are on the broker (their retained
``tafl/{club}/{board}/status``) for the page's list, and sums the link's state, proposals and
the active board's state up for the page as one :class:`RemoteStatus`.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import TypedDict, assert_never

from companion.club import topics
from companion.club.channel import OfferJSON
from companion.club.config import ClubConfigError, check_name
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.club.player import ClubPlayer, PeerStatus
from companion.club.topics import StateJSON
from companion.rules import Move
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
    RemoteRefused,
    RemoteResign,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
)

log = logging.getLogger("companion.club")
MAX_PEERS = 64      # boards this board talks with (a hostile client cannot make more)
MAX_BOARDS = 256    # boards listed as seen on the broker
WAITING = 256       # events kept until the session connects


class BoardSeen(TypedDict):
    """A board seen on the broker and whether its status says it is online."""

    board: str
    online: bool


class Proposal(OfferJSON):
    """A proposal waiting for the owner, with the board that made it."""

    board: str


class OpponentsStatus(TypedDict):
    """For the page: the boards seen, the active board, every board's conversation and the
    proposals waiting."""

    boards: list[BoardSeen]
    active: str | None
    players: list[PeerStatus]
    proposals: list[Proposal]


class ClubOpponents:
    """Every other board of club ``club`` as one player of board ``me`` (module docstring)."""

    def __init__(self, link: ClubLink, outbox: Outbox, club: str, me: str, *,
                 accept: tuple[str, ...] = ()) -> None:
        self.link, self.outbox, self.club, self.me = link, outbox, club, me
        self.accept_from = frozenset(accept)
        self._lock = threading.RLock()
        self._inbox: Inbox | None = None
        self._waiting: deque[RemoteEvent] = deque(maxlen=WAITING)
        self.peers: dict[str, ClubPlayer] = {}
        self.active: str | None = None
        self.boards: dict[str, bool] = {}  # board -> online, as its status topic says
        self._notice: RemoteStatus | None = None  # the active board's last refusal
        self._said: RemoteStatus | None = None
        self._too_many = 0
        self._play = f"{topics.ROOT}/{club}/+/{topics.PLAY}/{me}"
        self._status = f"{topics.ROOT}/{club}/+/{topics.STATUS}"
        # the status first: a board's retained documents are checked against it (seal.py)
        link.subscribe(self._status, self._board_status)
        link.subscribe(self._play, self._received)

    # -- RemotePlayer ----------------------------------------------------------------------
    @property
    def kind(self) -> RemoteKind:
        return RemoteKind.CLUB

    @property
    def takebacks(self) -> bool:
        return True

    def connect(self, inbox: Inbox) -> None:
        with self._lock:
            self._inbox = inbox
            waiting = list(self._waiting)
            self._waiting.clear()
            self._said = None
        for event in waiting:
            self._hand(event)
        self.refresh()

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        peer = self._peer_for(terms)
        if peer is None:
            log.warning("club: the game's opponent %r is no board of club %s", terms.opponent,
                        self.club)
            self._hand(RemoteStatus(self.link.state, f"{terms.opponent!r} is no other board "
                                    f"of club {self.club}", "unknown_board"))
            return
        with self._lock:
            old, self.active = self.active, peer
            self._notice = None
        if old is not None and old != peer:
            self.peers[old].stopped()  # its proposal or finished game is over for this board
        self.player(peer).started(terms, moves)
        self.refresh()

    def send_move(self, ply: int, move: Move) -> None:
        player = self._active()
        if player is not None:
            player.send_move(ply, move)

    def send_draw(self, side: str, action: str) -> None:
        player = self._active()
        if player is not None:
            player.send_draw(side, action)

    def send_resign(self, side: str) -> None:
        player = self._active()
        if player is not None:
            player.send_resign(side)

    def send_takeback(self, ply: int) -> None:
        player = self._active()
        if player is not None:
            player.send_takeback(ply)

    def stopped(self) -> None:
        with self._lock:
            player, self.active = self._active(), None
            self._notice = None
        if player is not None:
            player.stopped()
        self.refresh()

    def close(self) -> None:
        self.link.unsubscribe(self._play)
        self.link.unsubscribe(self._status)
        for player in list(self.peers.values()):
            player.close()

    # -- the boards ------------------------------------------------------------------------
    def player(self, peer: str) -> ClubPlayer:
        """The player for board ``peer`` (made on first use); ValueError for a bad name, this
        board itself, or more boards than :data:`MAX_PEERS`."""
        try:
            check_name(peer, f"club:{peer}")
        except ClubConfigError as exc:
            raise ValueError(str(exc)) from None
        if peer == self.me:
            raise ValueError(f"club:{peer} is this board itself")
        with self._lock:
            player = self.peers.get(peer)
            if player is None:
                if len(self.peers) >= MAX_PEERS:
                    raise ValueError(f"this board talks with {MAX_PEERS} boards already")
                player = ClubPlayer(self.link, self.outbox, self.club, self.me, peer,
                                    accepts=peer in self.accept_from, subscribe=False,
                                    busy=lambda: self.busy(peer))
                player.connect(lambda event: self._route(peer, event))
                self.peers[peer] = player
            return player

    def busy(self, peer: str | None = None) -> bool:
        """Whether this board plays an agreed game with another board than ``peer`` that has
        not ended (then no other board's proposal is agreed by itself)."""
        with self._lock:
            active = self.active
            player = self.peers.get(active) if active else None
        return player is not None and active != peer and not player.finished  # (no lock)

    def accept(self, peer: str) -> bool:
        """The owner accepts ``peer``'s proposal (its agreement makes it the active board)."""
        player = self.peers.get(peer)
        done = player is not None and player.accept()
        self.refresh()
        return done

    def decline(self, peer: str) -> bool:
        player = self.peers.get(peer)
        done = player is not None and player.decline()
        self.refresh()
        return done

    def observe(self, state: StateJSON) -> None:
        """This board's state snapshot (the publisher's thread): for the active board."""
        player = self._active()
        if player is not None:
            player.observe(state)

    def status(self) -> OpponentsStatus:
        """For the page: the boards seen, the active board, every board's conversation."""
        with self._lock:
            boards = dict(self.boards)
            players = list(self.peers.values())
            active = self.active
        statuses = [p.status() for p in players]
        return {"boards": [{"board": b, "online": on} for b, on in sorted(boards.items())],
                "active": active,
                "players": statuses,
                "proposals": [{**proposal, "board": s["peer"]} for s in statuses
                              if (proposal := s["proposal"]) is not None]}

    # -- from the broker (network thread) --------------------------------------------------
    def _received(self, topic: str, payload: bytes) -> None:
        parts = topics.split(topic, self.club)
        if parts is None or parts[1:] != (topics.PLAY, (self.me,)):
            return
        peer = parts[0]
        if peer not in self.peers and not payload:
            return  # a cleared document of a board never talked with
        try:
            player = self.player(peer)
        except ValueError as exc:
            self._too_many += 1
            if self._too_many <= 5 or self._too_many % 100 == 0:
                log.warning("club: a message on %s ignored: %s", topic[:120], exc)
            return
        player.received(topic, payload)
        self.refresh()

    def _board_status(self, topic: str, payload: bytes) -> None:
        parts = topics.split(topic, self.club)
        if parts is None or parts[1:] != (topics.STATUS, ()) or parts[0] == self.me:
            return
        try:
            board = check_name(parts[0], "board")
            online = topics.decode(payload).get("online") is True if payload else None
        except (ClubConfigError, topics.PayloadError):
            return
        with self._lock:
            if online is None:
                self.boards.pop(board, None)
            elif board in self.boards or len(self.boards) < MAX_BOARDS:
                self.boards[board] = online
        self.refresh()

    def link_changed(self, state: str, error: str | None) -> None:
        """The broker link's state changed (the link's ``on_status``)."""
        self.refresh()

    # -- to the session --------------------------------------------------------------------
    def _route(self, peer: str, event: RemoteEvent) -> None:
        """An event of board ``peer``'s player: to the session if it is the active board's
        (or an agreement, which makes it so)."""
        # (called holding ``peer``'s player's lock: no other player's lock is taken here)
        stale = None
        forward: RemoteEvent | None = event
        with self._lock:
            match event:
                case RemoteStart():
                    if self.active is not None and self.active != peer:
                        stale = self.peers.get(self.active)
                    self.active = peer
                    self._notice = None
                case RemoteStatus():
                    if peer == self.active and event.code not in (None, "proposal"):
                        self._notice = event
                    forward = None  # summed up by refresh()
                case (RemoteMove() | RemoteRefused() | RemoteClock() | RemoteDraw()
                      | RemoteResign() | RemoteTakeback() | RemoteEnd() | RemoteLeave()
                      | RemoteChat()):
                    if peer != self.active:
                        log.info("club: %s from %s, whose game is not this board's: ignored",
                                 type(event).__name__, peer)
                        return
                case _:
                    assert_never(event)
        if stale is not None:  # its offer withdrawn, on a thread of its own (its lock)
            threading.Thread(target=stale.stopped, name="club-withdraw", daemon=True).start()
        if forward is not None:
            self._hand(forward)
        self.refresh()

    def refresh(self) -> None:
        """Hand the session the club's state for the page when it changed."""
        status = self._summary()
        with self._lock:
            if status == self._said:
                return
            self._said = status
        self._hand(status)

    def _summary(self) -> RemoteStatus:
        link = self.link.state
        with self._lock:
            active = self.active
            player = self.peers.get(active) if active else None
            proposals = [p.peer for p in self.peers.values() if p.proposal is not None]
            online = self.boards.get(active) if active else None
            notice = self._notice
        details: dict[str, object] = {"board": self.me, "club": self.club, "peer": active,
                                      "proposals": proposals, "peer_online": online}
        if link != "connected":
            message = self.link.error or f"connecting to {self.link.broker.url}"
            return RemoteStatus(link, message, "link_down", details)
        if proposals:
            return RemoteStatus(link, f"{proposals[0]} proposes a game", "proposal", details)
        if player is not None and player.phase == "offering":
            return RemoteStatus(link, f"waiting for {active} to agree", "offering", details)
        if active is not None and online is False:
            return RemoteStatus(link, f"{active} is offline", "peer_offline", details)
        if notice is not None:
            return RemoteStatus(link, notice.message, notice.code, details)
        return RemoteStatus(link, None, None, details)

    def _active(self) -> ClubPlayer | None:
        with self._lock:
            return self.peers.get(self.active) if self.active else None

    def _peer_for(self, terms: RemoteTerms) -> str | None:
        """The board a game's terms name: its opponent, else the board whose agreed game has
        the terms' ref."""
        try:
            self.player(terms.opponent)
            return terms.opponent
        except ValueError:
            pass
        ref = terms.ref.removeprefix(f"club:{self.club}/")
        with self._lock:
            players = list(self.peers.items())
        return next((peer for peer, player in players if ref and player.ref == ref), None)

    def _hand(self, event: RemoteEvent) -> None:
        with self._lock:
            inbox = self._inbox
            if inbox is None:
                self._waiting.append(event)
                return
        try:
            inbox(event)
        except Exception:  # the session's inbox only enqueues; never let it stop the link
            log.exception("club: the session's inbox failed")
