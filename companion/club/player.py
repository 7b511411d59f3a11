"""``club:BOARD``: the person at another board of the club plays one side of this board's game.

A :class:`ClubPlayer` is the session's :class:`~companion.session.remote.RemotePlayer` for one
other board (the *peer*). Both boards publish their whole side of the game as one retained
document (:mod:`companion.club.channel`); each reads only the peer's document addressed to it.

- **Agreeing** (before the first move): :meth:`started` with a new game publishes an *offer*
  (variant, house rules, clock, who plays what). Two offers with the same terms agree by
  themselves (the smaller offer id names the game); otherwise the peer's offer waits for this
  board's owner (:meth:`accept`, on the page) unless the config accepts that board's offers
  (``[club] accept``). Agreement hands :class:`RemoteStart` to the session.
- **Playing**: :meth:`send_move` adds this board's move to the document; the peer's next move
  is checked by the rules against this board's game and handed in as :class:`RemoteMove` (the
  session shows it as the move to make, ``"by": "club"``). Takebacks, draw offers and answers,
  resignations and the clock cross over the same way.
- **Restarts**: the document (and what was seen of the peer) is kept in the outbox database
  (:class:`~companion.club.document.PlayDocument`);
  :meth:`started` with the stored moves republishes, and the peer's retained document,
  delivered again on subscription, yields what is missing.

Anything else on the topic is refused with a clear log line and changes nothing: a payload that
is not JSON or too big, a document from another board, an older ``seq`` (a QoS 1 resend or an
out-of-order delivery), a move the rules reject. A flood is cut to :data:`RATE` documents a
second (the newest waits and is read later: it carries the whole game).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.club import topics
from companion.club.channel import PeerDoc, Terms, decisions, parse_peer_doc
from companion.club.document import FloodGuard, PlayDocument, peer_clock
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.rules import Move, MoveError, other
from companion.rules.game import Game
from companion.session.remote import (
    Inbox,
    RemoteEvent,
    RemoteKind,
    RemoteMove,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
)

log = logging.getLogger("companion.club")
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
        self.accepts = accepts
        self.monotonic, self.wall = monotonic, wall
        self._lock = threading.RLock()
        self._inbox: Inbox = lambda event: None
        self.own = PlayDocument(link, outbox, club, me, peer, accepts=accepts, lock=self._lock)
        self._peer: PeerDoc | None = None
        self.proposal: tuple[str, Terms] | None = None  # the peer's offer, waiting for owner
        self.rejected = 0
        self.last_error: str | None = None
        self._flood = FloodGuard(self._read_if_new, self._lock, monotonic, RATE, BURST)
        self._my_clock: dict[str, Any] | None = None
        self._busy = busy  # this board plays an agreed game with another board now
        self._declined: str | None = None  # the peer's offer the owner declined
        self._in = topics.play_topic(club, peer, me)
        self._subscribed = subscribe  # else the owner of the link hands ``received`` the
        link.on_connect(self.own.publish)  # messages of ``play_topic(club, peer, me)``
        if subscribe:
            link.subscribe(self._in, self.received)
        self.phase, self.finished, self.ref = "idle", True, None
        self._mark()

    @property
    def doc(self) -> dict[str, Any]:
        """This board's document for the peer (:mod:`companion.club.channel`)."""
        return self.own.doc

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
                    self._sync(self._peer, resumed=True)
                return
            mine = Terms(terms.settings, terms.time_control,
                         tuple(sorted({self.me: terms.local_side,
                                       self.peer: other(terms.local_side)}.items())))
            self.own.propose(mine, f"{self.me}/{secrets.token_hex(4)}")
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
            game = self.own.game
            if game:
                n = int((game.get("draw") or {}).get("n", 0)) + 1
                game["draw"] = {"n": n, "side": side, "action": action}
                self._changed()

    def send_resign(self, side: str) -> None:
        with self._lock:
            game = self.own.game
            if game:
                game["resign"] = side
                self._changed()

    def send_takeback(self, ply: int) -> None:
        with self._lock:
            game = self.own.game
            if game:
                self.own.truncate(ply)
                game["takebacks"] = int(game.get("takebacks", 0)) + 1
                game["resign"] = None
                self._changed()

    def stopped(self) -> None:
        with self._lock:
            self.own.clear()
            self.proposal = None
            self._changed()

    def close(self) -> None:
        if self._subscribed:
            self.link.unsubscribe(self._in)
        self._flood.cancel()

    # -- for the daemon and the page -------------------------------------------------------
    def observe(self, state: dict[str, Any]) -> None:
        """This board's latest state snapshot: its clock goes to the peer (each board is the
        authority on the time of the side played there), and the end of the game here (a
        flag of this board's side is this board's word)."""
        clock = state.get("clock")
        with self._lock:
            send = None
            if isinstance(clock, dict):
                mine = {"attackers": clock.get("attackers"),
                        "defenders": clock.get("defenders"),
                        "running": clock.get("running"), "wall": clock.get("at") or self.wall()}
                before, self._my_clock = self._my_clock, mine
                if before is None or before.get("running") != mine["running"]:
                    send = mine  # with every move, and when the clocks stop
            was_over = self.own.over()
            if self.own.note_state(state, send):
                self._changed()
                peer = self._peer
                if not was_over and self.own.over() and peer is not None and peer.offer:
                    self._negotiate(peer)  # the peer proposed the next game before this end

    def accept(self) -> bool:
        """The owner accepts the peer's proposal; False when there is none."""
        with self._lock:
            if self.proposal is None:
                return False
            self._agree(*self.proposal)
            return True

    def decline(self) -> bool:
        """The owner declines the peer's proposal (it is not shown again); False when there
        is none."""
        with self._lock:
            if self.proposal is None:
                return False
            self._declined, self.proposal = self.proposal[0], None
            self._mark()
            return True

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"peer": self.peer, "link": self.link.state, "state": self.phase,
                    "proposal": {"id": self.proposal[0], "terms": self.proposal[1].to_json()}
                    if self.proposal else None,
                    "ref": self.ref, "rejected": self.rejected, "error": self.last_error}

    def _mark(self) -> None:
        """Copies the other boards' players read without this player's lock: ``phase``
        ("idle", "offering", "proposal", "playing"), ``finished`` (no agreed game goes on) and
        the agreed game's ``ref``."""
        game = self.own.game
        self.phase = ("playing" if game else "proposal" if self.proposal
                      else "offering" if self.own.offer else "idle")
        self.finished = not game or self.own.over()
        self.ref = game.get("ref") if game else None

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
            last = self._peer.seq if self._peer else int(self.own.seen.get("seq", 0))
            if doc.seq <= last and self._peer is not None:
                return  # a resend or a late delivery: nothing new
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

    def _refuse(self, message: str, code: str = "bad_message") -> None:
        self.rejected += 1
        self.last_error = message
        if self.rejected <= 20 or self.rejected % 100 == 0:
            log.warning("club: %s (ignored; %d so far)", message, self.rejected)
            self._hand(RemoteStatus(self.link.state, message, code,
                                    {"peer": self.peer, "rejected": self.rejected}))

    def _negotiate(self, doc: PeerDoc) -> None:
        game, offer = self.own.game, self.own.offer
        if self.proposal and (doc.offer is None or doc.offer[0] != self.proposal[0]):
            self.proposal = None  # withdrawn by the peer
            self._mark()
        if game and doc.game and doc.game.ref == game.get("ref"):
            self._sync(doc)
            return
        if not game and offer and doc.game and doc.game.ref == offer["id"]:
            mine = self.own.terms(offer["terms"])
            if doc.game.terms == mine:  # the peer accepted our offer
                self._agree(offer["id"], mine)
                self._sync(doc)
            return
        if doc.offer is None or (game and not self.own.over()) or doc.offer[0] == self._declined:
            return
        oid, terms = doc.offer
        busy = self._busy()  # playing another board: the owner decides
        if not busy and offer and self.own.terms(offer["terms"]) == terms:
            self._agree(min(oid, offer["id"]), terms)  # the same terms: agreed by both
        elif not busy and self.accepts and (not offer or not doc.accepts or oid < offer["id"]):
            self._agree(oid, terms)
        elif self.proposal is None or self.proposal[0] != oid:
            self.proposal = (oid, terms)
            self._mark()
            self._hand(RemoteStatus(self.link.state, f"{self.peer} proposes a game",
                                    "proposal", {"peer": self.peer, "id": oid,
                                                 "terms": terms.to_json()}))

    def _agree(self, ref: str, terms: Terms) -> None:
        self.own.agree(ref, terms)
        self.proposal = None
        self._changed()
        log.info("club: game %s with %s agreed (%s)", ref, self.peer,
                 terms.settings.summary())
        self._hand(RemoteStart(RemoteTerms(terms.settings, terms.time_control,
                                           terms.side_of(self.me), self.peer,
                                           f"club:{self.club}/{ref}")))

    def _sync(self, doc: PeerDoc, resumed: bool = False) -> None:
        """The peer's agreed game against this board's: a takeback there, the peer's next
        move (checked by the rules), its draw offer or answer, resignation, flag and clock."""
        peer, game, rules = doc.game, self.own.game, self.own.rules
        if peer is None or game is None or rules is None:
            return
        seen = self.own.seen
        changed = False
        mine: list[str] = game["moves"]
        common = 0
        while (common < min(len(mine), len(peer.moves))
               and mine[common] == peer.moves[common]):
            common += 1
        peer_side = peer.terms.side_of(self.peer)
        taken = peer.takebacks > int(seen.get("takebacks", 0))
        # after a restart: a move of the peer's side that the peer no longer has was taken
        # back there (a board never forgets its own stored moves otherwise)
        lost = resumed and any(_side_at(rules, i) == peer_side
                               for i in range(common, len(mine)))
        if (taken or lost) and common < len(mine):
            self.own.truncate(common)
            self._hand(RemoteTakeback(common))
            mine, changed = game["moves"], True
            rules = self.own.rules
            assert rules is not None
        elif common < min(len(mine), len(peer.moves)):
            self._refuse(f"the game at {self.peer} differs from this board's at move "
                         f"{common + 1} ({peer.moves[common]} there, {mine[common]} here)",
                         "diverged")
            return
        seen["takebacks"] = peer.takebacks
        n = len(mine)
        if len(peer.moves) > n and common >= n:
            changed = self._next_move(rules, peer.moves[n], n, peer_side) or changed
        for event in decisions(peer, peer_side, seen):
            self._hand(event)
        if peer.clock is not None and peer.clock.get("wall") != seen.get("clock"):
            seen["clock"] = peer.clock.get("wall")
            self._hand(peer_clock(peer_side, peer.clock, self._my_clock, self.wall(),
                                  self.monotonic()))
        if changed:
            self._changed()
        else:
            self.own.save()

    def _next_move(self, rules: Game, text: str, ply: int, peer_side: str) -> bool:
        """The peer's move of ply ``ply``, checked by the rules: handed in as the move to
        make (True), or refused."""
        if _side_at(rules, ply) != peer_side:
            self._refuse(f"{self.peer} sent a move for the {rules.turn}, who play at this "
                         "board", "forged_move")
            return False
        try:
            played = rules.play_text(text)
        except (MoveError, ValueError) as exc:
            self._refuse(f"{self.peer} sent an illegal move {text!r}: {exc}", "illegal_move")
            return False
        game = self.own.game
        assert game is not None
        game["moves"].append(played.text)
        self._hand(RemoteMove(ply, played.move))
        return True

    def _hand(self, event: RemoteEvent) -> None:
        try:
            self._inbox(event)
        except Exception:  # the session's inbox only enqueues; never let it stop the link
            log.exception("club: the session's inbox failed")


def _side_at(game: Game, ply: int) -> str:
    return game.start_turn if ply % 2 == 0 else other(game.start_turn)
