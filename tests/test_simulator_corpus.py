"""Corpus games through simulator -> replay, with noise: the tracker must report exactly the
recorded moves and the rules' result, flag exactly what the simulated players did wrong, and
accept every move within 0.3 s of its piece settling."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from companion.replay import acceptance_latencies, run_trace, summary
from companion.rules import get_variant
from companion.rules.records import read_records, replay_record
from companion.simulator import simulate_record
from companion.trace import parse_trace

DATA = Path(__file__).parent / "data" / "tracker"
GAMES_PER_VARIANT = 100


@cache
def games(variant: str) -> list[tuple[int, tuple[str, ...], str]]:
    """(record number, moves, rules result) of the first records the rules agree with."""
    rules = get_variant(variant)
    out = []
    for i, record in enumerate(read_records((DATA / f"{variant}.csv").read_text()), 1):
        game, problem = replay_record(rules, record)
        if problem is None and len(record.moves) >= 8:
            out.append((i, tuple(game.moves), game.result))  # normalised texts
        if len(out) == GAMES_PER_VARIANT:
            break
    return out


def late_moves(trace, events) -> list[str]:
    """Moves accepted more than 0.3 s after their piece settled."""
    return [f"{e.data['move']} at {e.t} settled {e.t - latency:.3f}"
            for e, latency in acceptance_latencies(trace, events) if latency > 0.3 + 1e-9]


@pytest.mark.parametrize("variant", ["copenhagen", "brandubh"])
def test_corpus_games_through_simulator_and_replay(variant):
    rules = get_variant(variant)
    chosen = games(variant)
    assert len(chosen) == GAMES_PER_VARIANT
    failures = []
    for n, (number, moves, result) in enumerate(chosen):
        noise = ("typical", "clumsy", "clean")[n % 3]
        lines = simulate_record(rules, read_records_line(variant, number), seed=number,
                                noise=noise)
        trace = parse_trace(lines)
        game, events = run_trace(trace)
        got = summary(game, events)
        expect = json.loads(lines[0])["expect"]
        assert expect["moves"] == list(moves) and expect["result"] == result
        if got != expect:
            failures.append(f"game {number} ({noise}): got {got}, want {expect}")
        failures += [f"game {number} ({noise}): late {b}" for b in late_moves(trace, events)]
    assert not failures, "\n".join(failures[:10])


def read_records_line(variant: str, number: int):
    return read_records((DATA / f"{variant}.csv").read_text())[number - 1]


def test_at_least_100_games_are_covered():
    assert len(games("copenhagen")) + len(games("brandubh")) >= 100
