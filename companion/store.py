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
``meta``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType, TracebackType

from companion.rules import PRESETS, get_variant, other
from companion.rules.board import MoveError
from companion.rules.game import Game, PlayedMove
from companion.squares import square_name
from companion.store_schema import StoreOpenError, open_database

__all__ = ["MANUAL_REASONS", "GameRow", "MatchRow", "Store", "StoreError", "StoreOpenError"]

#: Endings that are not on the board; replayed onto a loaded Game.
MANUAL_REASONS = ("agreement", "resignation", "time")
#: Reasons of a closed game that are not an ending (no result to restore).
NOT_ENDINGS = (None, "abandoned", "imported")

#: An event row: (kind, data, wall time)
EventRow = tuple[str, dict, float]


class StoreError(LookupError):
    """A game or match that does not exist, or a change a finished game does not allow."""


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
    settings: str = "{}"
    players_json: str = "{}"
    time_control: str | None = None
    clock: str | None = None
    match_id: int | None = None
    match_game: int | None = None
    hints_json: str | None = None
    analysed: int = 0
    pending_json: str | None = None
    remote_json: str | None = None

    def remote(self) -> dict | None:
        """The terms of a game with a player at a distance (``ref``, ``kind``, ``local_side``,
        ``opponent``, ...), or None for a game played here."""
        if not self.remote_json:
            return None
        data = json.loads(self.remote_json)
        return data if isinstance(data, dict) else None

    def pending(self) -> dict | None:
        """The move to make stored with the game (chosen off the board, not yet made at the
        board; ``ply`` says for which position), or None."""
        if not self.pending_json:
            return None
        data = json.loads(self.pending_json)
        return data if isinstance(data, dict) else None

    @property
    def finished(self) -> bool:
        return self.ended is not None

    def players(self) -> dict:
        """Side -> ``{name, kind, ...}`` (kinds default to ``board`` for old games)."""
        stored = json.loads(self.players_json or "{}")
        names = {"attackers": self.attackers, "defenders": self.defenders}
        return {s: {"kind": "board", **stored.get(s, {}), "name": names[s]} for s in names}

    def hints(self) -> dict[str, int]:
        """Hints given per side in this game."""
        data = json.loads(self.hints_json or "{}")
        return {s: int(data.get(s, 0)) for s in ("attackers", "defenders")}

    def settings_json(self) -> dict:
        data = json.loads(self.settings or "{}")
        return {"variant": data.get("variant", self.variant), "options": data.get("options", {})}

    def to_json(self) -> dict:
        return {
            "id": self.id, "variant": self.variant, "started": self.started,
            "ended": self.ended, "result": self.result, "reason": self.reason,
            "players": {s: p["name"] for s, p in self.players().items()},
            "player_kinds": {s: p["kind"] for s, p in self.players().items()},
            "plies": self.plies, "finished": self.finished,
            "settings": self.settings_json(), "time_control": self.time_control,
            "match": self.match_id, "match_game": self.match_game,
            "hints": self.hints(), "analysed": bool(self.analysed),
        }


@dataclass(frozen=True)
class MatchRow:
    id: int
    started: float
    ended: float | None
    players: tuple[str, str]
    tie_break: tuple[str, ...]
    settings: dict
    time_control: str | None
    result: dict | None

    def to_json(self) -> dict:
        return {"id": self.id, "started": self.started, "ended": self.ended,
                "players": list(self.players), "tie_break": list(self.tie_break),
                "settings": self.settings, "time_control": self.time_control,
                "result": self.result, "finished": self.ended is not None}


_LINK_KEYS = ("token", "game_id", "match_id", "side", "seat")
_LINK_COLS = ", ".join(_LINK_KEYS)
_GAME_COLS = (
    "g.id, g.variant, g.start_position, g.start_turn, g.started, g.ended, g.result, g.reason, "
    "g.attackers, g.defenders, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), "
    "g.settings, g.players, g.time_control, g.clock, g.match_id, g.match_game, g.hints, "
    "(SELECT COUNT(*) FROM analyses a WHERE a.game_id = g.id), g.pending, g.remote"
)


def _dumps(data: object) -> str:
    return json.dumps(data, default=str, separators=(",", ":"))


class Store:
    """The SQLite game store. Thread-safe: one connection behind a lock."""

    def __init__(self, path: str | Path, *, reset: bool = False,
                 log: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db = open_database(self.path, reset=reset, log=log)

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

    def new_match(self, players: tuple[str, str], tie_break: Sequence[str], settings: dict,
                  time_control: str | None, t: float | None = None) -> int:
        t = time.time() if t is None else t
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO matches (started, players, tie_break, settings, time_control) "
                "VALUES (?, ?, ?, ?, ?)",
                (t, _dumps(list(players)), _dumps(list(tie_break)), _dumps(settings),
                 time_control))
            return int(cur.lastrowid or 0)

    def end_match(self, mid: int, result: dict, t: float | None = None) -> None:
        t = time.time() if t is None else t
        with self._tx() as db:
            db.execute("UPDATE matches SET ended = COALESCE(ended, ?), result = ? WHERE id = ?",
                       (t, _dumps(result), mid))

    def reopen_match(self, mid: int) -> None:
        """The match's last game was reopened (a takeback): the match is not over."""
        with self._tx() as db:
            db.execute("UPDATE matches SET ended = NULL, result = NULL WHERE id = ?", (mid,))

    def new_game(
        self, game: Game, players: tuple[str, str] | dict = ("Player 1", "Player 2"),
        t: float | None = None, *, settings: dict | None = None,
        time_control: str | None = None, clock: dict | None = None,
        match_id: int | None = None, match_game: int | None = None,
        events: Sequence[EventRow] = (), new_match: dict | None = None,
        remote: dict | None = None,
    ) -> int:
        """Record a new game (its moves so far too) and return its id. ``players`` is a pair of
        names or ``{side: {name, kind, ...}}``. ``new_match`` (``players``, ``tie_break``,
        ``settings``) records a new match in the same transaction, this game its game 1; ``remote``
        the terms of a game with a player at a distance."""
        t = time.time() if t is None else t
        if isinstance(players, dict):
            names = (players["attackers"]["name"], players["defenders"]["name"])
            pjson = _dumps(players)
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
                     _dumps(new_match.get("settings", {})), time_control))
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
                     clock: dict | None, size: int) -> None:
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

    def sync_game(self, gid: int, game: Game, events: Sequence[EventRow | tuple[str, dict]] = (),
                  t: float | None = None, *, move_clocks: Sequence[dict | None] | None = None,
                  clock: dict | None = None, hints: dict | None = None,
                  pending: dict | None | EllipsisType = ...,
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
                    origin: dict, ending: tuple[str, str] | None = None) -> int:
        """Store a game read from a file (.otg, CSV) in ONE transaction, closed at once so it is
        never resumed as the live game: result and reason as the rules ended it (or ``ending``,
        ``(result, reason)``, e.g. a loss on time the rules cannot know), reason ``imported``
        while it is unfinished; an ``imported`` event holds ``origin``."""
        now = time.time()
        outcome = game.outcome()
        result, reason = ending or ((outcome.result, str(outcome.reason)) if outcome
                                    else ("ongoing", "imported"))
        settings = {"variant": game.rules.id, "options": {}}
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (variant, start_position, start_turn, started, ended, result, "
                "reason, attackers, defenders, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.rules.id, game.start_position, game.start_turn, started, now, result,
                 reason, *players, _dumps(settings)),
            )
            gid = int(cur.lastrowid or 0)
            for ply, played in enumerate(game.played, 1):
                self._insert_move(db, gid, ply, played, started, None,
                                  game.rules.size)
            db.execute(
                "INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, 'imported', ?)",
                (gid, now, _dumps(origin)),
            )
        return gid

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

    def set_players(self, gid: int, attackers: str | dict, defenders: str | dict | None = None,
                    events: Sequence[EventRow] = ()) -> None:
        """Change an unfinished game's players (names, or ``{side: {name, kind}}`` as
        ``attackers``). A finished game is never rewritten: StoreError."""
        if isinstance(attackers, dict):
            players = attackers
        else:
            players = {"attackers": {"name": attackers, "kind": "board"},
                       "defenders": {"name": defenders, "kind": "board"}}
        with self._tx() as db:
            row = db.execute("SELECT ended FROM games WHERE id = ?", (gid,)).fetchone()
            if row is None:
                raise StoreError(f"no game {gid}")
            if row[0] is not None:
                raise StoreError(f"game {gid} is finished: its players are not changed")
            db.execute("UPDATE games SET attackers = ?, defenders = ?, players = ? WHERE id = ?",
                       (players["attackers"]["name"], players["defenders"]["name"],
                        _dumps(players), gid))
            self._insert_events(db, gid, events)

    def add_events(self, gid: int | None, events: Sequence[EventRow]) -> None:
        with self._tx() as db:
            for kind, data, wall in events:
                db.execute("INSERT INTO events (game_id, t, kind, data) VALUES (?, ?, ?, ?)",
                           (gid, wall, kind, _dumps(data)))

    def add_event(self, gid: int | None, kind: str, data: dict, t: float | None = None) -> None:
        """Log one event (illegal move, warning, draw offer, ...)."""
        self.add_events(gid, [(kind, data, time.time() if t is None else t)])

    def add_link(self, token: str, *, game_id: int | None = None, match_id: int | None = None,
                 side: str | None = None, seat: int | None = None) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO links (token, game_id, match_id, side, seat, created) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (token, game_id, match_id, side, seat, time.time()))

    def save_analysis(self, gid: int, moves: Sequence[str], seconds: float, engine: str,
                      review: dict) -> None:
        """Keep the engine's analysis of a game (``moves``: the move texts analysed)."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO analyses (game_id, moves, seconds, engine, "
                       "created, review) VALUES (?, ?, ?, ?, ?, ?)",
                       (gid, _dumps(list(moves)), seconds, engine, time.time(), _dumps(review)))

    # -- reading ----------------------------------------------------------------------------

    def analysis(self, gid: int) -> dict | None:
        """A game's stored analysis: ``{"moves", "seconds", "engine", "created", "review"}``."""
        with self._lock:
            row = self._db.execute("SELECT moves, seconds, engine, created, review FROM "
                                   "analyses WHERE game_id = ?", (gid,)).fetchone()
        if row is None:
            return None
        return {"moves": json.loads(row[0]), "seconds": row[1], "engine": row[2],
                "created": row[3], "review": json.loads(row[4])}

    def link(self, token: str) -> dict | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_LINK_COLS} FROM links WHERE token = ?",
                                   (token,)).fetchone()
        return dict(zip(_LINK_KEYS, row)) if row else None

    def links_for(self, *, game_id: int | None = None, match_id: int | None = None) -> list[dict]:
        column, value = ("match_id", match_id) if match_id is not None else ("game_id", game_id)
        with self._lock:
            rows = self._db.execute(f"SELECT {_LINK_COLS} FROM links WHERE {column} = ? "
                                    "ORDER BY created", (value,))
            return [dict(zip(_LINK_KEYS, r)) for r in rows]

    def _latest_game(self, where: str = "") -> GameRow | None:
        """The game with the highest id among those matching ``where`` (SQL on ``games g``)."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g {where} ORDER BY g.id DESC LIMIT 1"
            ).fetchone()
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

    def match_games(self, mid: int) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_GAME_COLS} FROM games g WHERE g.match_id = ? ORDER BY g.match_game, "
                "g.id", (mid,)).fetchall()
        return [GameRow(*r) for r in rows]

    def match(self, mid: int) -> MatchRow:
        with self._lock:
            row = self._db.execute(
                "SELECT id, started, ended, players, tie_break, settings, time_control, result "
                "FROM matches WHERE id = ?", (mid,)).fetchone()
        if row is None:
            raise StoreError(f"no match {mid}")
        return _match_row(row)

    def list_matches(self, limit: int = 50, offset: int = 0) -> list[MatchRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, started, ended, players, tie_break, settings, time_control, result "
                "FROM matches ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [_match_row(r) for r in rows]

    def player_results(self) -> dict[str, dict]:
        """Per player name: games, wins as attackers / defenders, draws, losses (finished games
        with a result; abandoned ones do not count)."""
        out: dict[str, dict] = {}
        with self._lock:
            rows = self._db.execute(
                "SELECT attackers, defenders, result FROM games WHERE ended IS NOT NULL AND "
                "reason IS NOT 'abandoned' AND result != 'ongoing'").fetchall()
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
        with self._lock:
            rows = self._db.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (gid,)
            ).fetchall()
        return [r[0] for r in rows]

    def moves(self, gid: int) -> list[dict]:
        """Stored moves of a game: ply, side, from, to, captured, text, t (wall time), and the
        clocks after the move (``left``: side -> seconds, or None without a clock)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT ply, side, frm, dest, captured, text, t, left_attackers, left_defenders, "
                "clock FROM moves WHERE game_id = ? ORDER BY ply",
                (gid,),
            ).fetchall()
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
        with self._lock:
            row = self._db.execute(
                f"SELECT kind FROM events WHERE game_id = ? AND kind IN ({marks}) "
                "ORDER BY id DESC LIMIT 1", (gid, *kinds)).fetchone()
        return row[0] if row else None

    def events(self, gid: int, limit: int = 1000) -> list[dict]:
        """A game's event rows, oldest first: the payload plus ``t`` (the wall time it was
        stored for) and ``kind``; a payload's own fields never replace those two."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, t, kind, data FROM events WHERE game_id = ? ORDER BY id LIMIT ?",
                (gid, limit),
            ).fetchall()
        return [{**json.loads(r[3]), "id": r[0], "t": r[1], "kind": r[2]} for r in rows]

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

    def positions(self, gid: int) -> list[dict]:
        """For replay: the position (OTN) and side to move before the first move and after
        every move."""
        row = self.game(gid)
        game = Game(rules_of(row), row.start_position, row.start_turn)
        out = [{"position": game.board.otn(), "turn": game.turn, "move": None}]
        for m in self.moves(gid):
            game.play_text(f"{m['from']}-{m['to']}")
            out.append({"position": game.board.otn(), "turn": game.turn, "move": m["text"]})
        return out

    def export_csv(self, gid: int) -> str:
        """The game as a CSV record (the corpus form) after ``#`` header lines."""
        from companion.session.export import game_csv

        return game_csv(self, gid)

    def export_otg(self, gid: int) -> str:
        """The game as an OpenTafl ``.otg`` file (players, date, rules, clocks as tags)."""
        from companion.session.export import game_otg

        return game_otg(self, gid)


def rules_of(row: GameRow):  # -> RuleSet
    """A stored game's rule set: its variant with its stored options."""
    from companion.session.settings import GameSettings, SettingsError

    try:
        return GameSettings.from_json(row.settings_json()).rules()
    except SettingsError:
        return PRESETS[row.variant] if row.variant in PRESETS else get_variant(row.variant)


def _match_row(r: tuple) -> MatchRow:
    players = json.loads(r[3])
    return MatchRow(r[0], r[1], r[2], (players[0], players[1]), tuple(json.loads(r[4])),
                    json.loads(r[5] or "{}"), r[6], json.loads(r[7]) if r[7] else None)


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
