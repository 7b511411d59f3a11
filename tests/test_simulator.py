"""The human-and-sensor simulator: deterministic, valid traces, each behaviour present."""

from __future__ import annotations

import json

import pytest

from companion.replay import replay_trace
from companion.rules import get_variant
from companion.simulator import PROFILES, Profile, simulate_moves
from companion.trace import parse_trace

BRANDUBH = get_variant("brandubh")
# brandubh corpus game 203: ends with the king captured
GAME = ["d2-e2", "c4-c5", "b4-b3", "e4-e3", "f4-f5", "d4-f4", "a4-e4xe3"]
LONG = ["d2-e2", "c4-c5", "f4-f5", "d4-c4", "e2-d2xd3", "c4-c3", "f5-f4xe4", "c3-d3", "f4-f3",
        "d3-c3", "f3-d3", "c3-c4", "d6-e6", "c4-e4", "d3-e3"]


def test_same_seed_same_trace_and_seeds_differ():
    a = simulate_moves(BRANDUBH, GAME, seed=7, noise="clumsy")
    assert a == simulate_moves(BRANDUBH, GAME, seed=7, noise="clumsy")
    assert a != simulate_moves(BRANDUBH, GAME, seed=8, noise="clumsy")


@pytest.mark.parametrize("noise", list(PROFILES))
def test_traces_are_valid_and_replay_to_their_expectation(noise):
    for seed in range(15):
        lines = simulate_moves(BRANDUBH, LONG, seed=seed, noise=noise)
        head = json.loads(lines[0])
        assert head["trace"] == "tafl-trace/1" and head["noise"] == noise
        trace = parse_trace(lines)  # strict validation
        assert trace.scan_hz == 100
        for scan in trace.scans:  # times on the scan grid
            assert abs(scan.t * 100 - round(scan.t * 100)) < 1e-6
        summary, _ = replay_trace(lines)
        assert summary == head["expect"], seed
        assert summary["moves"] == LONG


def test_clean_profile_is_plain_lift_and_place():
    lines = simulate_moves(BRANDUBH, LONG, seed=1, noise="clean")
    trace = parse_trace(lines)
    for before, after in zip(trace.scans, trace.scans[1:]):
        assert len(before.occupied ^ after.occupied) == 1  # one switch at a time, no bounce
    _, events = replay_trace(lines, events=True)
    kinds = {e["event"] for e in events}
    assert kinds <= {"ready", "move", "leds", "removed"}


def count_kinds(noise: str, seeds: range) -> dict[str, int]:
    out: dict[str, int] = {}
    for seed in seeds:
        _, events = replay_trace(simulate_moves(BRANDUBH, LONG, seed=seed, noise=noise), True)
        for e in events:
            out[e["event"]] = out.get(e["event"], 0) + 1
    return out


def test_clumsy_players_exercise_every_behaviour():
    kinds = count_kinds("clumsy", range(30))
    for kind in ("setup", "ready", "move", "revised", "removed", "illegal", "warning",
                 "takeback"):
        assert kinds.get(kind, 0) > 0, kind


def test_every_behaviour_alone_replays_exactly():
    rates = {"slide": 1.0, "bounce": 1.0, "crosstalk": 1.0, "hesitate": 1.0, "pause": 1.0,
             "overshoot": 1.0, "wrong_piece": 1.0, "late": 1.0, "early": 1.0,
             "pending_move": 1.0, "illegal": 1.0, "knock_back": 1.0, "knock_move": 1.0,
             "takeback": 1.0, "setup_error": 1.0}
    for name, rate in rates.items():
        profile = Profile(**{name: rate})
        for seed in range(4):
            lines = simulate_moves(BRANDUBH, LONG, seed=seed, noise=profile)
            summary, _ = replay_trace(lines)
            assert summary == json.loads(lines[0])["expect"], (name, seed)


def test_polarity_traces_carry_colours():
    lines = simulate_moves(BRANDUBH, LONG, seed=3, noise="typical", polarity=True)
    head = json.loads(lines[0])
    assert head["sensors"] == "polarity"
    trace = parse_trace(lines)
    first = trace.scans[0]
    assert first.colours and set(first.colours) == first.occupied
    assert first.colours["d4"] == "d" and first.colours["d1"] == "a"
    summary, _ = replay_trace(lines)
    assert summary == head["expect"]


def test_game_stops_at_the_end_and_result_is_the_rules_result():
    lines = simulate_moves(BRANDUBH, GAME + ["d1-d2"], seed=0, noise="typical")
    head = json.loads(lines[0])
    assert head["expect"]["moves"] == GAME and head["expect"]["result"] == "attackers"
