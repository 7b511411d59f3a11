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


def test_copenhagen_plays_with_its_learned_weights():
    """weights/copenhagen.json (bench/train_eval.py): piece-square values for the 21 square
    classes of 11x11 per piece kind, and the reach terms; presets without a file keep theirs."""
    from companion.engine.evaluate import class_count, learned_weights

    w = default_weights(PRESETS["copenhagen"])
    assert w == learned_weights("copenhagen")
    assert len(w.pst) == 3 * class_count(11) == 63 and w.king_corners and w.def_edge
    assert not default_weights(PRESETS["copenhagen-13"]).pst
    ev = Evaluator(PRESETS["copenhagen"])
    pos = Position.from_board(Board(PRESETS["copenhagen"]))
    features = ev.pst_features(pos)
    assert sum(features[:21]) == 24 and sum(features[21:42]) == -12 and features[42] == 0
    assert features[62] == -1  # the king on the throne: the centre's class


def test_piece_square_values_must_fit_the_board():
    with pytest.raises(ValueError, match="pst"):
        Evaluator(PRESETS["brandubh"], Weights(pst=(1, 2, 3)))


@pytest.mark.parametrize("variant", ["copenhagen", "copenhagen-13", "brandubh", "fetlar"])
def test_corner_zones_are_the_dot_product_of_their_weights_and_counts(variant):
    """The learned corner zones: the score is the weights times how many attackers and
    defenders stand on each zone class, in the band of the king's distance, plus the seals."""
    from companion.engine.evaluate import ZONE_BANDS, ZONE_SIZE

    rules = PRESETS[variant]
    rng = random.Random(7)
    zone = tuple(rng.randint(-90, 90) for _ in range(ZONE_BANDS * ZONE_SIZE))
    base = Evaluator(rules, default_weights(rules))
    ev = Evaluator(rules, default_weights(rules).scaled(zone=zone))
    pos = Position.from_board(Board(rules))
    for _ in range(80):
        moves = pos.moves()
        if not moves or pos.king < 0:
            break
        pos.make(rng.choice(moves))
        if pos.result is not None:
            break
        counts = ev.zone_features(pos)
        dot = sum(w * c for w, c in zip(zone, counts, strict=True))
        plain = base.evaluate(pos)
        assert ev.evaluate(pos) - plain == (dot if pos.side == ATT else -dot)


def test_a_full_diagonal_of_attackers_seals_a_corner():
    from companion.engine.evaluate import ZONE_CLASSES, ZONE_SIZE

    rules = PRESETS["copenhagen"]
    ev = Evaluator(rules)
    # attackers added on a3, b2 and c1 seal a1; the king on the throne is far from it (band 2)
    from companion.rules.otn import format_otn
    from companion.squares import parse_square

    start = Board(rules)
    att = start.att
    for name in ("a3", "b2", "c1"):
        att |= 1 << parse_square(name, 11)
    board = Board(rules, format_otn(att, start.dfn, start.king, 11), "attackers")
    counts = ev.zone_features(Position.from_board(board))
    sealed = [counts[band * ZONE_SIZE + 2 * len(ZONE_CLASSES)] for band in range(3)]
    assert sealed == [0, 0, 1]


def test_corner_zones_must_fit_the_rules():
    with pytest.raises(ValueError, match="zone"):
        Evaluator(PRESETS["copenhagen"], Weights(zone=(1, 2, 3)))
    with pytest.raises(ValueError, match="no corner zones"):
        Evaluator(PRESETS["tablut"], Weights(zone=(0,) * 57))
