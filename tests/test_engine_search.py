"""The search: forced wins found and played fast, the time budget kept, levels deterministic
under a seed, analysis lines legal."""

from __future__ import annotations

import threading
import time

import pytest

from companion.engine.deepening import Info
from companion.engine.levels import DEFAULT_LEVEL, LEVELS, get_level
from companion.engine.player import Engine
from companion.engine.position import Position, parse_move
from companion.engine.search import WIN, Limits, Searcher
from companion.rules import PRESETS, Board

BRANDUBH = PRESETS["brandubh"]


def test_escape_in_one_is_found_at_once():
    board = Board(BRANDUBH, "/7/7/7/K6/7/t6/3t3/", "defenders")
    choice = Engine(BRANDUBH, 10).choose(board, seconds=5)
    assert choice.move == "a4-a1" and choice.mate == 1
    # at once: the first iteration proves it and the search stops there, not at its 5 s
    # (counted in nodes: a wall-clock bound would fail on a busy machine; bench/bounds.py)
    assert choice.depth == 1 and choice.nodes < 100


def test_king_capture_in_one_is_found_at_once():
    board = Board(BRANDUBH, "/7/7/7/7/1tK2t1/7/3t3/", "attackers")
    choice = Engine(BRANDUBH, 10).choose(board, seconds=5)
    assert choice.move == "f5-d5" and choice.mate == 1
    assert choice.depth == 1 and choice.nodes < 200


def test_fork_mate_in_two_is_found_and_forced():
    """The king steps where two lines to corners open at once; no reply stops both."""
    board = Board(BRANDUBH, "/7/2K4/7/7/2t4/7/3t3/", "defenders")
    choice = Engine(BRANDUBH, 10).choose(board, seconds=5)
    assert choice.mate == 3 and choice.depth == 3 and choice.nodes < 2000
    board.push(board.parse_move(choice.move)[0])
    for reply in board.legal_moves():  # every answer leaves an escape in one
        board.push(reply)
        escapes = [m for m in board.legal_moves()
                   if board.preview(m)[1] == "defenders"] if board.outcome() is None else []
        assert escapes, f"{choice.move} then {board.name(reply.frm)}-{board.name(reply.to)}"
        board.pop()


def test_attackers_block_a_single_escape_line():
    board = Board(BRANDUBH, "/7/7/4t2/K6/7/t6/3t3/", "attackers")
    choice = Engine(BRANDUBH, 10).choose(board, seconds=1)
    board.push(board.parse_move(choice.move)[0])
    assert all(board.preview(m)[1] != "defenders" for m in board.legal_moves())


@pytest.mark.parametrize("variant", ["copenhagen", "tablut", "alea-evangelii"])
def test_time_budget_is_kept(variant):
    """Measured on the process's CPU clock (the search's own clock here, as in the benches):
    a CPU hog beside the tests slows the wall clock, not the CPU seconds the search may use.
    The wall-clock figure lives in bench/bounds.py."""
    rules = PRESETS[variant]
    engine = Engine(rules, 10)
    engine.searcher.use_cpu_clock()
    start = time.process_time()
    choice = engine.choose(Board(rules), seconds=0.6)
    used = time.process_time() - start
    # it uses its time, and stops on time (+10 %, and a little for the moves' bookkeeping)
    assert 0.45 <= used <= 0.6 * 1.1 + 0.1, used
    assert choice.depth >= 1


def test_stop_event_ends_the_search_at_once():
    """Stopped once its third iteration is done, a search given an hour returns within the
    128 nodes between two looks at the event (counted, not timed: bench/bounds.py times it)."""
    rules = PRESETS["copenhagen"]
    stop = threading.Event()
    stopped_at: list[int] = []

    def on_info(info: Info) -> None:
        if info.depth >= 3 and not stop.is_set():
            stopped_at.append(info.nodes)
            stop.set()

    res = Searcher(rules).search(Position.from_board(Board(rules)),
                                 Limits(seconds=3600, stop=stop), on_info=on_info)
    assert stopped_at and res.move is not None
    assert res.nodes - stopped_at[0] <= 128


@pytest.mark.parametrize("level", [1, 3, 5])
def test_levels_are_deterministic_under_a_seed(level):
    def game(seed: int) -> list[str]:
        board = Board(BRANDUBH)
        engine = Engine(BRANDUBH, level, seed=seed)
        moves = []
        for _ in range(8):
            if board.outcome() is not None:
                break
            choice = engine.choose(board)
            moves.append(choice.move)
            board.push(board.parse_move(choice.move)[0])
        return moves

    first = game(7)
    assert game(7) == first
    if level == 1:
        assert game(8) != first  # the seed matters where the level makes random mistakes


def test_levels_table():
    assert sorted(LEVELS) == list(range(1, 11))
    caps = [LEVELS[n].seconds for n in range(1, 11)]
    # a higher level never gets less time, so it stays stronger where the caps bind (a Pi)
    assert caps == sorted(caps) and caps[8] > caps[7]
    # the default level answers within 10 s on a Pi Zero 2 W, where its cap (+10 %) binds
    assert LEVELS[DEFAULT_LEVEL].seconds * 1.1 <= 10
    assert max(caps) <= 20
    with pytest.raises(ValueError):
        get_level(11)


def test_analysis_lines_are_legal_and_ranked():
    board = Board(PRESETS["tablut"])
    lines = Engine(PRESETS["tablut"], 10).analyze(board, 3, 0.5)
    assert len(lines) == 3
    scores = [s for _, s in lines]
    assert scores == sorted(scores, reverse=True)
    for moves, _ in lines:
        first = parse_move(Position.from_board(board).geo, moves[0])
        assert board.is_legal(board.parse_move(moves[0])[0]) and first


def test_scores_are_mates_only_when_forced():
    board = Board(BRANDUBH)
    choice = Engine(BRANDUBH, 9).choose(board, seconds=0.3)
    assert choice.mate is None and abs(choice.score) < WIN - 1000
