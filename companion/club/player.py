"""``club:BOARD``: the person at another board of the club plays one side of this board's game.

A :class:`ClubPlayer` is the session's :class:`~companion.session.remote.RemotePlayer` for one
other board (the *peer*). Both boards publish their whole side of the game as one retained
document (:mod:`companion.club.channel`); each reads only the peer's document addressed to it.
The player is made of parts that own their state, all used holding the player's lock:

- :class:`~companion.club.document.PlayDocument`: this board's document (kept in the outbox
  database) and what was seen of the peer's; the ``send_*`` calls change it;
- :class:`~companion.club.agreement.Agreement`: agreeing on a game before its first move
  (:meth:`started` with a new game offers one; :meth:`accept`, :meth:`decline`);
- :class:`~companion.club.following.GameFollower`: the peer's moves, takebacks, draw offers,
  resignations and clock, checked against this board's game and handed to the session.

**Restarts**: :meth:`started` with the stored moves republishes this board's document, and the
peer's retained document, delivered again on subscription, yields what is missing.

Anything else on the topic is refused with a clear log line and changes nothing: a payload that
is not JSON or too big, a document from another board, an older ``seq`` (a QoS 1 resend or an
out-of-order delivery), a move the rules reject. A flood is cut to :data:`RATE` documents a
second (the newest waits and is read later: it carries the whole game).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypedDict

from companion.club import topics
from companion.club.agreement import Agreement
from companion.club.channel import OfferJSON, PeerDoc, PlayJSON, Terms, parse_peer_doc
from companion.club.document import FloodGuard, PlayDocument
from companion.club.following import GameFollower
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.club.topics import StateJSON
from companion.rules import Move
from companion.session.remote import Inbox, RemoteEvent, RemoteKind, RemoteStatus, RemoteTerms

log = logging.getLogger("companion.club")


class PeerStatus(TypedDict):
    """The conversation with one other board, for the page: the board, the link's state,
    the phase (idle, offering, proposal, playing), its proposal waiting for the owner, the
    agreed game's ref, the documents refused and the last error."""

    peer: str
    link: str
    state: str
    proposal: OfferJSON | None
    ref: str | None
    rejected: int
    error: str | None
RATE, BURST = 20.0, 40.0


class ClubPlayer:
    """The other board ``peer`` of club ``club`` as a player of this board (``me``)."""

    def __init__(self, link: ClubLink, outbox: Outbox, club: str, me: str, peer: str, *,
                 accepts: bool = False, monotonic: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, subscribe: bool = True,
                 busy: Callable[[], bool] = lambda: False) -> None:
        if peer == me:
            raise ValueError(f"club:{peer} is this board itself")
        self.link = link
        self.club, self.me, self.peer = club, me, peer
        self._lock = threading.RLock()
        self._inbox: Inbox = lambda event: None
        self.own = PlayDocument(link, outbox, club, me, peer, accepts=accepts, lock=self._lock)
        self.agreement = Agreement(self.own, club, me, peer, accepts=accepts, busy=busy,
                                   link_state=lambda: link.state, hand=self._hand,
                                   changed=self._changed, mark=self._mark)
        self.follower = GameFollower(self.own, peer, hand=self._hand, refuse=self._refuse,
                                     changed=self._changed, wall=wall, monotonic=monotonic)
        self._peer: PeerDoc | None = None
        self.rejected = 0
        self.last_error: str | None = None
        self._flood = FloodGuard(self._read_if_new, self._lock, monotonic, RATE, BURST)
        self._in = topics.play_topic(club, peer, me)
        self._subscribed = subscribe  # else the owner of the link hands ``received`` the
        link.on_connect(self.own.publish)  # messages of ``play_topic(club, peer, me)``
        if subscribe:
            link.subscribe(self._in, self.received)
        self.phase, self.finished = "idle", True
        self.ref: str | None = None
        self._mark()

    @property
    def doc(self) -> PlayJSON:
        """This board's document for the peer (:mod:`companion.club.channel`)."""
        return self.own.doc

    @property
    def proposal(self) -> tuple[str, Terms] | None:
        """The peer's offer, waiting for this board's owner."""
        return self.agreement.proposal

    # -- RemotePlayer ----------------------------------------------------------------------
    @property
    def kind(self) -> RemoteKind:
        return RemoteKind.CLUB

    @property
    def takebacks(self) -> bool:
        return True

    def connect(self, inbox: Inbox) -> None:
        self._inbox = inbox

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        with self._lock:
            game = self.own.game
            ref = terms.ref.removeprefix(f"club:{self.club}/")
            if game and ref and game.get("ref") == ref:  # the agreed game goes on
                self.own.resume(moves)
                self._changed()
                if self._peer is not None:
                    self.follower.sync(self._peer, resumed=True)
                return
            self.agreement.offer(terms)
            self._changed()
            if self._peer is not None:
                self._negotiate(self._peer)

    def send_move(self, ply: int, move: Move) -> None:
        with self._lock:
            peer_moves = self._peer.game.moves if self._peer and self._peer.game else ()
            if self.own.add_move(ply, move, peer_moves):
                self._changed()

    def send_draw(self, side: str, action: str) -> None:
        with self._lock:
            if self.own.draw(side, action):
                self._changed()

    def send_resign(self, side: str) -> None:
        with self._lock:
            if self.own.resign(side):
                self._changed()

    def send_takeback(self, ply: int) -> None:
        with self._lock:
            if self.own.take_back(ply):
                self._changed()

    def stopped(self) -> None:
        with self._lock:
            self.own.clear()
            self.agreement.forget()
            self._changed()

    def close(self) -> None:
        if self._subscribed:
            self.link.unsubscribe(self._in)
        self._flood.cancel()

    # -- for the daemon and the page -------------------------------------------------------
    def observe(self, state: StateJSON) -> None:
        """This board's latest state snapshot: its clock goes to the peer, and the end of the
        game here (a flag of this board's side is this board's word)."""
        with self._lock:
            send = self.follower.note_clock(state.get("clock"))
            was_over = self.own.over()
            if self.own.note_state(state, send):
                self._changed()
                peer = self._peer
                if not was_over and self.own.over() and peer is not None and peer.offer:
                    self._negotiate(peer)  # the peer proposed the next game before this end

    def accept(self) -> bool:
        """The owner accepts the peer's proposal; False when there is none."""
        with self._lock:
            return self.agreement.accept()

    def decline(self) -> bool:
        """The owner declines the peer's proposal (it is not shown again); False when there
        is none."""
        with self._lock:
            return self.agreement.decline()

    def status(self) -> PeerStatus:
        with self._lock:
            proposal = self.agreement.proposal
            return {"peer": self.peer, "link": self.link.state, "state": self.phase,
                    "proposal": {"id": proposal[0], "terms": proposal[1].to_json()}
                    if proposal else None,
                    "ref": self.ref, "rejected": self.rejected, "error": self.last_error}

    def _mark(self) -> None:
        """Copies the other boards' players read without this player's lock: ``phase``
        ("idle", "offering", "proposal", "playing"), ``finished`` (no agreed game goes on) and
        the agreed game's ``ref``."""
        game = self.own.game
        self.phase = ("playing" if game else "proposal" if self.agreement.proposal
                      else "offering" if self.own.offer else "idle")
        self.finished = not game or self.own.over()
        self.ref = game["ref"] if game else None

    def _changed(self) -> None:
        """This board's document changed: published (and the copies marked)."""
        self._mark()
        self.own.publish_change()

    # -- the peer's document (network thread) ----------------------------------------------
    def received(self, topic: str, payload: bytes) -> None:
        """A message on the peer's topic to this board (when the link's owner subscribes)."""
        if not payload:
            return  # a cleared retained message
        try:
            doc = parse_peer_doc(topics.decode(payload), self.peer, self.me)
        except topics.PayloadError as exc:
            with self._lock:
                self._refuse(f"a bad message from {self.peer}: {exc}")
            return
        with self._lock:
            last = self._peer.seq if self._peer else self.own.seen.get("seq", 0)
            if doc.seq < last or (doc.seq == last and self._peer is not None):
                # a resend, a late delivery, an old document put back: nothing new (after a
                # restart the one read last is read again, to find the game again)
                return
            self._flood.offer(doc, lambda a, b: bool(a.seq > b.seq))

    def _read_if_new(self, doc: PeerDoc) -> None:
        if self._peer is None or doc.seq > self._peer.seq:
            self._read(doc)

    def _read(self, doc: PeerDoc) -> None:
        refused = self.rejected
        previous, self._peer = self._peer, doc
        self._negotiate(doc)
        if self.rejected != refused:  # refused by the rules: later documents still count
            self._peer = previous
            return
        self.own.seen["seq"] = doc.seq

    def _negotiate(self, doc: PeerDoc) -> None:
        """The peer's document: agreeing on a game, then following the agreed one."""
        if self.agreement.read(doc):
            self.follower.sync(doc)

    def _refuse(self, message: str, code: str = "bad_message") -> None:
        self.rejected += 1
        self.last_error = message
        if self.rejected <= 20 or self.rejected % 100 == 0:
            log.warning("club: %s (ignored; %d so far)", message, self.rejected)
            self._hand(RemoteStatus(self.link.state, message, code,
                                    {"peer": self.peer, "rejected": self.rejected}))

    def _hand(self, event: RemoteEvent) -> None:
        try:
            self._inbox(event)
        except Exception:  # the session's inbox only enqueues; never let it stop the link
            log.exception("club: the session's inbox failed")
