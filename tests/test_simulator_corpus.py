"""Corpus games through simulator -> replay, with noise: the tracker must report exactly the
recorded moves and the rules' result, flag exactly what the simulated players did wrong, and
accept every move within 0.3 s of its piece settling."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from companion.replay import run_trace, summary
from companion.rules import get_variant
from companion.rules.records import read_records, replay_record
from companion.simulator import simulate_record
from companion.trace import parse_trace
from companion.tracker.core import path

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


def latencies_ok(trace, events) -> list[str]:
    changes: dict[str, list[float]] = {}
    for before, after in zip(trace.scans, trace.scans[1:]):
        for sq in before.occupied ^ after.occupied:
            changes.setdefault(sq, []).append(after.t)
    bad = []
    flagged = False
    for e in events:
        if e.kind == "illegal":
            flagged = True
        if e.kind in ("move", "revised"):
            squares = path(e.data["from"], e.data["to"], trace.rules.size)
            settled = max(t for s in squares for t in changes.get(s, []) if t <= e.t)
            if not flagged and e.t - settled > 0.3 + 1e-9:
                bad.append(f"{e.data['move']} at {e.t} settled {settled}")
            flagged = False
    return bad


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
        tracker, events = run_trace(trace)
        got = summary(tracker, events)
        expect = json.loads(lines[0])["expect"]
        assert expect["moves"] == list(moves) and expect["result"] == result
        if got != expect:
            failures.append(f"game {number} ({noise}): got {got}, want {expect}")
        failures += [f"game {number} ({noise}): late {b}" for b in latencies_ok(trace, events)]
    assert not failures, "\n".join(failures[:10])


def read_records_line(variant: str, number: int):
    return read_records((DATA / f"{variant}.csv").read_text())[number - 1]


def test_at_least_100_games_are_covered():
    assert len(games("copenhagen")) + len(games("brandubh")) >= 100
