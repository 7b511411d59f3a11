"""Hand-written traces of each named behaviour (tests/traces/): replay summary and event order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.replay import replay_trace, run_trace
from companion.trace import read_trace
from companion.tracker import MoveEvent
from companion.tracker.square_relations import grid_for

TRACES = sorted((Path(__file__).parent / "traces").glob("*.jsonl"))


def header(p: Path) -> dict:
    return json.loads(p.read_text(encoding="utf-8").splitlines()[0])


def test_there_are_traces_for_each_behaviour():
    names = {p.stem for p in TRACES}
    for needed in ("lift_and_place", "slide_transit", "overshoot", "slow_slide_revised",
                   "lift_and_replace", "knock_falls_back", "knock_onto_square", "illegal_kinds",
                   "capture_removed_late_wrong_piece", "capture_not_removed_before_reply",
                   "move_while_capture_pending", "setup_fixed", "game_over", "takeback",
                   "colours_polarity", "opponent_piece_one_square", "late_nudge_not_revised",
                   "reseat"):
        assert needed in names


@pytest.mark.parametrize("trace", TRACES, ids=[p.stem for p in TRACES])
def test_trace_replays_as_expected(trace: Path):
    head = header(trace)
    summary, events = replay_trace(trace, events=True)
    assert summary == head["expect"]
    wanted = head["expect_events"]
    kinds = [e["event"] for e in events if e["event"] in set(wanted)]
    assert kinds == wanted
    for e in events:
        assert set(e) >= {"t", "event"}
        json.dumps(e)


@pytest.mark.parametrize("trace", TRACES, ids=[p.stem for p in TRACES])
def test_moves_are_accepted_within_0_3_s_of_settling_and_never_before(trace: Path):
    parsed = read_trace(trace)
    _, events = run_trace(parsed)
    changes: dict[str, list[float]] = {}
    for before, after in zip(parsed.scans, parsed.scans[1:]):
        for sq in before.occupied ^ after.occupied:
            changes.setdefault(sq, []).append(after.t)
    flagged = False
    grid = grid_for(parsed.rules.size)
    for e in events:
        if e.kind == "illegal":
            flagged = True
        if not isinstance(e, MoveEvent):
            continue
        squares = [grid.name(s) for s in grid.path(e.move.frm, e.move.to)]
        settled = max(t for s in squares for t in changes.get(s, []) if t <= e.t)
        assert settled <= e.t
        if not flagged:  # a move made while captured pieces stood counts once they are off
            assert e.t - settled <= 0.3 + 1e-9, (e, settled)
        # the destination is occupied and did not change between settling and acceptance
        assert e.data["to"] in next(s for s in reversed(parsed.scans) if s.t <= e.t).occupied
        flagged = False
