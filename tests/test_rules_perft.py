"""Perft: leaf counts of the legal-move tree, fast counter versus the push/pop reference.

Expected figures live in ``tests/data/perft.json`` (start positions; see its note for how they
were derived) and ``tests/positions/midgame.json`` (hand-built mid-game positions). Symmetry
checks transform positions by the 8 symmetries of the square, written here independently of the
core's OTN code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_helpers import cells, playout, transform, write

from companion.rules import PRESETS, Board, get_variant
from companion.rules.perft import perft, perft_slow

HERE = Path(__file__).parent
PERFT = json.loads((HERE / "data" / "perft.json").read_text())
MIDGAME = json.loads((HERE / "positions" / "midgame.json").read_text())["positions"]


def random_position(variant: str, plies: int, seed: int) -> Board:
    """A position reached by ``plies`` seeded random legal moves from the start, stopping
    before the game ends; returned as a fresh Board (no history)."""
    b = playout(get_variant(variant), seed, plies)
    return Board(b.rules, b.otn(), b.turn)


# -- start positions ---------------------------------------------------------------------------


def test_issue_2_figures():
    """The figures given by the issue, written out here as well as in perft.json."""
    for variant, want in {
        "copenhagen": [116, 6788, 806344],
        "brandubh": [40, 960, 39512],
        "tablut-linnaeus": [80, 4400, 353200],
    }.items():
        assert PERFT["issue_2"][variant] == want
        assert [perft(Board(PRESETS[variant]), d) for d in (1, 2, 3)] == want


def test_every_preset_has_start_figures():
    assert set(PERFT["start"]) == set(PRESETS)
    for variant, figures in PERFT["start"].items():
        assert len(figures) >= (2 if PRESETS[variant].size == 19 else 3), variant


@pytest.mark.parametrize("variant", list(PRESETS))
def test_perft_from_the_start(variant):
    rules = PRESETS[variant]
    for depth, want in enumerate(PERFT["start"][variant], 1):
        assert perft(Board(rules), depth) == want, (variant, depth)


@pytest.mark.parametrize("variant", list(PRESETS))
def test_perft_slow_agrees_from_the_start_to_depth_2(variant):
    rules = PRESETS[variant]
    for depth in (1, 2):
        assert perft_slow(Board(rules), depth) == PERFT["start"][variant][depth - 1]


@pytest.mark.parametrize("variant", ["brandubh", "ard-ri", "tablut"])
def test_perft_slow_agrees_from_the_start_at_depth_3(variant):
    assert perft_slow(Board(PRESETS[variant]), 3) == PERFT["start"][variant][2]


@pytest.mark.parametrize("variant", list(PRESETS))
def test_start_positions_are_symmetric(variant):
    rules = PRESETS[variant]
    assert {transform(rules.start, rules.size, k) for k in range(8)} == {
        write(cells(rules.start, rules.size))
    }


def test_perft_depth_zero_negative_and_finished():
    b = Board(PRESETS["brandubh"])
    assert perft(b, 0) == 1 and perft_slow(b, 0) == 1
    with pytest.raises(ValueError):
        perft(b, -1)
    # the king has been captured: a finished game is one leaf, never expanded
    done = Board(PRESETS["brandubh"], "/3t3/3t3/7/tt3tt/7/3t3/3t3/")
    assert done.outcome() is not None
    assert perft(done, 3) == 1 and perft_slow(done, 3) == 1


def test_transform_is_a_group_action():
    pos = MIDGAME[0]["position"]
    n = 11
    assert transform(pos, n, 0) == pos
    assert len({transform(pos, n, k) for k in range(8)}) == 8  # the position is asymmetric
    for k in range(8):
        twice = transform(transform(pos, n, k), n, k)
        if k in (5, 6):  # the quarter turns: order 4
            assert twice != pos
            assert transform(transform(twice, n, k), n, k) == pos
        else:  # mirrors, the half turn, the two diagonal reflections: involutions
            assert twice == pos


# -- mid-game positions ------------------------------------------------------------------------


@pytest.mark.parametrize("case", MIDGAME, ids=[f"{c['variant']}: {c['name']}" for c in MIDGAME])
def test_midgame_perft(case):
    rules = get_variant(case["variant"])
    board = Board(rules, case["position"], case["turn"])
    assert board.outcome() is None
    for depth, want in enumerate(case["perft"], 1):
        assert perft(board, depth) == want, depth
    for depth in (1, 2) if rules.size > 9 else (1, 2, 3):
        assert perft_slow(board, depth) == case["perft"][depth - 1], depth


@pytest.mark.parametrize("case", MIDGAME, ids=[f"{c['variant']}: {c['name']}" for c in MIDGAME])
def test_midgame_perft_is_invariant_under_symmetry(case):
    rules = get_variant(case["variant"])
    for k in range(1, 8):
        board = Board(rules, transform(case["position"], rules.size, k), case["turn"])
        assert len(board.legal_moves()) == case["perft"][0], k
        assert perft(board, 2) == case["perft"][1], k


@pytest.mark.parametrize("variant", list(PRESETS))
def test_random_positions_fast_equals_slow_and_symmetric(variant):
    rules = PRESETS[variant]
    for seed in range(2):
        board = random_position(variant, 24 + 8 * seed, seed)
        fast = perft(board, 2)
        assert perft_slow(board, 2) == fast, (seed, board.otn(), board.turn)
        for k in range(1, 8):
            other = Board(rules, transform(board.otn(), rules.size, k), board.turn)
            assert perft(other, 2) == fast, (seed, k, board.otn())
