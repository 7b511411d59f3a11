"""The evaluation: its fast form is exactly the weights' dot product with the features that
bench/tune.py fits, for every preset."""

from __future__ import annotations

import random

import pytest

from companion.engine.evaluate import FEATURES, Evaluator, Weights, default_weights
from companion.engine.position import ATT, Position
from companion.rules import PRESETS, Board


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_evaluate_is_the_dot_product_of_weights_and_features(variant):
    rules = PRESETS[variant]
    rng = random.Random(5)
    weights = Weights(*[rng.randint(-60, 60) for _ in FEATURES])
    ev = Evaluator(rules, weights)
    pos = Position.from_board(Board(rules))
    for _ in range(60):
        moves = pos.moves()
        if not moves:
            break
        pos.make(rng.choice(moves))
        if pos.result is not None:
            break
        dot = sum(getattr(weights, n) * f for n, f in zip(FEATURES, ev.features(pos), strict=True))
        score = ev.evaluate(pos)
        assert dot == (score if pos.side == ATT else -score)


def test_default_weights_value_defenders_by_the_armies():
    assert default_weights(PRESETS["copenhagen"]).defender > 100
    assert default_weights(PRESETS["brandubh"]).attacker == 100


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_line_fills_agree_with_the_kings_own_moves(variant):
    """``escape_lines`` (line fills over the whole board) names exactly the squares from which
    the king, moving by his own rules, would reach an escape square: checked against his
    generated moves from every square he can reach now, and two moves away, in random
    positions."""
    rules = PRESETS[variant]
    rng = random.Random(11)
    ev = Evaluator(rules)
    pos = Position.from_board(Board(rules))
    escape = ev.escape
    checked = 0
    for _ in range(150):
        moves = pos.moves()
        if not moves:
            break
        pos.make(rng.choice(moves))
        if pos.result is not None or pos.king < 0:
            break
        king = pos.king
        lines = pos.king_lines()
        occ, occT = pos.occupied ^ 1 << king, pos.occT() ^ ev.t.tbit[king]
        e1, e2 = ev.escape_lines(pos, need_e2=True)
        kd = pos.destinations_bb(king, lines, pos.occupied, pos.occT())
        for d in ev.t.geo.iter_bits(kd & ~escape):
            reach = pos.destinations_bb(d, lines, occ, occT)
            assert bool(e1 >> d & 1) == bool(reach & escape), (variant, d)
            one_more = any(pos.destinations_bb(d2, lines, occ, occT) & escape
                           for d2 in ev.t.geo.iter_bits(reach & ~escape))
            assert bool(e2 >> d & 1) == (not reach & escape and one_more), (variant, d)
            checked += 1
    assert checked > 0
