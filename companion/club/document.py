"""This board's side of a board-to-board game with one other board (the *peer*): the one
retained document it publishes on ``tafl/{club}/{me}/play/{peer}`` (its offer, or the agreed game
with every move of it; :mod:`companion.club.channel` describes it), what it has read of the
peer's document (``seen``), and the agreed game as the rules see it.

The document and ``seen`` are kept in the outbox database, so a restarted board publishes the
same document again and does not take the peer's old news for new. The caller holds the club
player's lock around every method except :meth:`PlayDocument.publish` (the link calls it after
a reconnection).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from companion.club import topics
from companion.club.channel import (
    ClockReading,
    GameJSON,
    OfferJSON,
    PlayJSON,
    Seen,
    Terms,
    TermsJSON,
    terms_from_json,
)
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.club.topics import StateJSON
from companion.rules import Move, other
from companion.rules.game import Game
from companion.session.remote import RemoteClock
from companion.token_bucket import TokenBucket

log = logging.getLogger("companion.club")
MAX_LAG_S = 5.0  # at most this much of a clock reading's age is taken as the network's delay
SIDES = ("attackers", "defenders")


class PlayDocument:
    """The document of board ``me`` for board ``peer`` (see the module docstring)."""

    def __init__(self, link: ClubLink, outbox: Outbox, club: str, me: str, peer: str, *,
                 accepts: bool, lock: threading.RLock) -> None:
        self.link, self.outbox, self.club, self.me, self.peer = link, outbox, club, me, peer
        self.accepts, self._lock = accepts, lock
        self.key = f"play:{peer}"
        self.topic = topics.play_topic(club, me, peer)
        stored = outbox.load(self.key) or {}  # this board's own document, as it saved it
        self.doc: PlayJSON = {"seq": int(stored.get("seq", 0)), "offer": stored.get("offer"),
                              "game": stored.get("game")}
        seen: Any = stored.get("seen") or {}  # (as saved: a Seen)
        self.seen: Seen = seen
        self.rules: Game | None = None  # the agreed game, once started() replayed it

    @property
    def game(self) -> GameJSON | None:
        return self.doc["game"]

    @property
    def offer(self) -> OfferJSON | None:
        return self.doc["offer"]

    def terms(self, raw: TermsJSON) -> Terms:
        return terms_from_json(raw, (self.me, self.peer))

    # -- changes ---------------------------------------------------------------------------
    def propose(self, terms: Terms, oid: str) -> None:
        self.doc["offer"] = {"id": oid, "terms": terms.to_json()}
        self.doc["game"], self.rules = None, None

    def agree(self, ref: str, terms: Terms) -> None:
        self.doc["offer"] = None
        self.doc["game"] = {"ref": ref, "terms": terms.to_json(), "moves": [], "takebacks": 0,
                            "draw": None, "resign": None, "clock": None}
        self.seen.update({"ref": ref, "takebacks": 0, "draw": 0, "resign": None})
        self.rules = Game(terms.settings.rules())

    def clear(self) -> None:
        self.doc["offer"], self.doc["game"], self.rules = None, None, None

    def resume(self, moves: tuple[Move, ...]) -> None:
        """The agreed game goes on with ``moves`` (this board's store: the truth here)."""
        game = self.game
        assert game is not None
        self.rules = self.replay(game["terms"], ())
        game["moves"] = [self.rules.play(m).text for m in moves]

    def add_move(self, ply: int, move: Move, peer_moves: tuple[str, ...]) -> bool:
        """This board's move of ply ``ply`` (a revision of an earlier ply replaces the moves
        from there; the peer's moves made here before it are taken from ``peer_moves``).
        False when it does not fit (logged)."""
        game, rules = self.game, self.rules
        if not game or rules is None:
            log.warning("club: a move for %s without an agreed game (ignored)", self.peer)
            return False
        moves: list[str] = game["moves"]
        if ply < len(moves):
            self.truncate(ply)
            rules = self.rules
            assert rules is not None
        elif ply > len(moves):
            for text in peer_moves[len(moves):ply]:  # the peer's, made here
                moves.append(rules.play_text(text).text)
        if ply != len(moves):
            log.warning("club: move of ply %d but %d moves known (ignored)", ply, len(moves))
            return False
        moves.append(rules.play(move).text)
        return True

    def draw(self, side: str, action: str) -> bool:
        """A draw offer or answer of ``side`` at this board (numbered); False without a game."""
        game = self.game
        if not game:
            return False
        draw = game["draw"]
        n = (draw["n"] if draw else 0) + 1
        game["draw"] = {"n": n, "side": side, "action": action}
        return True

    def resign(self, side: str) -> bool:
        """``side`` resigned at this board; False without a game."""
        game = self.game
        if not game:
            return False
        game["resign"] = side
        return True

    def take_back(self, ply: int) -> bool:
        """A takeback at this board to ply ``ply`` (counted); False without a game."""
        game = self.game
        if not game:
            return False
        self.truncate(ply)
        game["takebacks"] += 1
        game["resign"] = None
        return True

    def truncate(self, ply: int) -> None:
        game = self.game
        assert game is not None
        del game["moves"][ply:]
        self.rules = self.replay(game["terms"], tuple(game["moves"]))

    def replay(self, terms: TermsJSON, moves: tuple[str, ...]) -> Game:
        game = Game(self.terms(terms).settings.rules())
        for text in moves:
            game.play_text(text)
        return game

    def over(self) -> bool:
        """The agreed game ended (a resignation, its result here, or by the rules)."""
        game = self.game
        return bool(game and (game["resign"] or game.get("ended") or self.rules is None
                              or self.rules.is_over()))

    def note_state(self, state: StateJSON, clock: ClockReading | None) -> bool:
        """This board's state snapshot: its clock reading (``clock``, when the running side
        changed) and the end of the agreed game here (a flag of this board's side is its word).
        True when the document changed."""
        game = self.game
        if not game:
            return False
        changed = False
        if clock is not None:
            game["clock"] = clock
            changed = True
        remote, result = state.get("remote"), state.get("result")
        if (not game.get("ended") and isinstance(remote, dict)
                and remote.get("ref") == f"club:{self.club}/{game['ref']}"
                and result in ("attackers", "defenders", "draw")):
            game["ended"] = {"result": result, "reason": state.get("reason")}
            mine = self.terms(game["terms"]).side_of(self.me)
            if state.get("reason") == "time" and result == other(mine):
                game["flag"] = mine
            changed = True
        return changed

    # -- the broker ------------------------------------------------------------------------
    def save(self) -> None:
        self.outbox.save(self.key, {**self.doc, "seen": self.seen})

    def publish_change(self) -> None:
        """The document changed: a new ``seq``, kept, then published."""
        self.doc["seq"] += 1
        self.save()
        self.publish()

    def publish(self) -> None:
        with self._lock:
            if not self.doc["seq"]:
                return  # nothing said yet
            doc = {"v": 1, "from": self.me, "to": self.peer, "accepts": self.accepts,
                   **self.doc}
        self.link.publish(self.topic, topics.encode(doc), retain=True)


def peer_clock(peer_side: str, clock: ClockReading, mine: ClockReading | None,
               wall: float, now: float) -> RemoteClock:
    """The clocks as this board shows them: the peer's side as the peer read it (less the
    time since, up to :data:`MAX_LAG_S`, while it runs), this board's side as this board's
    own clock reads it (``mine``)."""
    lag = min(MAX_LAG_S, max(0.0, wall - float(clock["wall"] or 0.0)))
    left = {s: float(_left(clock, s) or 0.0) for s in SIDES}
    if clock["running"] == peer_side:
        left[peer_side] = max(0.0, left[peer_side] - lag)
    my_side = other(peer_side)
    mine_left = _left(mine, my_side) if mine is not None else None
    if mine is not None and isinstance(mine_left, int | float):
        left[my_side] = float(mine_left)
        mine_wall = mine["wall"]
        if mine["running"] == my_side and isinstance(mine_wall, int | float):
            left[my_side] = max(0.0, left[my_side] - max(0.0, wall - mine_wall))
    return RemoteClock(left["attackers"], left["defenders"], clock["running"], now)


def _left(clock: ClockReading, side: str) -> float | None:
    return clock["attackers"] if side == "attackers" else clock["defenders"]


class FloodGuard:
    """At most ``rate`` documents a second are read after a burst of ``burst``; beyond, the
    newest waits and is read a second later (every document carries the whole game, so the
    ones in between are not needed). Called holding ``lock``; ``read`` runs holding it."""

    def __init__(self, read: Callable[[Any], None], lock: threading.RLock,
                 monotonic: Callable[[], float], rate: float, burst: float) -> None:
        self._read, self._lock, self._monotonic = read, lock, monotonic
        self.rate, self.burst = rate, burst
        self._tokens = TokenBucket.full(burst, rate, monotonic())
        self._deferred: Any = None
        self._timer: threading.Timer | None = None

    def offer(self, doc: Any, newer: Callable[[Any, Any], bool]) -> None:
        """Read ``doc`` now, or keep it for later if a flood is on (``newer(a, b)``: ``a``
        is newer than ``b``)."""
        if self._tokens.refill(self._monotonic()) >= 1:
            self._tokens.take(1)
            self._read(doc)
            return
        if self._deferred is None or newer(doc, self._deferred):
            self._deferred = doc
        if self._timer is None:
            self._timer = threading.Timer(1.0, self._later)
            self._timer.daemon = True
            self._timer.start()

    def _later(self) -> None:
        with self._lock:
            self._timer = None
            doc, self._deferred = self._deferred, None
            if doc is not None:
                self._read(doc)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
