"""Crash safety: kill -9 the real daemon at random points while a trace is fed in, restart,
and check that no accepted move was lost, and (mid-match, mid-clock) that the match, the game,
the players and the clocks as stored come back (the harness is bench/crash.py, which runs
200). Seeds are fixed (``TAFL_CRASH_SEED`` overrides them), so a failure can be replayed."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "crash.py"


def load_harness():
    spec = importlib.util.spec_from_file_location("bench_crash", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_accepted_move_is_lost_across_kill_9(tmp_path: Path) -> None:
    crash = load_harness()
    seed = int(os.environ.get("TAFL_CRASH_SEED", "20250"))
    report = crash.crash_run(kills=15, seed=seed, speed=20.0, plies=30, workdir=tmp_path,
                             max_delay=1.5, log=lambda m: None)
    assert report["kills"] == 15
    assert report["lost"] == [], f"seed {seed}: {report['lost'][:2]}"
    assert report["announced_moves_checked"] > 20, report
    assert report["final_game_matches_trace"], f"seed {seed}: {report}"


def test_match_clocks_and_players_come_back_after_kill_9(tmp_path: Path) -> None:
    crash = load_harness()
    seed = int(os.environ.get("TAFL_CRASH_SEED", "4711"))
    report = crash.crash_run(kills=8, seed=seed, speed=20.0, plies=24, workdir=tmp_path,
                             max_delay=1.5, log=lambda m: None, session=True)
    assert report["lost"] == [], f"seed {seed}: {report['lost'][:2]}"
    assert report["restarts_checked"] >= 4, report
    assert report["restore_problems"] == [], f"seed {seed}: {report['restore_problems'][:2]}"
    assert report["final_game_matches_trace"], f"seed {seed}: {report}"


def test_the_trace_generator_is_deterministic(tmp_path: Path) -> None:
    crash = load_harness()
    assert crash.random_game(3, 20) == crash.random_game(3, 20)
    end = crash.write_trace(tmp_path / "t.jsonl", crash.random_game(3, 20))
    from companion.trace import read_trace

    assert read_trace(tmp_path / "t.jsonl").end == end
