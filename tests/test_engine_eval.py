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
