"""Reading the game store: every query the session and the page make (:class:`StoreReader`),
on any SQLite connection, and :class:`ReadOnlyStore`, separate read-only connections for other
threads (in WAL mode a reader never waits for the writer, nor the writer for it).

The one writing connection is :class:`companion.store.Store`'s, owned by the session's loop
thread; pages, exports, reviews and the analysis worker read through a :class:`ReadOnlyStore`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion.rules import other
from companion.rules.board import MoveError
from companion.rules.game import Game
from companion.store_rows import (
    GAME_COLS,
    LINK_COLS,
    MANUAL_REASONS,
    NOT_ENDINGS,
    GameRow,
    MatchRow,
    PuzzleProgress,
    PuzzleStanding,
    StoredPuzzle,
    StoreError,
    match_row,
    rules_of,
)
from companion.store_types import AnalysisJSON, LinkJSON, Position, StoredEvent, StoredMove

#: A stored event row as read back: its data (one of the kinds docs/events.md lists, as
#: parsed: read by kind where it is used) with ``id``, ``t`` and ``kind``.

#: Runs one query and returns all its rows.
Fetch = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


class StoreReader:
    """The store's queries, on the connection behind ``fetch``."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch

    def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self._fetch(sql, args)
        return rows[0] if rows else None

    def analysis(self, gid: int) -> AnalysisJSON | None:
        """A game's stored analysis: ``{"moves", "seconds", "engine", "created", "review"}``."""
        row = self._one("SELECT moves, seconds, engine, created, review FROM analyses "
                        "WHERE game_id = ?", (gid,))
        if row is None:
            return None
        return {"moves": json.loads(row[0]), "seconds": row[1], "engine": row[2],
                "created": row[3], "review": json.loads(row[4])}

    def link(self, token: str) -> LinkJSON | None:
        row = self._one(f"SELECT {LINK_COLS} FROM links WHERE token = ?", (token,))
        return _link(row) if row else None

    def links_for(self, *, game_id: int | None = None,
                  match_id: int | None = None) -> list[LinkJSON]:
        column, value = ("match_id", match_id) if match_id is not None else ("game_id", game_id)
        rows = self._fetch(f"SELECT {LINK_COLS} FROM links WHERE {column} = ? "
                           "ORDER BY created", (value,))
        return [_link(r) for r in rows]

    def recent_links(self, limit: int) -> list[LinkJSON]:
        """The latest ``limit`` player links, newest first (links follow their player from game
        to game: companion.session.links)."""
        rows = self._fetch(f"SELECT {LINK_COLS} FROM links ORDER BY created DESC, rowid DESC "
                           "LIMIT ?", (limit,))
        return [_link(r) for r in rows]

    def _latest_game(self, where: str = "") -> GameRow | None:
        """The game with the highest id among those matching ``where`` (SQL on ``games g``)."""
        row = self._one(f"SELECT {GAME_COLS} FROM games g {where} ORDER BY g.id DESC LIMIT 1")
        return GameRow(*row) if row else None

    def unfinished(self) -> GameRow | None:
        """The latest game that has not ended, if any."""
        return self._latest_game("WHERE g.ended IS NULL")

    def latest(self) -> GameRow | None:
        """The latest game, finished or not."""
        return self._latest_game()

    def latest_played(self) -> GameRow | None:
        """The latest game played here (not imported from a file)."""
        return self._latest_game("WHERE NOT EXISTS (SELECT 1 FROM events e "
                                 "WHERE e.game_id = g.id AND e.kind = 'imported')")

    def latest_match_game(self) -> GameRow | None:
        """The latest game that belongs to a match (imported games never do)."""
        return self._latest_game("WHERE g.match_id IS NOT NULL")

    def game(self, gid: int) -> GameRow:
        row = self._one(f"SELECT {GAME_COLS} FROM games g WHERE g.id = ?", (gid,))
        if row is None:
            raise StoreError(f"no game {gid}")
        return GameRow(*row)

    def list_games(self, limit: int = 50, offset: int = 0) -> list[GameRow]:
        """Games, newest first."""
        rows = self._fetch(f"SELECT {GAME_COLS} FROM games g ORDER BY g.id DESC LIMIT ? "
                           "OFFSET ?", (limit, offset))
        return [GameRow(*r) for r in rows]

    def match_games(self, mid: int) -> list[GameRow]:
        rows = self._fetch(f"SELECT {GAME_COLS} FROM games g WHERE g.match_id = ? ORDER BY "
                           "g.match_game, g.id", (mid,))
        return [GameRow(*r) for r in rows]

    def match(self, mid: int) -> MatchRow:
        row = self._one("SELECT id, started, ended, players, tie_break, settings, time_control, "
                        "result FROM matches WHERE id = ?", (mid,))
        if row is None:
            raise StoreError(f"no match {mid}")
        return match_row(row)

    def list_matches(self, limit: int = 50, offset: int = 0) -> list[MatchRow]:
        rows = self._fetch("SELECT id, started, ended, players, tie_break, settings, "
                           "time_control, result FROM matches ORDER BY id DESC LIMIT ? OFFSET ?",
                           (limit, offset))
        return [match_row(r) for r in rows]

    def player_results(self) -> dict[str, dict[str, int]]:
        """Per player name: games, wins as attackers / defenders, draws, losses (finished games
        with a result; abandoned ones do not count)."""
        out: dict[str, dict[str, int]] = {}
        rows = self._fetch("SELECT attackers, defenders, result FROM games WHERE ended IS NOT "
                           "NULL AND reason IS NOT 'abandoned' AND result != 'ongoing'", ())
        for att, dfn, result in rows:
            for side, name in (("attackers", att), ("defenders", dfn)):
                rec = out.setdefault(name, {"games": 0, "wins_attackers": 0,
                                            "wins_defenders": 0, "draws": 0, "losses": 0})
                rec["games"] += 1
                if result == "draw":
                    rec["draws"] += 1
                elif result == side:
                    rec[f"wins_{side}"] += 1
                else:
                    rec["losses"] += 1
        return out

    def move_texts(self, gid: int) -> list[str]:
        rows = self._fetch("SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (gid,))
        return [r[0] for r in rows]

    def moves(self, gid: int) -> list[StoredMove]:
        """Stored moves of a game: ply, side, from, to, captured, text, t (wall time), and the
        clocks after the move (``left``: side -> seconds, or None without a clock)."""
        rows = self._fetch("SELECT ply, side, frm, dest, captured, text, t, left_attackers, "
                           "left_defenders, clock FROM moves WHERE game_id = ? ORDER BY ply",
                           (gid,))
        return [
            {"ply": r[0], "side": r[1], "from": r[2], "to": r[3],
             "captured": json.loads(r[4]), "text": r[5], "t": r[6],
             "left": None if r[7] is None else {"attackers": r[7], "defenders": r[8]},
             "clock": json.loads(r[9]) if r[9] else None}
            for r in rows
        ]

    def last_event_kind(self, gid: int, kinds: Sequence[str]) -> str | None:
        """The kind of the game's latest event among ``kinds``, or None."""
        marks = ", ".join("?" for _ in kinds)
        row = self._one(f"SELECT kind FROM events WHERE game_id = ? AND kind IN ({marks}) "
                        "ORDER BY id DESC LIMIT 1", (gid, *kinds))
        return row[0] if row else None

    def events(self, gid: int, limit: int = 1000) -> list[StoredEvent]:
        """A game's event rows, oldest first: the payload plus ``t`` (the wall time it was
        stored for) and ``kind``; a payload's own fields never replace those two."""
        rows = self._fetch("SELECT id, t, kind, data FROM events WHERE game_id = ? ORDER BY id "
                           "LIMIT ?", (gid, limit))
        return [{**json.loads(r[3]), "id": r[0], "t": r[1], "kind": r[2]} for r in rows]

    def imported_ids(self, fingerprints: Sequence[str]) -> dict[str, int]:
        """Fingerprint -> id of the stored imported game with it (``companion.web.imports``),
        for those of ``fingerprints`` that are stored."""
        out: dict[str, int] = {}
        for fp in dict.fromkeys(fingerprints):
            row = self._one(SAME_IMPORT, (fp,))
            if row is not None:
                out[fp] = int(row[0])
        return out

    def stored_puzzles(self, variant: str | None = None) -> list[StoredPuzzle]:
        """The puzzles read from files, of ``variant`` or all, oldest first."""
        sql = "SELECT id, variant, data FROM puzzles" + (" WHERE variant = ?" if variant else "")
        rows = self._fetch(sql + " ORDER BY added, id", (variant,) if variant else ())
        return [StoredPuzzle(str(r[0]), str(r[1]), json.loads(r[2])) for r in rows]

    def puzzle_attempted(self, gid: int) -> bool:
        """Whether an attempt at a puzzle was stored for game ``gid``."""
        return self._one("SELECT 1 FROM puzzle_attempts WHERE game_id = ?", (gid,)) is not None

    def puzzle_progress(self) -> PuzzleProgress:
        """The player's puzzle rating (None before any attempt), attempts and puzzles solved,
        and each tried puzzle's rating, attempts and solves."""
        row = self._one("SELECT player_after FROM puzzle_attempts ORDER BY id DESC LIMIT 1")
        totals = self._one("SELECT COUNT(*), COALESCE(SUM(solved), 0) FROM puzzle_attempts")
        tried = {str(r[0]): PuzzleStanding(float(r[1]), int(r[2]), int(r[3]))
                 for r in self._fetch("SELECT puzzle, rating, attempts, solved FROM "
                                      "puzzle_ratings", ())}
        return PuzzleProgress(float(row[0]) if row else None, int(totals[0]) if totals else 0,
                              int(totals[1]) if totals else 0, tried)

    def load_game(self, gid: int) -> Game:
        """The stored game replayed through its own rules (manual endings restored)."""
        row = self.game(gid)
        game = Game(rules_of(row), row.start_position, row.start_turn)
        for m in self.moves(gid):
            try:
                game.play_text(f"{m['from']}-{m['to']}")
            except MoveError as exc:  # a rules change made an old move illegal: stop there
                raise StoreError(f"game {gid} ply {m['ply']} {m['text']}: {exc}") from None
        if row.reason in MANUAL_REASONS and not game.is_over():
            if row.reason == "agreement":
                game.agree_draw()
            elif row.reason == "time" and row.result in ("attackers", "defenders"):
                game.lose_on_time(other(row.result))
            elif row.result in ("attackers", "defenders"):
                game.resign(other(row.result))
        elif row.finished and row.reason not in NOT_ENDINGS and not game.is_over():
            # ended in another's words (the online server's "move_limit", ...): a draw as by
            # agreement, a win as by resignation (the stored reason keeps the words)
            if row.result == "draw":
                game.agree_draw()
            elif row.result in ("attackers", "defenders"):
                game.resign(other(row.result))
        return game

    def positions(self, gid: int) -> list[Position]:
        """For replay: the position (OTN) and side to move before the first move and after
        every move."""
        row = self.game(gid)
        game = Game(rules_of(row), row.start_position, row.start_turn)
        out: list[Position] = [{"position": game.board.otn(), "turn": game.turn, "move": None}]
        for m in self.moves(gid):
            game.play_text(f"{m['from']}-{m['to']}")
            out.append({"position": game.board.otn(), "turn": game.turn, "move": m["text"]})
        return out


def _link(row: tuple[Any, ...]) -> LinkJSON:
    token, game_id, match_id, side, seat = row
    return {"token": token, "game_id": game_id, "match_id": match_id, "side": side,
            "seat": seat}


#: The stored game imported with a fingerprint (the first, if a race stored it twice).
SAME_IMPORT = ("SELECT game_id FROM events WHERE kind = 'imported' AND "
               "json_extract(data, '$.fingerprint') = ? ORDER BY id LIMIT 1")


class ReadOnlyStore(StoreReader):
    """Read-only connections to the store at ``path``, one per thread that reads (a page's
    request, the analysis worker): any thread, never waiting for the writer."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(self._query)
        self.path = Path(path)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            with self._lock:
                if self._closed:
                    raise sqlite3.ProgrammingError("the store is closed")
                db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10,
                                     check_same_thread=False)
                db.execute("PRAGMA query_only = ON")
                self._all.append(db)
            self._local.db = db
        return db

    def _query(self, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._connection().execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns, self._all = self._all, []
        for db in conns:
            db.close()
