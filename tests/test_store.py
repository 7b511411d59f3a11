"""The SQLite game store: durability settings, one transaction per move, resume, exports."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.rules import get_variant
from companion.rules.game import Game
from companion.session.export import game_csv, game_otg
from companion.store import Store, StoreError
from companion.store_schema import SCHEMA_VERSION, StoreDamaged, StoreOpenError

MOVES = ["d1-d4", "f4-e4", "f2-f4xe4", "e5-e3"]


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "games.sqlite3")
    yield s
    s.close()


def played_game(moves=MOVES, variant="copenhagen") -> Game:
    g = Game(get_variant(variant))
    for m in moves:
        g.play_text(m)
    return g


def test_wal_and_full_sync(store: Store) -> None:
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL


def test_moves_are_stored_one_transaction_each(store: Store, tmp_path: Path) -> None:
    game = Game(get_variant("copenhagen"))
    gid = store.new_game(game)
    seen = []
    other = sqlite3.connect(tmp_path / "games.sqlite3")
    for text in MOVES:
        game.play_text(text)
        store.sync_game(gid, game, [("move", {"move": text})])
        # another connection sees the move at once: it is committed
        seen.append(other.execute("SELECT COUNT(*) FROM moves WHERE game_id=?", (gid,))
                    .fetchone()[0])
    assert seen == [1, 2, 3, 4]
    assert store.move_texts(gid) == MOVES
    assert store.moves(gid)[2]["captured"] == ["e4"]
    assert [e["kind"] for e in store.events(gid)] == ["new_game"] + ["move"] * 4
    other.close()


def test_revised_and_taken_back_moves(store: Store) -> None:
    game = played_game(MOVES[:3])
    gid = store.new_game(game)
    game.undo()
    game.play_text("f2-f3")  # the tracker revised the last move
    store.sync_game(gid, game, [("revised", {"move": "f2-f3"})])
    assert store.move_texts(gid) == ["d1-d4", "f4-e4", "f2-f3"]
    game.undo()
    game.undo()
    store.sync_game(gid, game, [("takeback", {})])
    assert store.move_texts(gid) == ["d1-d4"]


def test_resume_the_unfinished_game(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    s = Store(path)
    old = s.new_game(played_game([]))
    s.abandon(old)
    game = played_game()
    gid = s.new_game(game, ("Ann", "Bo"))
    s.close()
    s = Store(path)
    row = s.unfinished()
    assert row is not None and row.id == gid and row.plies == 4
    assert (row.attackers, row.defenders) == ("Ann", "Bo")
    loaded = s.load_game(gid)
    assert loaded.moves == MOVES and loaded.board.otn() == game.board.otn()
    assert s.game(old).reason == "abandoned"
    s.close()


def test_results_and_manual_endings_survive(store: Store) -> None:
    game = played_game()
    gid = store.new_game(game)
    game.resign("defenders")
    store.sync_game(gid, game, [("resign", {"side": "defenders"})])
    row = store.game(gid)
    assert (row.result, row.reason) == ("attackers", "resignation") and row.ended
    assert store.unfinished() is None
    again = store.load_game(gid)
    assert again.result == "attackers" and again.outcome().reason == "resignation"
    # a takeback reopens the game
    game.undo()
    store.sync_game(gid, game, [("takeback", {})])
    row = store.game(gid)
    assert row.result == "ongoing" and row.ended is None and row.plies == 3
    game2 = played_game([])
    gid2 = store.new_game(game2)
    game2.agree_draw()
    store.sync_game(gid2, game2)
    assert store.load_game(gid2).result == "draw"


def test_list_positions_and_exports(store: Store) -> None:
    gids = [store.new_game(played_game(MOVES[:k])) for k in (1, 4)]
    listed = store.list_games()
    assert [g.id for g in listed] == gids[::-1] and listed[0].plies == 4
    assert json.dumps(listed[0].to_json())
    pos = store.positions(gids[1])
    assert len(pos) == 5 and pos[0]["move"] is None and pos[3]["move"] == "f2-f4xe4"
    assert pos[-1]["position"] == played_game().board.otn()
    csv = game_csv(store, gids[1])  # exports live above the store (companion.session.export)
    assert csv.endswith("\nd1-d4 f4-e4 f2-f4xe4 e5-e3,1,0,Ongoing\n")
    from companion.rules.records import read_records

    assert len(read_records(csv)) == 1  # the # header lines do not stop `rules replay`
    with pytest.raises(StoreError):
        store.game(999)
    try:
        otg = game_otg(store, gids[1])
    except StoreError as exc:  # the OpenTafl writer is not installed
        assert "not available" in str(exc)
    else:
        assert "1. d1-d4 f4-e4" in otg and "[attackers:Player 1]" in otg
        from companion.rules.otg import import_otg

        assert import_otg(otg).game.moves == MOVES


KILLER = """
import sys, time
from companion.store import Store
from companion.rules import get_variant
from companion.rules.game import Game
s = Store(sys.argv[1])
g = Game(get_variant("copenhagen"))
gid = s.new_game(g)
for text in ["d1-d4", "f4-e4", "f2-f4", "e5-e3", "h1-h3", "g5-g3"]:
    g.play_text(text)
    s.sync_game(gid, g, [("move", {"move": text})])
    print(text, flush=True)
time.sleep(60)
"""


def test_committed_moves_survive_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "k.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", KILLER, str(path)], stdout=subprocess.PIPE,
                            text=True)
    printed = [proc.stdout.readline().strip() for _ in range(6)]
    proc.kill()
    proc.wait()
    time.sleep(0.05)
    s = Store(path)
    assert [t.split("x")[0] for t in s.move_texts(1)] == printed
    s.close()


V1_SCHEMA = """
CREATE TABLE games (id INTEGER PRIMARY KEY, variant TEXT NOT NULL, start_position TEXT NOT NULL,
    start_turn TEXT NOT NULL, started REAL NOT NULL, ended REAL,
    result TEXT NOT NULL DEFAULT 'ongoing', reason TEXT,
    attackers TEXT NOT NULL DEFAULT 'Player 1', defenders TEXT NOT NULL DEFAULT 'Player 2');
CREATE TABLE moves (game_id INTEGER NOT NULL REFERENCES games(id), ply INTEGER NOT NULL,
    side TEXT NOT NULL, frm TEXT NOT NULL, dest TEXT NOT NULL, captured TEXT NOT NULL,
    text TEXT NOT NULL, t REAL NOT NULL, PRIMARY KEY (game_id, ply));
CREATE TABLE events (id INTEGER PRIMARY KEY, game_id INTEGER REFERENCES games(id),
    t REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);
INSERT INTO games (variant, start_position, start_turn, started, attackers, defenders)
    VALUES ('copenhagen', '/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/',
            'attackers', 1.0, 'Ann', 'Bo');
INSERT INTO moves VALUES (1, 1, 'attackers', 'd1', 'd4', '[]', 'd1-d4', 2.0);
INSERT INTO events (game_id, t, kind, data) VALUES (1, 2.0, 'move', '{"move": "d1-d4"}');
"""


def test_a_first_release_store_is_migrated_forward(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA)
    con.close()
    s = Store(path)
    assert s.pragma("user_version") == SCHEMA_VERSION
    row = s.unfinished()
    assert row is not None and row.players()["attackers"] == {"kind": "board", "name": "Ann"}
    assert s.load_game(row.id).moves == ["d1-d4"] and s.moves(row.id)[0]["left"] is None
    game = s.load_game(row.id)
    game.play_text("f4-e4")
    s.sync_game(row.id, game, [("move", {"move": "f4-e4"})])
    assert s.move_texts(row.id) == ["d1-d4", "f4-e4"]
    s.close()
    assert Store(path).pragma("user_version") == SCHEMA_VERSION  # opening again: no change


def test_a_newer_store_is_refused_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreOpenError, match="made by a newer tafl-companion"):
        Store(path)
    assert path.read_bytes() == before


def test_event_rows_keep_their_wall_time(store: Store) -> None:
    gid = store.new_game(Game(get_variant("copenhagen")), t=1000.0)
    store.sync_game(gid, Game(get_variant("copenhagen")),
                    [("illegal", {"t": 3.5, "reason": "x"}, 1234.5)])
    row = store.events(gid)[-1]
    assert row["t"] == 1234.5 and row["kind"] == "illegal" and row["reason"] == "x"


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:50])


def _corrupt_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for i in range(4096 + 100, len(data), 7):  # scribble over every page after the first
        data[i] = 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_truncate, _corrupt_pages,
                                    lambda p: p.write_bytes(b"not a database at all" * 50)])
def test_a_damaged_store_is_refused_then_moved_aside_on_request(tmp_path: Path, damage) -> None:
    path = tmp_path / "games.sqlite3"
    s = Store(path)
    for k in range(30):  # a few pages of data
        s.new_game(played_game(MOVES), ("Ann" * 20, f"Bo{k}"))
    s.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    damage(path)
    broken = path.read_bytes()
    with pytest.raises(StoreDamaged) as err:
        Store(path)
    assert "--reset-store" in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == broken  # untouched
    logged: list[str] = []
    fresh = Store(path, reset=True, log=logged.append)
    assert fresh.latest() is None and "moved it aside" in logged[0]
    fresh.close()
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == broken  # kept, never deleted


def test_data_dir_problems_are_one_clear_line(tmp_path: Path) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(StoreOpenError, match="is a file, not a directory"):
        Store(afile / "games.sqlite3")
    (tmp_path / "d" / "games.sqlite3").mkdir(parents=True)
    with pytest.raises(StoreOpenError, match="is a directory, not a database file"):
        Store(tmp_path / "d" / "games.sqlite3")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files anyway")
def test_a_read_only_store_is_refused(tmp_path: Path) -> None:
    Store(tmp_path / "games.sqlite3").close()
    os.chmod(tmp_path, 0o500)
    try:
        with pytest.raises(StoreOpenError, match="not writable|read-only"):
            Store(tmp_path / "games.sqlite3")
    finally:
        os.chmod(tmp_path, 0o700)


def test_a_read_only_mount_is_refused(tmp_path: Path) -> None:
    """A real read-only bind mount when this machine allows mounts (root in CI)."""
    from fault_fs import mount_or_skip

    data = tmp_path / "data"
    data.mkdir()
    Store(data / "games.sqlite3").close()
    with mount_or_skip(data, "bind,ro"):
        with pytest.raises(StoreOpenError, match="read-only|not writable") as err:
            Store(data / "games.sqlite3")
        assert "\n" not in str(err.value)


def test_a_full_disk_at_start_is_refused(tmp_path: Path) -> None:
    from fault_fs import fill, mount_or_skip

    data = tmp_path / "data"
    data.mkdir()
    with mount_or_skip(data, "tmpfs", size="256k"):
        fill(data)
        with pytest.raises(StoreOpenError, match="disk is full|cannot write|No space") as err:
            Store(data / "games.sqlite3")
        assert "\n" not in str(err.value)
