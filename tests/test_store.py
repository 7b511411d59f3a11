"""The SQLite game store: durability settings, one transaction per move, resume, exports."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.rules import get_variant
from companion.rules.game import Game
from companion.store import Store, StoreError

MOVES = ["d1-d4", "f4-e4", "f2-f4xe4", "e5-e3"]


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "games.sqlite3")
    yield s
    s.close()


def played_game(moves=MOVES, variant="copenhagen") -> Game:
    g = Game(get_variant(variant))
    for m in moves:
        g.play(m)
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
        game.play(text)
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
    game.play("f2-f3")  # the tracker revised the last move
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
    assert store.export_csv(gids[1]) == "d1-d4 f4-e4 f2-f4xe4 e5-e3,1,0,Ongoing\n"
    with pytest.raises(StoreError):
        store.game(999)
    try:
        otg = store.export_otg(gids[1])
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
    g.play(text)
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
