"""The game store: matches, games, every accepted move with its clock readings, the session's
events and the player links, in SQLite.

Crash safety: WAL mode with ``synchronous=FULL``, so a committed transaction survives a kill -9
or a power cut. The session writes each accepted move in one transaction (the move, its clock
readings, its event rows and, when it ends the game, the result) *before* it is announced; a
move anyone has seen on the page or the LEDs is never lost. Opening, versions and migrations:
:mod:`companion.store_schema`.

Tables: ``matches``, ``games`` (variant, settings, players, time control, current clock,
result), ``moves`` (one row per ply: wall time ``t``, both clocks after the move), ``events``
(illegal moves, warnings, takebacks, draw offers, flag falls, hints ...: wall time ``t`` and a
JSON payload), ``links`` (player-link tokens), ``analyses`` (the engine's analysis of a game),
``meta``; ``puzzles`` (read from files), ``puzzle_attempts`` and ``puzzle_ratings``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import EllipsisType, TracebackType
from typing import TYPE_CHECKING, Any

from companion.rules.game import Game, PlayedMove
from companion.squares import square_name
from companion.store_reads import SAME_IMPORT as _SAME_IMPORT
from companion.store_reads import ReadOnlyStore, StoreReader
from companion.store_rows import (
    MANUAL_REASONS,
    GameRow,
    MatchRow,
    PuzzleAttemptRow,
    StoredPuzzle,
    StoreError,
    imported_settings,
    rules_of,
)
from companion.store_schema import StoreOpenError, open_database
from companion.store_types import (
    EventRow,
    MatchResult,
    MatchSettings,
    NewMatch,
    PlayerJSON,
    RowData,
)

if TYPE_CHECKING:
    from companion.engine.analysis import ReviewJSON
    from companion.session.move_clocks import ClockRecord

__all__ = ["MANUAL_REASONS", "GameRow", "MatchRow", "ReadOnlyStore", "Store", "StoreError",
           "StoreOpenError", "StoreReader", "rules_of"]



def _dumps(data: object) -> str:
    return json.dumps(data, default=str, separators=(",", ":"))


class Store(StoreReader):
    """The SQLite game store: the one writing connection (the session's loop thread writes;
    other threads read through a :meth:`reader`). Thread-safe: the connection is used behind
    a lock."""

    def __init__(self, path: str | Path, *, reset: bool = False,
                 log: Callable[[str], None] | None = None) -> None:
        super().__init__(self._query)
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db = open_database(self.path, reset=reset, log=log)

    def _query(self, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def reader(self) -> ReadOnlyStore:
        """Read-only connections for other threads (close it when done)."""
        return ReadOnlyStore(self.path)

    # -- plumbing ---------------------------------------------------------------------------

    def _tx(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    def pragma(self, name: str) -> object:
        """A PRAGMA's current value (tests check WAL, FULL and the schema version)."""
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing ----------------------------------------------------------------------------

    def new_match(self, players: tuple[str, str], tie_break: Sequence[str],
                  settings: MatchSettings, time_control: str | None,
                  t: float | None = None) -> int:
        t = time.time() if t is None else t
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO matches (started, players, tie_break, settings, time_control) "
                "VALUES (?, ?, ?, ?, ?)",
                (t, _dumps(list(players)), _dumps(list(tie_break)), _dumps(settings),
                 time_control))
            return int(cur.lastrowid or 0)

    def end_match(self, mid: int, result: MatchResult, t: float | None = None) -> None:
        t = time.time() if t is None else t
        with self._tx() as db:
            db.execute("UPDATE matches SET ended = COALESCE(ended, ?), result = ? WHERE id = ?",
                       (t, _dumps(result), mid))

    def reopen_match(self, mid: int) -> None:
        """The match's last game was reopened (a takeback): the match is not over."""
        with self._tx() as db:
            db.execute("UPDATE matches SET ended = NULL, result = NULL WHERE id = ?", (mid,))

    def new_game(
        self, game: Game,
        players: tuple[str, str] | Mapping[str, PlayerJSON] = ("Player 1", "Player 2"),
        t: float | None = None, *, settings: Mapping[str, object] | None = None,
        time_control: str | None = None, clock: Mapping[str, object] | None = None,
        match_id: int | None = None, match_game: int | None = None,
        events: Sequence[EventRow] = (), new_match: NewMatch | None = None,
        remote: Mapping[str, object] | None = None,
    ) -> int:
        """Record a new game (its moves so far too) and return its id. ``players`` is a pair of
        names or ``{side: {name, kind, ...}}``. ``new_match`` (``players``, ``tie_break``,
        ``settings``) records a new match in the same transaction, this game its game 1; ``remote``
        the terms of a game with a player at a distance."""
        t = time.time() if t is None else t
        if not isinstance(players, tuple):
            names = (players["attackers"]["name"], players["defenders"]["name"])
            pjson = _dumps(dict(players))
        else:
            names = (players[0], players[1])
            pjson = _dumps({s: {"name": n, "kind": "board"}
                            for s, n in zip(("attackers", "defenders"), names)})
        settings = settings or {"variant": game.rules.id, "options": {}}
        with self._tx() as db:
            if new_match is not None:
                cur = db.execute(
                    "INSERT INTO matches (started, players, tie_break, settings, time_control) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (t, _dumps(list(new_match["players"])), _dumps(list(new_match["tie_break"])),
                     _dumps(new_match["settings"]), time_control))
                match_id, match_game = int(cur.lastrowid or 0), 1
            cur = db.execute(
                "INSERT INTO games (variant, start_position, start_turn, started, attackers, "
                "defenders, settings, players, time_control, clock, match_id, match_game, "
                "remote) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.rules.id, game.start_position, game.start_turn, t, *names,
                 _dumps(settings), pjson, time_control, _dumps(clock) if clock else None,
                 match_id, match_game, _dumps(remote) if remote is not None else None),
            )
            gid = int(cur.lastrowid or 0)
            for ply, played in enumerate(game.played, 1):
                self._insert_move(db, gid, ply, played, t, None, game.rules.size)
            db.execute("INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, 'new_game', ?)",
                       (gid, t, _dumps({"variant": game.rules.id, "settings": settings,
                                        "match": match_id})))
            self._insert_events(db, gid, events)
        return gid

    @staticmethod
    def _insert_move(db: sqlite3.Connection, gid: int, ply: int, p: PlayedMove, t: float,
                     clock: Mapping[str, Any] | None, size: int) -> None:
        left = (clock or {}).get("left") or {}
        db.execute(
            "INSERT INTO moves (game_id, ply, side, frm, dest, captured, text, t, "
            "left_attackers, left_defenders, clock) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, ply, p.side, square_name(p.move.frm, size), square_name(p.move.to, size),
             _dumps(sorted(square_name(c, size) for c in p.captures)), p.text,
             (clock or {}).get("wall", t), left.get("attackers"), left.get("defenders"),
             _dumps(clock) if clock else None),
        )

    @staticmethod
    def _insert_events(db: sqlite3.Connection, gid: int | None,
                       events: Sequence[EventRow]) -> None:
        for kind, data, wall in events:
            db.execute("INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, ?, ?)",
                       (gid, wall, kind, _dumps(data)))

    def sync_game(self, gid: int, game: Game,
                  events: Sequence[EventRow | tuple[str, RowData]] = (),
                  t: float | None = None, *,
                  move_clocks: Sequence[ClockRecord | None] | None = None,
                  clock: Mapping[str, object] | None = None,
                  hints: Mapping[str, int] | None = None,
                  pending: Mapping[str, object] | None | EllipsisType = ...,
                  ending: tuple[str, str] | None = None) -> None:
        """Make the stored moves equal ``game``'s record, store ``events``, the result, the
        clock, the hints used (``{side: n}``) and the move to make (``pending``: a dict, None
        to clear it, left as it is when not given), all in ONE transaction. ``ending``:
        ``(result, reason)`` of a finished game when they are another's word than the rules'
        (the other end's, for a game with a player at a distance).
        ``move_clocks[i]`` is the clock record of ply i+1 (``{"wall", "left": {side: s},
        ...}``); a changed one is rewritten."""
        t = time.time() if t is None else t
        rows = [(e[0], e[1], float(e[2]) if len(e) > 2 else t) for e in events]
        with self._tx() as db:
            stored = db.execute(
                "SELECT text, clock FROM moves WHERE game_id = ? ORDER BY ply", (gid,)).fetchall()
            texts = game.moves
            keep = 0
            while keep < min(len(stored), len(texts)) and stored[keep][0] == texts[keep]:
                keep += 1
            if keep < len(stored):
                db.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (gid, keep))
            clocks = list(move_clocks or [])
            for ply in range(keep + 1, len(texts) + 1):
                ck = clocks[ply - 1] if ply - 1 < len(clocks) else None
                self._insert_move(db, gid, ply, game.played[ply - 1], t, ck, game.rules.size)
            if keep and keep <= len(clocks) and clocks[keep - 1] is not None:
                ck = clocks[keep - 1]
                if stored[keep - 1][1] != _dumps(ck):
                    left = (ck or {}).get("left") or {}
                    db.execute("UPDATE moves SET clock = ?, left_attackers = ?, "
                               "left_defenders = ? WHERE game_id = ? AND ply = ?",
                               (_dumps(ck), left.get("attackers"), left.get("defenders"), gid,
                                keep))
            self._insert_events(db, gid, rows)
            if clock is not None:
                db.execute("UPDATE games SET clock = ? WHERE id = ?", (_dumps(clock), gid))
            if hints is not None:
                db.execute("UPDATE games SET hints = ? WHERE id = ?", (_dumps(hints), gid))
            if pending is not ...:
                db.execute("UPDATE games SET pending = ? WHERE id = ?",
                           (None if pending is None else _dumps(pending), gid))
            self._set_result(db, gid, game, t, ending)

    @staticmethod
    def _set_result(db: sqlite3.Connection, gid: int, game: Game, t: float,
                    ending: tuple[str, str] | None = None) -> None:
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
                (*(ending or (outcome.result, str(outcome.reason))), t, gid),
            )

    def import_game(self, game: Game, players: tuple[str, str], started: float,
                    origin: RowData, ending: tuple[str, str | None] | None = None) -> int:
        """Store a game read from a file (.otg, CSV) in ONE transaction, closed at once so it is
        never resumed as the live game: result and reason as the rules ended it (or ``ending``,
        ``(result, reason)``, e.g. a loss on time the rules cannot know, or a reason None: the
        file says who won but not how), reason ``imported`` while it is unfinished; an
        ``imported`` event holds ``origin``. A game whose ``origin`` has a ``fingerprint``
        already stored (:meth:`StoreReader.imported_ids`) is not stored again: its id is
        returned."""
        return self.import_games([(game, players, started, origin, ending)])[0]

    def import_games(self, games: Sequence[tuple[Game, tuple[str, str], float, RowData,
                                                 tuple[str, str | None] | None]]) -> list[int]:
        """Store games read from files, all in ONE transaction (:meth:`import_game`)."""
        now = time.time()
        ids = []
        with self._tx() as db:
            for game, players, started, origin, ending in games:
                fp = origin.get("fingerprint")
                if isinstance(fp, str):
                    known = db.execute(_SAME_IMPORT, (fp,)).fetchone()
                    if known is not None:
                        ids.append(int(known[0]))
                        continue
                outcome = game.outcome()
                result, reason = ending or ((outcome.result, str(outcome.reason)) if outcome
                                            else ("ongoing", "imported"))
                settings = imported_settings(game.rules)
                cur = db.execute(
                    "INSERT INTO games (variant, start_position, start_turn, started, ended, "
                    "result, reason, attackers, defenders, settings) VALUES (?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?)",
                    (settings["variant"], game.start_position, game.start_turn, started, now,
                     result, reason, *players, _dumps(settings)),
                )
                gid = int(cur.lastrowid or 0)
                for ply, played in enumerate(game.played, 1):
                    self._insert_move(db, gid, ply, played, started, None, game.rules.size)
                db.execute(
                    "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, 'imported', ?)",
                    (gid, now, _dumps(origin)),
                )
                ids.append(gid)
        return ids

    def abandon(self, gid: int, t: float | None = None,
                events: Sequence[EventRow] = ()) -> None:
        """Close an unfinished game without a result (a new game replaced it)."""
        t = time.time() if t is None else t
        with self._tx() as db:
            db.execute(
                "UPDATE games SET ended = ?, reason = 'abandoned' WHERE id = ? AND ended IS NULL",
                (t, gid),
            )
            self._insert_events(db, gid, events)

    def set_players(self, gid: int, attackers: str | Mapping[str, PlayerJSON],
                    defenders: str | None = None,
                    events: Sequence[EventRow] = ()) -> None:
        """Change an unfinished game's players (names, or ``{side: {name, kind}}`` as
        ``attackers``). A finished game is never rewritten: StoreError."""
        players: Mapping[str, PlayerJSON]
        if isinstance(attackers, str):
            players = {"attackers": {"name": attackers, "kind": "board"},
                       "defenders": {"name": defenders or "", "kind": "board"}}
        else:
            players = attackers
        with self._tx() as db:
            row = db.execute("SELECT ended FROM games WHERE id = ?", (gid,)).fetchone()
            if row is None:
                raise StoreError(f"no game {gid}")
            if row[0] is not None:
                raise StoreError(f"game {gid} is finished: its players are not changed")
            db.execute("UPDATE games SET attackers = ?, defenders = ?, players = ? WHERE id = ?",
                       (players["attackers"]["name"], players["defenders"]["name"],
                        _dumps(dict(players)), gid))
            self._insert_events(db, gid, events)

    def add_events(self, gid: int | None, events: Sequence[EventRow]) -> None:
        with self._tx() as db:
            for kind, data, wall in events:
                db.execute("INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, ?, ?)",
                           (gid, wall, kind, _dumps(data)))

    def add_link(self, token: str, *, game_id: int | None = None, match_id: int | None = None,
                 side: str | None = None, seat: int | None = None) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO links (token, game_id, match_id, side, seat, created) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (token, game_id, match_id, side, seat, time.time()))

    def save_analysis(self, gid: int, moves: Sequence[str], seconds: float, engine: str,
                      review: ReviewJSON) -> None:
        """Keep the engine's analysis of a game (``moves``: the move texts analysed)."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO analyses (game_id, moves, seconds, engine, "
                       "created, review) VALUES (?, ?, ?, ?, ?, ?)",
                       (gid, _dumps(list(moves)), seconds, engine, time.time(), _dumps(review)))

    def save_puzzles(self, puzzles: Sequence[StoredPuzzle]) -> int:
        """Keep puzzles read from files, all in one transaction; a puzzle already kept is not
        written again. How many were new."""
        new = 0
        with self._tx() as db:
            for p in puzzles:
                cur = db.execute("INSERT OR IGNORE INTO puzzles (id, variant, data, added) "
                                 "VALUES (?, ?, ?, ?)", (p.id, p.variant, _dumps(p.data),
                                                         time.time()))
                new += cur.rowcount
        return new

    def puzzle_attempt(self, a: PuzzleAttemptRow) -> None:
        """Keep one finished attempt at a puzzle and the puzzle's rating after it."""
        with self._tx() as db:
            db.execute("INSERT INTO puzzle_attempts (puzzle, game_id, started, ended, solved, "
                       "moves, player_before, player_after, puzzle_before, puzzle_after) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (a.puzzle, a.game_id, a.started, a.ended, int(a.solved),
                        " ".join(a.moves), a.player_before, a.player_after, a.puzzle_before,
                        a.puzzle_after))
            db.execute("INSERT INTO puzzle_ratings (puzzle, rating, attempts, solved) "
                       "VALUES (?, ?, 1, ?) ON CONFLICT(puzzle) DO UPDATE SET "
                       "rating = excluded.rating, attempts = attempts + 1, "
                       "solved = solved + excluded.solved",
                       (a.puzzle, a.puzzle_after, int(a.solved)))


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

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if exc_type:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            else:
                try:
                    self.db.execute("COMMIT")
                except sqlite3.Error:
                    with contextlib.suppress(sqlite3.Error):
                        self.db.execute("ROLLBACK")
                    raise
        finally:
            self.lock.release()
