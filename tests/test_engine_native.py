"""The native core (companion/engine/native/tafl.c) against the pure-Python engine, its
reference, move by move: legal moves (perft), Zobrist keys, captures (shieldwalls included),
results (escape, king capture, exit forts, encirclement, repetition, no moves), evaluations,
make/unmake round trips, and searches at a fixed depth (same move, score and node count).

A machine without a C compiler has no native core: these tests then fail in CI (CI=true), where
the install builds it, and are skipped elsewhere."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.engine import native
from companion.engine.deepening import Info
from companion.engine.player import Engine, make_searcher
from companion.engine.position import Position
from companion.engine.search import Limits, Searcher
from companion.rules import PRESETS, Board
from companion.rules import Position as RulesPosition
from companion.rules.records import read_records

ok, why = native.available()
if not ok and not os.environ.get("CI"):
    pytest.skip(f"no native core here: {why}", allow_module_level=True)

DATA = Path(__file__).parent / "data"
SUPPORTED = sorted(name for name, rules in PRESETS.items() if native.supported(rules) is None)


def test_every_preset_but_the_linnaean_one_is_native():
    assert ok, why
    assert set(PRESETS) - set(SUPPORTED) == {"tablut-linnaeus"}


def walk(rules, pos: Position, core: native.NativeCore, move: int) -> None:
    """Play ``move`` in both and compare everything a search relies on."""
    geo = pos.t.geo
    captured = pos.make(move)
    assert core.make(move) == sorted(geo.iter_bits(captured)), "captures"
    assert core.key == pos.key, "Zobrist key"
    expected = None if pos.result is None else (pos.result[0], str(pos.result[1]))
    assert core.result() == expected, "result"


def same_now(pos: Position, core: native.NativeCore, ev) -> None:
    assert sorted(core.moves()) == sorted(pos.moves()), "legal moves"
    if pos.result is None:
        assert core.evaluate() == ev.evaluate(pos), "evaluation"


@pytest.mark.parametrize("preset", SUPPORTED)
def test_random_games_agree_move_by_move(preset):
    rules = PRESETS[preset]
    core = native.NativeCore(rules)
    ev = core.evaluator
    for seed in range(3):
        rng = random.Random(f"{preset}-{seed}")
        pos = Position.from_board(Board(rules))
        core.set_position(pos)
        keys = [pos.key]
        while pos.result is None and len(keys) < 400:
            same_now(pos, core, ev)
            moves = pos.moves()
            if not moves:
                break
            walk(rules, pos, core, rng.choice(moves))
            keys.append(pos.key)
        # unmake everything: back to the start, key by key
        while len(keys) > 1:
            keys.pop()
            pos.unmake()
            core.unmake()
            assert core.key == pos.key == keys[-1]
        same_now(pos, core, ev)


@pytest.mark.parametrize("variant", ["copenhagen", "brandubh"])
def test_real_games_agree_move_by_move(variant):
    """Every 8th game of the corpus (real play: shieldwalls, exit forts, encirclements)."""
    rules = PRESETS[variant]
    core = native.NativeCore(rules)
    ev = core.evaluator
    records = read_records((DATA / f"{variant}.csv").read_text())[::8]
    reasons: set[str] = set()
    for record in records:
        board = Board(rules)
        pos = Position.from_board(board)
        core.set_position(pos)
        for text in record.moves:
            try:
                move, _ = board.parse_move(text)
            except ValueError:
                break
            if not board.is_legal(move):
                break
            board.push(move)
            same_now(pos, core, ev)
            walk(rules, pos, core, move.frm << 9 | move.to)
            if pos.result is not None:
                reasons.add(str(pos.result[1]))
                break
    assert reasons  # decided games were among them


@pytest.mark.parametrize("preset", ["copenhagen", "brandubh", "tablut", "alea-evangelii"])
def test_perft_agrees(preset):
    rules = PRESETS[preset]
    core = native.NativeCore(rules)
    core.set_position(Position.from_board(Board(rules)))
    pos = Position.from_board(Board(rules))

    def perft(depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for m in pos.moves():
            pos.make(m)
            total += 1 if depth == 1 else (0 if pos.result else perft(depth - 1))
            pos.unmake()
        return total

    depth = 2 if preset == "alea-evangelii" else 3
    assert core.perft(depth) == perft(depth)


def positions(preset: str, count: int) -> list[Board]:
    rules = PRESETS[preset]
    out = []
    rng = random.Random(preset)
    while len(out) < count:
        board = Board(rules)
        for _ in range(rng.randint(4, 40)):
            board.push(rng.choice(board.legal_moves()))
            if board.outcome() is not None:
                board.pop()
                break
        out.append(board)
    return out


@pytest.mark.parametrize("preset", ["copenhagen", "brandubh", "tablut", "ard-ri"])
def test_searches_at_a_fixed_depth_agree(preset):
    rules = PRESETS[preset]
    for board in positions(preset, 3):
        py = Searcher(rules)
        na = native.NativeSearcher(rules, tt_entries=8_000_000)
        a = py.search(Position.from_board(board), Limits(depth=4))
        b = na.search(Position.from_board(board), Limits(depth=4))
        assert (b.move, b.score, b.depth, b.nodes) == (a.move, a.score, a.depth, a.nodes)
        assert b.pv[0] == a.pv[0]


def test_one_searcher_kept_over_many_searches_plays_as_fresh_ones():
    """The native core keeps evaluations in a table by the position's key (evaluate.c): one
    searcher reused over the positions of several games, both sides to move, gives every search
    the same move, score and node count as a fresh Python searcher. A table whose key left out
    the side to move would change them (checked: the test then fails)."""
    rules = PRESETS["copenhagen"]
    na = native.NativeSearcher(rules, tt_entries=8_000_000)
    boards = positions("copenhagen", 3)
    for board in boards + boards[:1]:
        for side_board in (board, Board(rules, board.otn(), board.turn.opponent.value)):
            if side_board.outcome() is not None:
                continue
            na.new_game()
            a = Searcher(rules).search(Position.from_board(side_board), Limits(depth=3))
            b = na.search(Position.from_board(side_board), Limits(depth=3))
            assert (b.move, b.score, b.nodes) == (a.move, a.score, a.nodes)


def test_every_root_score_agrees_without_pruning():
    """Exact scores of every root move (no pruning, no TT cut-offs): the same minimax."""
    rules = PRESETS["copenhagen"]
    for board in positions("copenhagen", 2):
        searchers = (Searcher(rules), native.NativeSearcher(rules))
        for s in searchers:
            s.lmp, s.futility, s.null_move, s.lmr, s.tt_cutoffs = (), (), False, False, False
        a, b = (s.search(Position.from_board(board), Limits(depth=2, multipv=500))
                for s in searchers)
        assert b.root_scores == a.root_scores


def test_the_engine_plays_native_where_it_can_and_python_where_it_cannot():
    assert isinstance(make_searcher(PRESETS["copenhagen"]), native.NativeSearcher)
    assert isinstance(make_searcher(PRESETS["tablut-linnaeus"]), Searcher)
    assert isinstance(make_searcher(PRESETS["copenhagen"], native=False), Searcher)
    with pytest.raises(ValueError, match="Linnaean"):
        make_searcher(PRESETS["tablut-linnaeus"], native=True)
    # both play the same move at a level that stops at a depth
    board = positions("brandubh", 1)[0]
    moves = {Engine(PRESETS["brandubh"], 4, native=flag).choose(board).move
             for flag in (False, True)}
    assert len(moves) == 1


def test_a_stop_ends_a_native_search_at_once():
    """The core asks for the stop every 16,384 nodes: once the event is set (after its third
    iteration) a search given an hour returns within that many (counted, not timed)."""
    rules = PRESETS["copenhagen"]
    stop = threading.Event()
    searcher = native.NativeSearcher(rules)
    stopped_at: list[int] = []

    def on_info(info: Info) -> None:
        if info.depth >= 3 and not stop.is_set():
            stopped_at.append(info.nodes)
            stop.set()

    res = searcher.search(Position.from_board(Board(rules)), Limits(seconds=3600, stop=stop),
                          on_info=on_info)
    assert stopped_at and res.move is not None
    assert res.nodes - stopped_at[0] <= 16384


def test_turned_off_it_falls_back_to_python():
    code = ("from companion.engine import native, Engine; from companion.rules import PRESETS;"
            "print(native.available()[0], type(Engine(PRESETS['brandubh']).searcher).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "TAFL_NATIVE": "0"}, check=True).stdout.split()
    assert out == ["False", "Searcher"]


def test_a_stale_or_missing_library_is_built_from_the_source(tmp_path):
    target = tmp_path / "tafl.so"
    assert native.compile_library(target) is None
    assert native._open(target) is not None


def test_without_a_compiler_the_engine_plays_in_python(tmp_path):
    """No library beside the module and a C compiler that cannot run (CC names a missing
    program): no exception, the reason said, and the engine plays a move in pure Python."""
    code = (
        "from companion.engine import native\n"
        "native._candidates = lambda: []\n"
        "from companion.engine import Engine\n"
        "from companion.rules import PRESETS, Board\n"
        "e = Engine(PRESETS['brandubh'], 2)\n"
        "print(native.available()[0], '|', native.available()[1], '|',"
        " type(e.searcher).__name__, '|', e.choose(Board(PRESETS['brandubh'])).move)\n")
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "XDG_CACHE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split(" | ")
    assert out[0] == "False"
    assert "could not run" in out[1] and "no-such-cc" in out[1]
    assert out[2] == "Searcher"
    assert "-" in out[3]


@pytest.mark.parametrize("preset", ["copenhagen", "brandubh", "copenhagen-13"])
def test_corner_zones_agree_move_by_move_and_in_a_search(preset):
    """The learned corner zones (Weights.zone) in C and in Python: the same evaluation in
    random games, and the same move, score and node count at a fixed depth."""
    from companion.engine.evaluate import ZONE_BANDS, ZONE_SIZE, default_weights

    rules = PRESETS[preset]
    rng = random.Random(preset)
    weights = default_weights(rules).scaled(
        zone=tuple(rng.randint(-90, 90) for _ in range(ZONE_BANDS * ZONE_SIZE)))
    cores_agree(preset, weights, depth=3)


@pytest.mark.parametrize("preset", ["copenhagen", "brandubh", "copenhagen-13", "alea-evangelii"])
def test_the_defenders_room_agrees_move_by_move_and_in_a_search(preset):
    """``def_space`` (every square the defenders could walk to) and ``def_edge`` (the edge
    squares among them) in C and in Python: the same evaluation in random games, on one-word,
    two-word and many-word boards, and the same move, score and nodes at a fixed depth."""
    from companion.engine.evaluate import FEATURES, default_weights

    rules = PRESETS[preset]
    weights = default_weights(rules).scaled(def_space=7, def_edge=13)
    rooms = cores_agree(preset, weights, depth=2, feature=FEATURES.index("def_space"))
    assert len(rooms) > 3, rooms  # the room changed as the games went on


# the king sealed in by a double diamond of attackers (no escape square within his walk, and
# none after one attacker leaves either ring), three defenders outside it still on the edge:
# no encirclement yet, defenders to move
SEALED_KING = "/5t5/8T2/1T3t5/4ttt4/3ttTtt3/2ttTK1tt2/3ttTtt3/4ttt4/5t5/8T2/6t4/"


@pytest.mark.parametrize("weight", [0, 9])
def test_the_sealed_kings_room_agrees_move_by_move_and_in_a_search(weight):
    """``sealed_off`` (the squares outside the defenders' room, once the king is sealed in) in C
    and in Python, with ``def_edge`` and ``def_space`` walking the room too (weight 9) or not (0):
    the same evaluation in random games from a sealed king, and the same search."""
    from companion.engine.evaluate import FEATURES, default_weights

    rules = PRESETS["copenhagen"]
    start = Board.from_position(rules, RulesPosition.parse(SEALED_KING + " defenders"))
    weights = default_weights(rules).scaled(sealed_off=11, def_space=weight, def_edge=weight)
    rooms = cores_agree("copenhagen", weights, depth=2, feature=FEATURES.index("sealed_off"),
                        start=start)
    assert max(rooms) > 0, rooms  # the term was on: the king stayed sealed a while


def moved(board: Board, plies: int) -> Board:
    """``board`` after ``plies`` seeded random moves (fewer if the game ends)."""
    out = board.copy()
    rng = random.Random(plies)
    for _ in range(plies):
        out.push(rng.choice(out.legal_moves()))
        if out.outcome() is not None:
            out.pop()
            break
    return out


def cores_agree(preset: str, weights, depth: int, feature: int | None = None,
                start: Board | None = None) -> set[int]:
    """Two random games of ``preset`` (from ``start``, else the start) played in both cores
    with ``weights``: the same evaluation at every position; then the same move, score and
    nodes at ``depth`` from two random positions (``start`` and one a few moves on from it).
    The values the Python evaluator's ``feature`` took on the way."""
    rules = PRESETS[preset]
    core = native.NativeCore(rules, weights)
    ev = core.evaluator
    seen: set[int] = set()
    for seed in range(2):
        moves_rng = random.Random(seed)
        pos = Position.from_board(start.copy() if start else Board(rules))
        core.set_position(pos)
        for _ in range(300):
            same_now(pos, core, ev)
            if feature is not None:
                seen.add(ev.features(pos)[feature])
            moves = pos.moves()
            if pos.result is not None or not moves:
                break
            walk(rules, pos, core, moves_rng.choice(moves))
    boards = positions(preset, 2) if start is None else [start, moved(start, 6)]
    for board in boards:
        py = Searcher(rules, weights)
        na = native.NativeSearcher(rules, weights, tt_entries=8_000_000)
        a = py.search(Position.from_board(board), Limits(depth=depth))
        b = na.search(Position.from_board(board), Limits(depth=depth))
        assert (b.move, b.score, b.depth, b.nodes) == (a.move, a.score, a.depth, a.nodes)
    return seen
