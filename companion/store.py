"""The game store: every game, every accepted move and the notable events, in SQLite.

Crash safety: the database runs in WAL mode with ``synchronous=FULL``, so a committed
transaction survives a kill -9 or a power cut. Each accepted move is written in one transaction
(the move, its event row and, when it ends the game, the result) *before* the daemon announces
it; so a move anyone has seen on the page or the LEDs is never lost.

Tables: ``games`` (variant, start position, players, result), ``moves`` (one row per ply) and
``events`` (illegal moves, warnings, takebacks, draw offers, ...: a JSON payload each).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from companion.rules import get_variant
from companion.rules.board import MoveError
from companion.rules.game import Game, PlayedMove
from companion.rules.records import game_to_record_line

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    start_position TEXT NOT NULL,
    start_turn TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    result TEXT NOT NULL DEFAULT 'ongoing',
    reason TEXT,
    attackers TEXT NOT NULL DEFAULT 'Player 1',
    defenders TEXT NOT NULL DEFAULT 'Player 2'
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    side TEXT NOT NULL,
    frm TEXT NOT NULL,
    dest TEXT NOT NULL,
    captured TEXT NOT NULL,
    text TEXT NOT NULL,
    t REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER REFERENCES games(id),
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, id);
"""

#: Endings that are not on the board; replayed onto a loaded Game.
MANUAL_REASONS = ("agreement", "resignation")


class StoreError(LookupError):
    """A game that does not exist, or an export that is not available."""


@dataclass(frozen=True)
class GameRow:
    """One stored game (without its moves)."""

    id: int
    variant: str
    start_position: str
    start_turn: str
    started: float
    ended: float | None
    result: str
    reason: str | None
    attackers: str
    defenders: str
    plies: int = 0

    def to_json(self) -> dict:
        return {
            "id": self.id, "variant": self.variant, "started": self.started,
            "ended": self.ended, "result": self.result, "reason": self.reason,
            "players": {"attackers": self.attackers, "defenders": self.defenders},
            "plies": self.plies, "finished": self.ended is not None,
        }


_GAME_COLS = (
    "g.id, g.variant, g.start_position, g.start_turn, g.started, g.ended, g.result, g.reason, "
    "g.attackers, g.defenders, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)"
)


class Store:
    """The SQLite game store. Thread-safe: one connection behind a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(
            str(self.path), isolation_level=None, check_same_thread=False, timeout=10
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._tx():
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self._db.execute(stmt)

    # -- plumbing ---------------------------------------------------------------------------

    def _tx(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    def pragma(self, name: str) -> object:
        """A PRAGMA's current value (tests check WAL and FULL)."""
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing ----------------------------------------------------------------------------

    def new_game(
        self, game: Game, players: tuple[str, str] = ("Player 1", "Player 2"),
        t: float | None = None,
    ) -> int:
        """Record a new game (its moves so far too) and return its id."""
        t = time.time() if t is None else t
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (variant, start_position, start_turn, started, attackers, "
                "defenders) VALUES (?, ?, ?, ?, ?, ?)",
                (game.rules.id, game.start_position, game.start_turn, t, *players),
            )
            gid = int(cur.lastrowid)
            for ply, played in enumerate(game.played, 1):
                self._insert_move(db, gid, ply, played, t)
            db.execute(
                "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, 'new_game', ?)",
                (gid, t, json.dumps({"variant": game.rules.id})),
            )
        return gid

    @staticmethod
    def _insert_move(db: sqlite3.Connection, gid: int, ply: int, p: PlayedMove, t: float) -> None:
        db.execute(
            "INSERT INTO moves (game_id, ply, side, frm, dest, captured, text, t) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, ply, p.side, p.frm, p.to, json.dumps(list(p.captured)), p.text, t),
        )

    def sync_game(self, gid: int, game: Game, events: list[tuple[str, dict]] = (),
                  t: float | None = None) -> None:
        """Make the stored moves equal ``game``'s record and store ``events`` (``(kind, data)``)
        and the result, all in ONE transaction. After an accepted move that is one inserted
        row; after a revised move, a replaced row; after a takeback, a deleted one."""
        t = time.time() if t is None else t
        with self._tx() as db:
            stored = [r[0] for r in db.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (gid,))]
            texts = game.moves
            keep = 0
            while keep < min(len(stored), len(texts)) and stored[keep] == texts[keep]:
                keep += 1
            if keep < len(stored):
                db.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (gid, keep))
            for ply in range(keep + 1, len(texts) + 1):
                self._insert_move(db, gid, ply, game.played[ply - 1], t)
            for kind, data in events:
                db.execute(
                    "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, ?, ?)",
                    (gid, t, kind, json.dumps(data, default=str)),
                )
            self._set_result(db, gid, game, t)

    @staticmethod
    def _set_result(db: sqlite3.Connection, gid: int, game: Game, t: float) -> None:
        outcome = game.outcome()
        if outcome is None:
            db.execute(
                "UPDATE games SET result = 'ongoing', reason = NULL, ended = NULL "
                "WHERE id = ? AND (ended IS NULL OR reason IS NOT 'abandoned')",
                (gid,),
            )
        else:
            db.execute(
                "UPDATE games SET result = ?, reason = ?, ended = COALESCE(ended, ?) "
                "WHERE id = ?",
                (outcome.result, outcome.reason, t, gid),
            )

    def import_game(self, game: Game, players: tuple[str, str], started: float,
                    origin: dict, ending: tuple[str, str] | None = None) -> int:
        """Store a game read from a file (.otg, CSV) in ONE transaction, closed at once so it is
        never resumed as the live game: result and reason as the rules ended it (or ``ending``,
        ``(result, reason)``, e.g. a loss on time the rules cannot know), reason ``imported``
        while it is unfinished; an ``imported`` event holds ``origin``."""
        now = time.time()
        outcome = game.outcome()
        result, reason = ending or ((outcome.result, outcome.reason) if outcome
                                    else ("ongoing", "imported"))
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (variant, start_position, start_turn, started, ended, result, "
                "reason, attackers, defenders) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.rules.id, game.start_position, game.start_turn, started, now, result,
                 reason, *players),
            )
            gid = int(cur.lastrowid)
            for ply, played in enumerate(game.played, 1):
                self._insert_move(db, gid, ply, played, started)
            db.execute(
                "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, 'imported', ?)",
                (gid, now, json.dumps(origin, default=str)),
            )
        return gid

    def abandon(self, gid: int, t: float | None = None) -> None:
        """Close an unfinished game without a result (a new game replaced it)."""
        t = time.time() if t is None else t
        with self._tx() as db:
            db.execute(
                "UPDATE games SET ended = ?, reason = 'abandoned' WHERE id = ? AND ended IS NULL",
                (t, gid),
            )

    def set_players(self, gid: int, attackers: str, defenders: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE games SET attackers = ?, defenders = ? WHERE id = ?",
                (attackers, defenders, gid),
            )

    def add_event(self, gid: int | None, kind: str, data: dict, t: float | None = None) -> None:
        """Log one event (illegal move, warning, draw offer, ...)."""
        t = time.time() if t is None else t
        with self._tx() as db:
            db.execute(
                "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, ?, ?)",
                (gid, t, kind, json.dumps(data, default=str)),
            )

    # -- reading ----------------------------------------------------------------------------

    def unfinished(self) -> GameRow | None:
        """The latest game that has not ended, if any."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g WHERE g.ended IS NULL "
                "ORDER BY g.id DESC LIMIT 1"
            ).fetchone()
        return GameRow(*row) if row else None

    def latest(self) -> GameRow | None:
        """The latest game, finished or not."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g ORDER BY g.id DESC LIMIT 1"
            ).fetchone()
        return GameRow(*row) if row else None

    def game(self, gid: int) -> GameRow:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g WHERE g.id = ?", (gid,)
            ).fetchone()
        if row is None:
            raise StoreError(f"no game {gid}")
        return GameRow(*row)

    def list_games(self, limit: int = 50, offset: int = 0) -> list[GameRow]:
        """Games, newest first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g ORDER BY g.id DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [GameRow(*r) for r in rows]

    def move_texts(self, gid: int) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (gid,)
            ).fetchall()
        return [r[0] for r in rows]

    def moves(self, gid: int) -> list[dict]:
        """Stored moves of a game: ply, side, from, to, captured, text, t."""
        with self._lock:
            rows = self._db.execute(
                "SELECT ply, side, frm, dest, captured, text, t FROM moves WHERE game_id = ? "
                "ORDER BY ply",
                (gid,),
            ).fetchall()
        return [
            {"ply": r[0], "side": r[1], "from": r[2], "to": r[3],
             "captured": json.loads(r[4]), "text": r[5], "t": r[6]}
            for r in rows
        ]

    def events(self, gid: int, limit: int = 1000) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT t, kind, data FROM events WHERE game_id = ? ORDER BY id LIMIT ?",
                (gid, limit),
            ).fetchall()
        return [{"t": r[0], "kind": r[1], **json.loads(r[2])} for r in rows]

    def load_game(self, gid: int) -> Game:
        """The stored game replayed through the rules (manual endings restored)."""
        row = self.game(gid)
        game = Game(get_variant(row.variant), row.start_position, row.start_turn)
        for m in self.moves(gid):
            try:
                game.play(f"{m['from']}-{m['to']}")
            except MoveError as exc:  # a rules change made an old move illegal: stop there
                raise StoreError(f"game {gid} ply {m['ply']} {m['text']}: {exc}") from None
        if row.reason in MANUAL_REASONS and not game.is_over():
            if row.reason == "agreement":
                game.agree_draw()
            elif row.result in ("attackers", "defenders"):
                game.resign("defenders" if row.result == "attackers" else "attackers")
        return game

    def positions(self, gid: int) -> list[dict]:
        """For replay: the position (OTN) and side to move before the first move and after
        every move."""
        row = self.game(gid)
        game = Game(get_variant(row.variant), row.start_position, row.start_turn)
        out = [{"position": game.board.otn(), "turn": game.turn, "move": None}]
        for m in self.moves(gid):
            game.play(f"{m['from']}-{m['to']}")
            out.append({"position": game.board.otn(), "turn": game.turn, "move": m["text"]})
        return out

    def export_csv(self, gid: int) -> str:
        """The game as one CSV record line (the form docs/interfaces.md describes)."""
        game = self.load_game(gid)
        return game_to_record_line(game) + "\n"

    def export_otg(self, gid: int) -> str:
        """The game as an OpenTafl ``.otg`` file (players and date as tags)."""
        try:
            from companion.rules import otg
        except ImportError:
            raise StoreError("OpenTafl export is not available in this version") from None
        row = self.game(gid)
        game = self.load_game(gid)
        write = getattr(otg, "export_otg", None)
        if write is None:  # the module's other spelling
            return otg.game_to_otg(game)
        import datetime

        return write(game, tags={"attackers": row.attackers, "defenders": row.defenders},
                     date=datetime.date.fromtimestamp(row.started))


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) under the store lock."""

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self.db = db
        self.lock = lock

    def __enter__(self) -> sqlite3.Connection:
        self.lock.acquire()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise
        return self.db

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.lock.release()
