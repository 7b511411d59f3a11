"""Every message of the club is signed with the club's key and checked before it is read.

A broker is shared: on one without ACLs anybody who reaches it can publish on any topic, and
even with an ACL the boards should not have to trust it. So whatever the broker, each message a
board (or the room) reads carries a seal made with the club's secret key (``[club] key``, or
the key file ``club.key`` in the data dir; docs/club.md)::

    TAFL1 <board> <counter> <mac>\\n<body>

- ``board``: the board that signed it; it must be the board whose topic it is on
  (``tafl/{club}/{board}/...``), so a seal is never moved to another board's topic;
- ``counter``: microseconds since the epoch when it was signed, strictly rising per sender (it is
  also the message's time);
- ``mac``: HMAC-SHA256 (hex) with the club key over the header, the topic and the body.

:class:`Verifier` refuses (and counts, by reason) a message without a seal, with a wrong one, a
seal of another board than the topic's, a replay (a counter already read on that topic, or older
than the newest read there), a live message older than :data:`MAX_AGE_S` and a message from
more than :data:`MAX_SKEW_S` in the future. A retained message (the broker's copy of the latest,
delivered on subscription) may be old; it still must be newer than what was read on its topic,
and the very same message delivered again (a retained one after a reconnection, or once per
matching subscription) is dropped quietly.

The key proves club membership, not which member: a board holding the key could sign in another
board's name. Against outsiders (anybody else on the network or on a hosted broker) it is
complete; the broker's ACL (one account per board) adds the per-board part.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

MAGIC = b"TAFL1"
KEY_FILE = "club.key"
MIN_KEY_CHARS = 16
MAX_AGE_S = 300.0      # a live message older than this is refused (a replay, or a stale queue)
MAX_SKEW_S = 300.0     # nor one signed further in the future (a wrong clock, or a forgery)
MAX_TOPICS = 4096      # topics whose newest counter is kept (authentic messages only)
MAX_HEADER = 200
OFFLINE = b'{"online":false}'


class SealError(ValueError):
    """A message refused; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


REASONS = ("unsigned", "bad_signature", "wrong_board", "replayed", "too_old", "future",
           "duplicate")


def new_key() -> str:
    """A fresh club key (32 random bytes as 64 hex characters)."""
    return secrets.token_hex(32)


def key_bytes(text: str, where: str) -> bytes:
    """A club key from its text (ValueError naming ``where`` for one too short)."""
    text = text.strip()
    if len(text) < MIN_KEY_CHARS or "\n" in text:
        raise ValueError(f"{where}: the club key must be one line of at least {MIN_KEY_CHARS} "
                         f"characters (make one with `tafl-companion club-key`)")
    return text.encode("utf-8")


def read_key_file(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the club key file {path}: {exc.strerror or exc}"
                         ) from None
    except UnicodeDecodeError:
        raise ValueError(f"the club key file {path} is not text") from None
    return key_bytes(text, str(path))


def _mac(key: bytes, head: bytes, topic: str, body: bytes) -> bytes:
    return hmac.new(key, head + b"\n" + topic.encode("utf-8") + b"\n" + body,
                    hashlib.sha256).hexdigest().encode("ascii")


def topic_board(topic: str) -> str | None:
    """The board a club topic belongs to (``tafl/{club}/{board}/...``)."""
    parts = topic.split("/", 3)
    return parts[2] if len(parts) >= 4 else None


class Signer:
    """Seals what board ``board`` publishes (counters strictly rising)."""

    def __init__(self, key: bytes, board: str, wall: Callable[[], float] = time.time) -> None:
        self._key, self.board, self._wall = key, board, wall
        self._last = 0
        self._lock = threading.Lock()

    def seal(self, topic: str, body: bytes) -> bytes:
        if topic_board(topic) != self.board:
            raise ValueError(f"board {self.board} does not publish on {topic!r}")
        with self._lock:
            self._last = counter = max(self._last + 1, int(self._wall() * 1_000_000))
        head = b"%s %s %d" % (MAGIC, self.board.encode("ascii"), counter)
        return head + b" " + _mac(self._key, head, topic, body) + b"\n" + body


class Verifier:
    """Checks seals and replays of one receiver (one link: called on one thread)."""

    def __init__(self, key: bytes, wall: Callable[[], float] = time.time) -> None:
        self._key, self._wall = key, wall
        self._newest: OrderedDict[str, int] = OrderedDict()  # topic -> newest counter read
        self._since: OrderedDict[str, int] = OrderedDict()  # board -> its newest status's
        self.refused: dict[str, int] = dict.fromkeys(REASONS, 0)

    def open(self, topic: str, payload: bytes, retained: bool) -> bytes:
        """The body of an authentic, fresh message (SealError, counted, otherwise)."""
        try:
            return self._open(topic, payload, retained)
        except SealError as exc:
            self.refused[exc.reason] += 1
            raise

    def _open(self, topic: str, payload: bytes, retained: bool) -> bytes:
        nl = payload.find(b"\n", 0, MAX_HEADER)
        fields = payload[:nl].split(b" ") if nl > 0 else []
        if len(fields) != 4 or fields[0] != MAGIC:
            raise SealError("unsigned", "a message without the club's seal")
        head, body = payload[:nl - len(fields[3]) - 1], payload[nl + 1:]
        if not hmac.compare_digest(fields[3], _mac(self._key, head, topic, body)):
            raise SealError("bad_signature", "a message whose seal is not the club key's")
        board = fields[1].decode("ascii", "replace")
        if board != topic_board(topic):
            raise SealError("wrong_board", f"a message of {board[:40]} on another board's topic")
        try:
            counter = int(fields[2])
        except ValueError:
            raise SealError("bad_signature", "a seal without a counter") from None
        now = self._wall()
        age = now - counter / 1_000_000
        if age < -MAX_SKEW_S:
            raise SealError("future", f"a message of {board} signed {-age:.0f} s in the future "
                                      "(check both clocks)")
        status = topic.endswith("/status")
        if status and body == OFFLINE:
            # the broker's copy of the board's will: signed when the board connected, sent
            # when it vanished (maybe hours later, and after its newer "online"); a replay of
            # it only says "offline", and the board itself answers with a fresh "online"
            self._remember(self._since, board, counter)
            return body
        newest = self._newest.get(topic)
        if newest is not None and counter <= newest:
            if counter == newest:  # (a retained one after a reconnection, two subscriptions)
                raise SealError("duplicate", "the same message again")
            raise SealError("replayed", f"a message of {board} read before (or older than "
                                        "the newest read)")
        if not retained and age > MAX_AGE_S:
            raise SealError("too_old", f"a message of {board} signed {age:.0f} s ago")
        since = self._since.get(board)
        if (retained and not status and since is not None
                and counter < since - MAX_AGE_S * 1_000_000):
            # a board republishes its retained documents each time it connects (after its
            # status): one older than that is an old copy put back by somebody else
            raise SealError("replayed", f"an old retained message of {board}")
        self._remember(self._newest, topic, counter)
        if status:
            self._remember(self._since, board, counter)
        return body

    @staticmethod
    def _remember(table: OrderedDict[str, int], key: str, counter: int) -> None:
        table[key] = max(counter, table.get(key, 0))
        table.move_to_end(key)
        while len(table) > MAX_TOPICS:
            table.popitem(last=False)
