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
- **Restarts**: the document (and what was seen of the peer) is kept in the outbox database;
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
from companion.club.channel import PeerDoc, Terms, parse_peer_doc, terms_from_json
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.rules import Move, MoveError, other
from companion.rules.game import Game
from companion.session.remote import (
    Inbox,
    RemoteClock,
    RemoteDraw,
    RemoteEnd,
    RemoteEvent,
    RemoteKind,
    RemoteMove,
    RemoteResign,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
)

log = logging.getLogger("companion.club")
RATE, BURST = 20.0, 40.0
MAX_LAG_S = 5.0


class ClubPlayer:
    """The other board ``peer`` of club ``club`` as a player of this board (``me``)."""

    def __init__(self, link: ClubLink, outbox: Outbox, club: str, me: str, peer: str, *,
                 accepts: bool = False, monotonic: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, subscribe: bool = True,
                 busy: Callable[[], bool] = lambda: False) -> None:
        if peer == me:
            raise ValueError(f"club:{peer} is this board itself")
        self.link, self.outbox = link, outbox
        self.club, self.me, self.peer = club, me, peer
        self.accepts = accepts
        self.monotonic, self.wall = monotonic, wall
        self._lock = threading.RLock()
        self._inbox: Inbox = lambda event: None
        self._key = f"play:{peer}"
        doc = outbox.load(self._key) or {}
        self.doc: dict[str, Any] = {"seq": int(doc.get("seq", 0)), "offer": doc.get("offer"),
                                    "game": doc.get("game")}
        self.seen: dict[str, Any] = dict(doc.get("seen") or {})
        self._game: Game | None = None
        self._peer: PeerDoc | None = None
        self.proposal: tuple[str, Terms] | None = None  # the peer's offer, waiting for owner
        self.rejected = 0
        self.last_error: str | None = None
        self._tokens, self._refill = BURST, monotonic()
        self._deferred: PeerDoc | None = None
        self._timer: threading.Timer | None = None
        self._my_clock: dict[str, Any] | None = None
        self._busy = busy  # this board plays an agreed game with another board now
        self._declined: str | None = None  # the peer's offer the owner declined
        self._in = topics.play_topic(club, peer, me)
        self._out = topics.play_topic(club, me, peer)
        self._subscribed = subscribe  # else the owner of the link hands ``received`` the
        link.on_connect(self._publish)  # messages of ``play_topic(club, peer, me)``
        if subscribe:
            link.subscribe(self._in, self._received)
        self.phase, self.finished, self.ref = "idle", True, None
        self._mark()

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
            game = self.doc.get("game")
            ref = terms.ref.removeprefix(f"club:{self.club}/")
            if game and ref and game.get("ref") == ref:
                self._game = self._replay(game["terms"], ())
                texts = [self._game.play(m).text for m in moves]
                game["moves"] = texts
                self._save_publish()
                if self._peer is not None:
                    self._sync(self._peer, resumed=True)
                return
            own = Terms(terms.settings, terms.time_control,
                        tuple(sorted({self.me: terms.local_side,
                                      self.peer: other(terms.local_side)}.items())))
            self.doc["offer"] = {"id": f"{self.me}/{secrets.token_hex(4)}",
                                 "terms": own.to_json()}
            self.doc["game"] = None
            self._game = None
            self._save_publish()
            if self._peer is not None:
                self._negotiate(self._peer)

    def send_move(self, ply: int, move: Move) -> None:
        with self._lock:
            game, rules_game = self.doc.get("game"), self._game
            if not game or rules_game is None:
                log.warning("club: a move for %s without an agreed game (ignored)", self.peer)
                return
            moves: list[str] = game["moves"]
            if ply < len(moves):
                self._truncate(ply)
            elif ply > len(moves) and self._peer and self._peer.game:
                for text in self._peer.game.moves[len(moves):ply]:  # the peer's, made here
                    moves.append(rules_game.play_text(text).text)
            if ply != len(moves):
                log.warning("club: move of ply %d but %d moves known (ignored)", ply,
                            len(moves))
                return
            moves.append(rules_game.play(move).text)
            self._save_publish()

    def send_draw(self, side: str, action: str) -> None:
        with self._lock:
            game = self.doc.get("game")
            if game:
                n = int((game.get("draw") or {}).get("n", 0)) + 1
                game["draw"] = {"n": n, "side": side, "action": action}
                self._save_publish()

    def send_resign(self, side: str) -> None:
        with self._lock:
            game = self.doc.get("game")
            if game:
                game["resign"] = side
                self._save_publish()

    def send_takeback(self, ply: int) -> None:
        with self._lock:
            game = self.doc.get("game")
            if game:
                self._truncate(ply)
                game["takebacks"] = int(game.get("takebacks", 0)) + 1
                game["resign"] = None
                self._save_publish()

    def stopped(self) -> None:
        with self._lock:
            self.doc["offer"], self.doc["game"], self._game = None, None, None
            self.proposal = None
            self._save_publish()

    def close(self) -> None:
        if self._subscribed:
            self.link.unsubscribe(self._in)
        if self._timer is not None:
            self._timer.cancel()

    # -- for the daemon and the page -------------------------------------------------------
    def observe(self, state: dict[str, Any]) -> None:
        """This board's latest state snapshot: its clock goes to the peer (each board is the
        authority on the time of the side played there), and the end of the game here (a
        flag of this board's side is this board's word)."""
        clock = state.get("clock")
        with self._lock:
            game = self.doc.get("game")
            changed = False
            if isinstance(clock, dict):
                mine = {"attackers": clock.get("attackers"),
                        "defenders": clock.get("defenders"),
                        "running": clock.get("running"), "wall": clock.get("at") or self.wall()}
                before, self._my_clock = self._my_clock, mine
                if game and (before is None or before.get("running") != mine["running"]):
                    game["clock"] = mine
                    changed = True
            remote, result = state.get("remote"), state.get("result")
            if (game and not game.get("ended") and isinstance(remote, dict)
                    and remote.get("ref") == f"club:{self.club}/{game['ref']}"
                    and result in ("attackers", "defenders", "draw")):
                game["ended"] = {"result": result, "reason": state.get("reason")}
                mine_side = terms_from_json(game["terms"], (self.me, self.peer)).side_of(self.me)
                if state.get("reason") == "time" and result == other(mine_side):
                    game["flag"] = mine_side
                changed = True
            if changed:
                self._save_publish()

    def accept(self) -> bool:
        """The owner accepts the peer's proposal; False when there is none."""
        with self._lock:
            if self.proposal is None:
                return False
            self._adopt(*self.proposal)
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

    def _mark(self) -> None:
        """Copies the other boards' players read without this player's lock: ``phase``
        ("idle", "offering", "proposal", "playing"), ``finished`` (no agreed game goes on) and
        the agreed game's ``ref``."""
        game = self.doc.get("game")
        self.phase = ("playing" if game else "proposal" if self.proposal
                      else "offering" if self.doc.get("offer") else "idle")
        self.finished = not game or self._over()
        self.ref = game.get("ref") if game else None

    def status(self) -> dict[str, Any]:
        with self._lock:
            game = self.doc.get("game")
            return {"peer": self.peer, "link": self.link.state,
                    "state": self.phase,
                    "proposal": {"id": self.proposal[0], "terms": self.proposal[1].to_json()}
                    if self.proposal else None,
                    "ref": game.get("ref") if game else None,
                    "rejected": self.rejected, "error": self.last_error}

    # -- this board's document -------------------------------------------------------------
    def _save_publish(self) -> None:
        self._mark()
        self.doc["seq"] = int(self.doc["seq"]) + 1
        self.outbox.save(self._key, {**self.doc, "seen": self.seen})
        self._publish()

    def _publish(self) -> None:
        with self._lock:
            if not self.doc["seq"]:
                return  # nothing said yet
            doc = {"v": 1, "from": self.me, "to": self.peer, "accepts": self.accepts,
                   **self.doc}
        self.link.publish(self._out, topics.encode(doc), retain=True)

    def _truncate(self, ply: int) -> None:
        game = self.doc["game"]
        del game["moves"][ply:]
        self._game = self._replay(game["terms"], tuple(game["moves"]))

    def _replay(self, terms: dict[str, Any], moves: tuple[str, ...]) -> Game:
        parsed = terms_from_json(terms, (self.me, self.peer))
        game = Game(parsed.settings.rules())
        for text in moves:
            game.play_text(text)
        return game

    # -- the peer's document (network thread) ----------------------------------------------
    def received(self, topic: str, payload: bytes) -> None:
        """A message on the peer's topic to this board (when the link's owner subscribes)."""
        self._received(topic, payload)

    def _received(self, topic: str, payload: bytes) -> None:
        if not payload:
            return  # a cleared retained message
        try:
            doc = parse_peer_doc(topics.decode(payload), self.peer, self.me)
        except topics.PayloadError as exc:
            with self._lock:
                self._refuse(f"a bad message from {self.peer}: {exc}")
            return
        now = self.monotonic()
        with self._lock:
            last = self._peer.seq if self._peer else int(self.seen.get("seq", 0))
            if doc.seq <= last and self._peer is not None:
                return  # a resend or a late delivery: nothing new
            self._tokens = min(BURST, self._tokens + (now - self._refill) * RATE)
            self._refill = now
            if self._tokens < 1:  # a flood: the newest document waits (it has everything)
                if self._deferred is None or doc.seq > self._deferred.seq:
                    self._deferred = doc
                if self._timer is None:
                    self._timer = threading.Timer(1.0, self._read_deferred)
                    self._timer.daemon = True
                    self._timer.start()
                return
            self._tokens -= 1
            self._read(doc)

    def _read_deferred(self) -> None:
        with self._lock:
            self._timer = None
            doc, self._deferred = self._deferred, None
            if doc is not None and (self._peer is None or doc.seq > self._peer.seq):
                self._read(doc)

    def _read(self, doc: PeerDoc) -> None:
        refused = self.rejected
        previous, self._peer = self._peer, doc
        self._negotiate(doc)
        if self.rejected != refused:  # refused by the rules: later documents still count
            self._peer = previous
            return
        self.seen["seq"] = doc.seq

    def _refuse(self, message: str, code: str = "bad_message") -> None:
        self.rejected += 1
        self.last_error = message
        if self.rejected <= 20 or self.rejected % 100 == 0:
            log.warning("club: %s (ignored; %d so far)", message, self.rejected)
            self._hand(RemoteStatus(self.link.state, message, code,
                                    {"peer": self.peer, "rejected": self.rejected}))

    def _negotiate(self, doc: PeerDoc) -> None:
        game, offer = self.doc.get("game"), self.doc.get("offer")
        if self.proposal and (doc.offer is None or doc.offer[0] != self.proposal[0]):
            self.proposal = None  # withdrawn by the peer
            self._mark()
        if game and doc.game and doc.game.ref == game.get("ref"):
            self._sync(doc)
            return
        if not game and offer and doc.game and doc.game.ref == offer["id"]:
            mine = terms_from_json(offer["terms"], (self.me, self.peer))
            if doc.game.terms == mine:  # the peer accepted our offer
                self._agree(offer["id"], mine)
                self._sync(doc)
            return
        if doc.offer is None or (game and not self._over()) or doc.offer[0] == self._declined:
            return
        oid, terms = doc.offer
        busy = self._busy()  # playing another board: the owner decides
        if not busy and offer and terms_from_json(offer["terms"], (self.me, self.peer)) == terms:
            self._agree(min(oid, offer["id"]), terms)  # the same terms: agreed by both
        elif not busy and self.accepts and (not offer or not doc.accepts or oid < offer["id"]):
            self._adopt(oid, terms)
        elif self.proposal is None or self.proposal[0] != oid:
            self.proposal = (oid, terms)
            self._mark()
            self._hand(RemoteStatus(self.link.state, f"{self.peer} proposes a game",
                                    "proposal", {"peer": self.peer, "id": oid,
                                                 "terms": terms.to_json()}))

    def _adopt(self, oid: str, terms: Terms) -> None:
        self._agree(oid, terms)

    def _agree(self, ref: str, terms: Terms) -> None:
        self.doc["offer"] = None
        self.doc["game"] = {"ref": ref, "terms": terms.to_json(), "moves": [], "takebacks": 0,
                            "draw": None, "resign": None, "clock": None}
        self.seen.update({"ref": ref, "takebacks": 0, "draw": 0, "resign": None})
        self.proposal = None
        self._game = Game(terms.settings.rules())
        self._save_publish()
        log.info("club: game %s with %s agreed (%s)", ref, self.peer,
                 terms.settings.summary())
        self._hand(RemoteStart(self._remote_terms(ref, terms)))

    def _remote_terms(self, ref: str, terms: Terms) -> RemoteTerms:
        return RemoteTerms(terms.settings, terms.time_control, terms.side_of(self.me),
                           self.peer, f"club:{self.club}/{ref}")

    def _over(self) -> bool:
        game = self.doc.get("game")
        return bool(game and (game.get("resign") or game.get("ended") or self._game is None
                              or self._game.is_over()))

    def _sync(self, doc: PeerDoc, resumed: bool = False) -> None:
        peer, game, rules_game = doc.game, self.doc["game"], self._game
        if peer is None or game is None or rules_game is None:
            return
        changed = False
        mine: list[str] = game["moves"]
        common = 0
        while (common < min(len(mine), len(peer.moves))
               and mine[common] == peer.moves[common]):
            common += 1
        peer_side = peer.terms.side_of(self.peer)
        taken = peer.takebacks > int(self.seen.get("takebacks", 0))
        # after a restart: a move of the peer's side that the peer no longer has was taken
        # back there (a board never forgets its own stored moves otherwise)
        lost = resumed and any(_side_at(rules_game, i) == peer_side
                               for i in range(common, len(mine)))
        if (taken or lost) and common < len(mine):
            self._truncate(common)
            self._hand(RemoteTakeback(common))
            mine, rules_game, changed = game["moves"], self._game, True
        elif common < min(len(mine), len(peer.moves)):
            self._refuse(f"the game at {self.peer} differs from this board's at move "
                         f"{common + 1} ({peer.moves[common]} there, {mine[common]} here)",
                         "diverged")
            return
        self.seen["takebacks"] = peer.takebacks
        n = len(mine)
        if rules_game is not None and len(peer.moves) > n and common >= n:
            if _side_at(rules_game, n) != peer_side:
                self._refuse(f"{self.peer} sent a move for the {rules_game.turn}, who play "
                             "at this board", "forged_move")
            else:
                try:
                    played = rules_game.play_text(peer.moves[n])
                except (MoveError, ValueError) as exc:
                    self._refuse(f"{self.peer} sent an illegal move {peer.moves[n]!r}: {exc}",
                                 "illegal_move")
                else:
                    mine.append(played.text)
                    changed = True
                    self._hand(RemoteMove(n, played.move))
        if peer.draw is not None and peer.draw.n > int(self.seen.get("draw", 0)):
            self.seen["draw"] = peer.draw.n
            changed = True
            self._hand(RemoteDraw(peer.draw.side, peer.draw.action))
        if peer.resign and self.seen.get("resign") != peer.resign:
            self.seen["resign"] = peer.resign
            changed = True
            self._hand(RemoteResign(peer.resign))
        if peer.flag == peer_side and self.seen.get("flag") != peer.flag:
            self.seen["flag"] = peer.flag  # the peer's side lost on time there
            self._hand(RemoteEnd(other(peer_side), "time"))
        if peer.clock is not None and peer.clock.get("wall") != self.seen.get("clock"):
            self.seen["clock"] = peer.clock.get("wall")
            self._hand(self._clock(peer_side, peer.clock))
        if changed:
            self._save_publish()
        else:
            self.outbox.save(self._key, {**self.doc, "seen": self.seen})

    def _clock(self, peer_side: str, clock: dict[str, Any]) -> RemoteClock:
        lag = min(MAX_LAG_S, max(0.0, self.wall() - float(clock["wall"])))
        left = {s: float(clock[s]) for s in ("attackers", "defenders")}
        if clock.get("running") == peer_side:
            left[peer_side] = max(0.0, left[peer_side] - lag)
        mine = self._my_clock
        my_side = other(peer_side)
        if mine is not None and isinstance(mine.get(my_side), int | float):
            left[my_side] = float(mine[my_side])
            if mine.get("running") == my_side and isinstance(mine.get("wall"), int | float):
                left[my_side] = max(0.0, left[my_side] - max(0.0, self.wall() - mine["wall"]))
        return RemoteClock(left["attackers"], left["defenders"], clock.get("running"),
                           self.monotonic())

    def _hand(self, event: RemoteEvent) -> None:
        try:
            self._inbox(event)
        except Exception:  # the session's inbox only enqueues; never let it stop the link
            log.exception("club: the session's inbox failed")


def _side_at(game: Game, ply: int) -> str:
    return game.start_turn if ply % 2 == 0 else other(game.start_turn)
