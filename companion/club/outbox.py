"""What this board still owes the broker, kept on disk so that kill -9 or a power cut loses
nothing (``club.sqlite3`` in the data directory, beside the game store).

- ``outbox``: messages of the ``moves`` topic in order, each with its sequence number; a row
  leaves once the broker acknowledged it (PUBACK). After a restart every row left is sent again
  (the receivers know a resend by its ``seq``).
- ``meta``: this board's source id (random, made once: a deleted file starts a new numbering
  that receivers tell apart), the last sequence number, and the moves already queued of the
  current game (so the next snapshot of the session's state yields exactly what is new).
- ``docs``: small JSON documents of the club players (their side of each board-to-board game).

Writes are synchronous (``synchronous=FULL``): a row is on disk before the broker is asked.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from companion.club.topics import MovesMessage

OUTBOX_NAME = "club.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, topic TEXT NOT NULL,
                                   payload BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Queued(TypedDict, total=False):
    """What was queued last on the moves topic: the game, its moves, its result."""

    game: int | None
    moves: list[str]
    result: str


class Outbox:
    """The board's durable club state (thread-safe)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        with self._lock:
            src = self._meta("src")
            if src is None:
                src = secrets.token_hex(6)
                self._db.execute("INSERT INTO meta VALUES ('src', ?)", (src,))
        self.src = src

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # -- the moves topic -------------------------------------------------------------------
    def queued(self) -> Queued:
        """What was queued last: ``{"game", "moves", "result"}`` (empty before anything)."""
        with self._lock:
            text = self._meta("queued")
        raw = json.loads(text) if text else None  # this outbox's own record
        out: Queued = {}
        if isinstance(raw, dict):
            if "game" in raw:
                out["game"] = raw["game"]
            if "moves" in raw:
                out["moves"] = raw["moves"]
            if "result" in raw:
                out["result"] = raw["result"]
        return out

    def enqueue(self, messages: Sequence[tuple[str, MovesMessage]],
                queued: Queued) -> list[tuple[int, str, bytes]]:
        """Number and store ``messages`` (topic, document without ``seq``) and the new
        ``queued`` record, in one transaction; the stored rows ``(seq, topic, payload)``."""
        out: list[tuple[int, str, bytes]] = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                seq = int(self._meta("seq") or 0)
                for topic, doc in messages:
                    seq += 1
                    payload = json.dumps({"src": self.src, "seq": seq, **doc},
                                         separators=(",", ":")).encode()
                    self._db.execute("INSERT INTO outbox VALUES (?, ?, ?)",
                                     (seq, topic, payload))
                    out.append((seq, topic, payload))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('seq', ?)", (str(seq),))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('queued', ?)",
                                 (json.dumps(queued),))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return out

    def owed(self) -> list[tuple[int, str, bytes]]:
        """Every message the broker has not acknowledged yet, in order."""
        with self._lock:
            rows = self._db.execute("SELECT seq, topic, payload FROM outbox ORDER BY seq")
            return [(int(s), str(t), bytes(p)) for s, t, p in rows]

    def acked(self, seq: int) -> None:
        with self._lock:
            self._db.execute("DELETE FROM outbox WHERE seq = ?", (seq,))

    # -- documents of the club players -----------------------------------------------------
    def load(self, key: str) -> dict[str, Any] | None:  # JSON edge: a saved document
        with self._lock:
            row = self._db.execute("SELECT value FROM docs WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        doc = json.loads(row[0])
        return doc if isinstance(doc, dict) else None

    def save(self, key: str, doc: Mapping[str, object]) -> None:  # written as JSON
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO docs VALUES (?, ?)",
                             (key, json.dumps(doc, separators=(",", ":"))))

    def close(self) -> None:
        with self._lock:
            self._db.close()
