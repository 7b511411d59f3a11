"""The game store's schema, its versions, and opening a data directory safely.

``PRAGMA user_version`` holds the schema version. Version 1 is the first release's schema (it
never set the pragma, so it reads 0 with tables present); each later version has one migration
that moves a store forward, all in one transaction (2: matches, settings, players, clocks, links;
3: hints per game and the ``analyses`` table; 4: the pending move to make of a game; 5: the
terms of a game with a player at a distance; 6: an index of imported games by their
fingerprint; 7: puzzles read from files, the attempts at puzzles and the puzzles' and the
player's puzzle ratings). A new
store is made as version 2 and migrated.
A store made by a newer version is refused, never written. Opening checks, in order, and stops
at the first problem with one clear line (:class:`StoreOpenError`): the data directory (a file?
unwritable?), the database path (a directory?), the file's header (garbage, truncated), SQLite's
own integrity check (corrupt pages), the schema version, and one real write (read-only mount,
full disk).

A damaged database is never deleted: with ``reset=True`` (``run --reset-store``) it is moved
aside to ``games.sqlite3.damaged-<time>`` (with its ``-wal``/``-shm``) and a fresh store starts.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

SCHEMA_VERSION = 7
HEADER = b"SQLite format 3\x00"

SCHEMA_V2 = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    start_position TEXT NOT NULL,
    start_turn TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    result TEXT NOT NULL DEFAULT 'ongoing',
    reason TEXT,
    attackers TEXT NOT NULL DEFAULT 'Player 1',
    defenders TEXT NOT NULL DEFAULT 'Player 2',
    settings TEXT NOT NULL DEFAULT '{}',
    players TEXT NOT NULL DEFAULT '{}',
    time_control TEXT,
    clock TEXT,
    match_id INTEGER REFERENCES matches(id),
    match_game INTEGER
);
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    side TEXT NOT NULL,
    frm TEXT NOT NULL,
    dest TEXT NOT NULL,
    captured TEXT NOT NULL,
    text TEXT NOT NULL,
    t REAL NOT NULL,
    left_attackers REAL,
    left_defenders REAL,
    clock TEXT,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER REFERENCES games(id),
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_game ON events(game_id, id);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    ended REAL,
    players TEXT NOT NULL,
    tie_break TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    time_control TEXT,
    result TEXT
);
CREATE TABLE links (
    token TEXT PRIMARY KEY,
    game_id INTEGER REFERENCES games(id),
    match_id INTEGER REFERENCES matches(id),
    side TEXT,
    seat INTEGER,
    created REAL NOT NULL
);
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

#: version -> statements that move a store from that version to the next
MIGRATIONS: dict[int, str] = {
    1: """
ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE games ADD COLUMN players TEXT NOT NULL DEFAULT '{}';
ALTER TABLE games ADD COLUMN time_control TEXT;
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN match_id INTEGER REFERENCES matches(id);
ALTER TABLE games ADD COLUMN match_game INTEGER;
ALTER TABLE moves ADD COLUMN left_attackers REAL;
ALTER TABLE moves ADD COLUMN left_defenders REAL;
ALTER TABLE moves ADD COLUMN clock TEXT;
CREATE TABLE matches (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, ended REAL, players TEXT NOT NULL,
    tie_break TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}', time_control TEXT, result TEXT
);
CREATE TABLE links (
    token TEXT PRIMARY KEY, game_id INTEGER REFERENCES games(id),
    match_id INTEGER REFERENCES matches(id), side TEXT, seat INTEGER, created REAL NOT NULL
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
UPDATE games SET settings = json_object('variant', variant, 'options', json_object());
""",
    # 3: hints used per side, and the engine's analysis of a game (kept, never recomputed)
    2: """
ALTER TABLE games ADD COLUMN hints TEXT;
CREATE TABLE analyses (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    moves TEXT NOT NULL,
    seconds REAL NOT NULL,
    engine TEXT NOT NULL,
    created REAL NOT NULL,
    review TEXT NOT NULL
);
""",
    # 4: the move to make (chosen off the board, not yet made at the board), kept so that it
    # survives a crash or a restart
    3: """
ALTER TABLE games ADD COLUMN pending TEXT;
""",
    # 5: a game played with a player at a distance (online, club): the terms both ends agreed
    # on (the other end's game id ``ref``, the board's side, the opponent), so a restart finds
    # the game again
    4: """
ALTER TABLE games ADD COLUMN remote TEXT;
""",
    # 6: imported games found by their fingerprint (companion.web.imports: a file imported
    # again is not stored twice), without reading every event
    5: """
CREATE INDEX events_import ON events(json_extract(data, '$.fingerprint')) WHERE kind = 'imported';
""",
    # 7: puzzles (docs/coach.md): those read from OpenTafl files (the shipped ones live in the
    # package), every attempt with its outcome and the ratings after it, and each puzzle's
    # rating as the attempts moved it (the player's is the last attempt's ``player_after``)
    6: """
CREATE TABLE puzzles (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    data TEXT NOT NULL,
    added REAL NOT NULL
);
CREATE TABLE puzzle_attempts (
    id INTEGER PRIMARY KEY,
    puzzle TEXT NOT NULL,
    game_id INTEGER REFERENCES games(id),
    started REAL NOT NULL,
    ended REAL NOT NULL,
    solved INTEGER NOT NULL,
    moves TEXT NOT NULL,
    player_before REAL NOT NULL,
    player_after REAL NOT NULL,
    puzzle_before REAL NOT NULL,
    puzzle_after REAL NOT NULL
);
CREATE TABLE puzzle_ratings (
    puzzle TEXT PRIMARY KEY,
    rating REAL NOT NULL,
    attempts INTEGER NOT NULL,
    solved INTEGER NOT NULL
);
""",
}


class StoreOpenError(ValueError):
    """The store cannot be opened; the message is one line for the user."""


class StoreDamaged(StoreOpenError):
    """The database file is damaged (``reset=True`` moves it aside)."""


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def check_data_dir(data_dir: Path) -> None:
    """The data directory exists (made if missing) and is a writable directory."""
    if data_dir.exists() and not data_dir.is_dir():
        raise StoreOpenError(f"data dir {data_dir} is a file, not a directory")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StoreOpenError(f"data dir {data_dir}: a part of the path is a file") from None
    except OSError as exc:
        raise StoreOpenError(f"cannot create data dir {data_dir}: "
                             f"{exc.strerror or exc}") from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise StoreOpenError(f"data dir {data_dir} is not writable (read-only mount or "
                             "permissions)")


def _check_file(path: Path) -> None:
    if path.is_dir():
        raise StoreOpenError(f"store {path} is a directory, not a database file")
    if not path.exists():
        return
    try:
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise StoreOpenError(f"cannot read store {path}: {exc.strerror or exc}") from None
    if not head:
        return  # an empty file: SQLite makes a database of it
    if len(head) < 100 or not head.startswith(HEADER):
        raise StoreDamaged(f"store {path} is not a SQLite database (garbage or truncated)")


def move_aside(path: Path) -> Path:
    """Rename the database (and its WAL/SHM files) to ``NAME.damaged-<time>``; the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            src.rename(Path(str(target) + suffix))
    return target


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "readonly" in text.replace("-", ""):
        return "it is read-only (read-only mount or permissions)"
    if "disk is full" in text or "disk I/O" in text:
        return f"{text} (is the disk full?)"
    return text


def connect(path: Path) -> sqlite3.Connection:
    """The connection the store uses (autocommit; transactions are explicit)."""
    db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10)
    return db


def open_database(path: Path, *, reset: bool = False,
                  log: Callable[[str], None] | None = None) -> sqlite3.Connection:
    """Open (create, migrate) the store at ``path``; StoreOpenError with one line if it cannot
    be used. A damaged database is moved aside and replaced only when ``reset``."""
    check_data_dir(path.parent)
    try:
        _check_file(path)
        return _open_checked(path)
    except StoreDamaged as exc:
        if not reset:
            raise StoreDamaged(f"{exc}; start with --reset-store to move it aside (it is kept) "
                               "and begin a fresh store") from None
        aside = move_aside(path)
        if log is not None:
            log(f"{exc}: moved it aside to {aside.name}; starting a fresh store")
        return _open_checked(path)


def _open_checked(path: Path) -> sqlite3.Connection:
    try:
        db = connect(path)
    except sqlite3.Error as exc:
        raise StoreOpenError(f"cannot open store {path}: {_describe(exc)}") from None
    try:
        _prepare(db, path)
    except StoreOpenError:
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        text = str(exc)
        if "malformed" in text or "not a database" in text or "corrupt" in text:
            raise StoreDamaged(f"store {path} is damaged ({text})") from None
        raise StoreOpenError(f"cannot use store {path}: {_describe(exc)}") from None
    return db


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    ok = db.execute("PRAGMA quick_check(1)").fetchone()[0]
    if ok != "ok":
        first = " ".join(str(ok).replace("*** in database main ***", "").split())
        raise StoreDamaged(f"store {path} is damaged ({first[:120]})")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version > SCHEMA_VERSION:
        raise StoreOpenError(
            f"store {path} has schema version {version}, made by a newer tafl-companion (this "
            f"one reads up to {SCHEMA_VERSION}); upgrade, or use another --data-dir")
    if version == 0 and tables:
        version = 1  # the first release did not set user_version
        if not {"games", "moves", "events"} <= tables:
            raise StoreOpenError(f"store {path} is not a tafl-companion store (tables: "
                                 f"{', '.join(sorted(tables))})")
    journal = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if journal != "wal":
        raise StoreOpenError(f"store {path}: cannot use write-ahead logging ({journal})")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    try:
        db.execute("BEGIN IMMEDIATE")
        if version == 0:  # a new store: version 2's tables, then the migrations from there
            for stmt in _statements(SCHEMA_V2):
                db.execute(stmt)
            version = 2
        while version < SCHEMA_VERSION:
            for stmt in _statements(MIGRATIONS[version]):
                db.execute(stmt)
            version += 1
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        # one real write: a read-only mount or a full disk shows up now, not at the first move
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened', ?)",
                   (repr(time.time()),))
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.DatabaseError) and "malformed" in str(exc):
            raise
        raise StoreOpenError(f"cannot write store {path}: {_describe(exc)}") from None

