"""The board's publisher: the session's state snapshots become the board's topics.

The session announces a snapshot after every change, and only after the store has written it
(the store is the source of truth). The daemon hands each snapshot to :meth:`BoardPublisher.
offer` (it only keeps the newest and wakes the publisher's thread: the scan loop never waits
for the broker). The publisher's thread

- diffs the snapshot's game (id, moves, result) against what it queued before, and queues what
  is new in the durable :class:`~companion.club.outbox.Outbox` (a game start, each move, a
  takeback, the end) before handing it to the broker, in order, QoS 1; a row leaves the outbox
  once the broker has it. After kill -9 or a power cut the first snapshot (the session
  publishes the stored game at start) yields what was never queued, and the rows never
  acknowledged are sent again: nothing is lost, and a resend carries its old ``seq``;
- publishes the public part of the snapshot as the retained ``state`` (at most every
  ``min_interval`` seconds, the newest wins; again on every reconnection).
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable

from companion.club import topics
from companion.club.link import ClubLink
from companion.club.outbox import Outbox, Queued
from companion.club.topics import MovesMessage, StateJSON
from companion.rules import other

log = logging.getLogger("companion.club")


def changes(queued: Queued, state: StateJSON) -> tuple[list[MovesMessage], Queued]:
    """The ``moves`` messages that take the queued record to the snapshot ``state``, and the
    new record."""
    out: list[MovesMessage] = []
    game = state.get("game")
    moves = [m for m in state.get("moves") or [] if isinstance(m, str)]
    result = state.get("result") or "ongoing"
    first = state.get("first") or "attackers"
    done: list[str] = list(queued.get("moves") or [])
    if queued.get("game") != game:
        out.append({"kind": "start", "game": game, "variant": state.get("variant"),
                    "first": first, "settings": state.get("settings"),
                    "players": topics.public_state(state).get("players")})
        done = []
    common = 0
    while common < min(len(done), len(moves)) and done[common] == moves[common]:
        common += 1
    if common < len(done):
        out.append({"kind": "takeback", "game": game, "ply": common})
    for ply in range(common, len(moves)):
        side = first if ply % 2 == 0 else other(first)
        out.append({"kind": "move", "game": game, "ply": ply, "move": moves[ply],
                    "side": side})
    if result != "ongoing" and (queued.get("result") != result or out):
        out.append({"kind": "end", "game": game, "ply": len(moves), "result": result,
                    "reason": state.get("reason")})
    return out, {"game": game, "moves": moves, "result": result}


class BoardPublisher:
    """Publishes one board's game (see the module docstring)."""

    def __init__(self, link: ClubLink, outbox: Outbox, club: str, board: str, *,
                 min_interval: float = 0.1) -> None:
        self.link, self.outbox = link, outbox
        self.club, self.board = club, board
        self.min_interval = min_interval
        self._cond = threading.Condition()
        self._latest: str | None = None
        self._state_text: bytes | None = None
        self._state_sent: bytes | None = None
        self._reconnected = False
        self._handed: set[int] = set()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="club-publisher", daemon=True)
        self.published = 0
        #: called with every snapshot (parsed) on the publisher's thread (the club players)
        self.observers: list[Callable[[StateJSON], None]] = []
        link.on_connect(self._on_connect)

    def start(self) -> None:
        self.link.publish(topics.status_topic(self.club, self.board),
                          topics.encode({"online": True}), retain=True)
        self._hand(self.outbox.owed())  # what a previous run still owed, first and in order
        self._thread.start()

    def offer(self, state_json: str) -> None:
        """A new snapshot (``/api/state`` JSON text); never blocks for long."""
        with self._cond:
            self._latest = state_json
            self._cond.notify()

    def republish(self) -> None:
        """Publish the board's status and state again (e.g. a will replayed by somebody)."""
        self._on_connect()

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # -- the publisher's thread ------------------------------------------------------------
    def _on_connect(self) -> None:
        with self._cond:
            self._reconnected = True
            self._cond.notify()

    def _run(self) -> None:
        last = 0.0
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stop or self._latest is not None
                                    or self._reconnected)
                if self._stop:
                    return
                text, self._latest = self._latest, None
                reconnected, self._reconnected = self._reconnected, False
            try:
                if text is not None:
                    self._snapshot(text)
                if reconnected:
                    self.link.publish(topics.status_topic(self.club, self.board),
                                      topics.encode({"online": True}), retain=True)
                    self._state_sent = None
                wait = last + self.min_interval - time.monotonic()
                if wait > 0:
                    time.sleep(wait)  # coalesces bursts: the newest snapshot wins
                if self._publish_state():
                    last = time.monotonic()
            except Exception:  # the publisher survives anything; the next snapshot retries
                log.exception("club: publishing failed")
                time.sleep(1.0)

    def _snapshot(self, text: str) -> None:
        state = json.loads(text)
        if not isinstance(state, dict) or "game" not in state:
            return
        for observe in self.observers:
            observe(state)
        messages, record = changes(self.outbox.queued(), state)
        if messages:
            wall = round(time.time(), 3)
            topic = topics.moves_topic(self.club, self.board)
            self._hand(self.outbox.enqueue([(topic, {**m, "wall": wall}) for m in messages],
                                           record))
        public = topics.public_state(state)
        public["board_name"] = self.board
        public["published"] = round(time.time(), 3)
        with self._cond:
            self._state_text = topics.encode(public)

    def _publish_state(self) -> bool:
        with self._cond:
            text = self._state_text
        if text is None or text == self._state_sent or not self.link.connected.is_set():
            return False
        self.link.publish(topics.state_topic(self.club, self.board), text, retain=True)
        self._state_sent = text
        self.published += 1
        return True

    def _hand(self, rows: list[tuple[int, str, bytes]]) -> None:
        for seq, topic, payload in rows:
            if seq in self._handed:
                continue
            self._handed.add(seq)
            self.link.publish(topic, payload, acked=functools.partial(self._acked, seq))

    def _acked(self, seq: int) -> None:
        self.outbox.acked(seq)
        self._handed.discard(seq)
