"""The engine's search position agrees with the rules core's Board move by move: legal moves,
captures, results (escape, capture, fort, encirclement, repetition, no moves) and Zobrist keys,
over seeded random games of every preset, with make/unmake round trips."""

from __future__ import annotations

import random

import pytest

from companion.engine.position import ATT, DEF, Position, move_text, parse_move
from companion.rules import PRESETS, Board, Move


def _result(board: Board):
    o = board.outcome()
    if o is None:
        return None
    return (None if o.winner is None else (ATT if o.winner == "attackers" else DEF), o.reason)


def _state(p: Position):
    return (p.att, p.dfn, p.king, p.side, p.key, p.result, list(p.hist), p.king_left)


def walk(rules, seed: int, plies: int, repeat: float) -> set[str]:
    """Play ``plies`` random moves through both; ``repeat`` is the chance to play a move back
    (which makes repetitions). Returns the reasons of the games' ends seen."""
    rng = random.Random(seed)
    board = Board(rules)
    pos = Position.from_board(board)
    last: dict[int, int] = {}
    ends = set()
    for ply in range(plies):
        want = sorted(m.frm << 9 | m.to for m in board.legal_moves())
        assert sorted(pos.moves()) == want, (rules.id, seed, ply)
        # as the engine sees the board before each of its moves (tablut-linnaeus's king was
        # let back onto the throne there, once he had left it)
        assert sorted(Position.from_board(board).moves()) == want, (rules.id, seed, ply)
        assert _result(board) == pos.outcome(), (rules.id, seed, ply)
        if _result(board) is not None:
            ends.add(_result(board)[1])
            break
        back = last.get(pos.side)
        if back is not None and back in want and rng.random() < repeat:
            move = back
        else:
            move = rng.choice(want)
        before = _state(pos)
        captured = pos.make(move)
        pos.unmake()
        assert _state(pos) == before, "unmake restores the position"
        assert pos.make(move) == captured
        assert board.push(Move(move >> 9, move & 511)) == captured, move_text(pos.geo, move)
        assert pos.key == pos.compute_key()
        assert (pos.att, pos.dfn, pos.king) == (board.att, board.dfn, board.king)
        last[pos.side ^ 1] = (move & 511) << 9 | move >> 9
    return ends


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_random_games_agree_with_board(variant):
    rules = PRESETS[variant]
    ends = set()
    games = 6 if rules.size < 13 else 2
    for seed in range(games):
        ends |= walk(rules, seed, 250, repeat=0.0)
        ends |= walk(rules, 1000 + seed, 250, repeat=0.7)
    if rules.repetition != "off" and rules.size <= 9:
        assert "repetition" in ends


def test_results_of_every_kind_agree():
    """Seeded games long enough to end in each way a preset can end."""
    seen = {}
    for variant in ("brandubh", "copenhagen", "tablut", "fetlar", "ard-ri"):
        for seed in range(40):
            for reason in walk(PRESETS[variant], 77 + seed, 400, repeat=0.3):
                seen.setdefault(reason, variant)
    assert {"escape", "king_captured", "repetition"} <= set(seen), seen


def test_position_from_board_keeps_history_and_result():
    rules = PRESETS["brandubh"]
    board = Board(rules)
    for text in ("d2-e2", "d3-c3", "e2-d2", "c3-d3", "d2-e2", "d3-c3", "e2-d2", "c3-d3"):
        board.push(board.parse_move(text)[0])
    pos = Position.from_board(board)
    assert pos.result == _result(board) == (ATT, "repetition")
    board.pop()
    pos = Position.from_board(board)
    assert pos.outcome() is None
    pos.make(parse_move(pos.geo, "c3-d3"))
    assert pos.result == (ATT, "repetition")


def test_encirclement_and_no_moves_scored_like_board():
    rules = PRESETS["brandubh"]
    # the defenders' only piece boxed in by attackers: encirclement after the closing move
    board = Board(rules, "/1t5/7/7/t1t4/tKt4/1t5/7/", "attackers")
    pos = Position.from_board(board)
    assert pos.outcome() is None
    move = parse_move(pos.geo, "b1-b3")
    pos.make(move)
    board.push(Move(move >> 9, move & 511))
    assert pos.result == _result(board) == (ATT, "encirclement")
    # no legal move at all for the defenders: a loss in brandubh
    board = Board(rules, "/7/7/t6/Kt5/t6/7/7/", "defenders")
    pos = Position.from_board(board)
    assert pos.moves() == [] and pos.outcome() == _result(board) == (ATT, "no_moves")
