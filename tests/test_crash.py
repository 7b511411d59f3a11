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
    # restarts that find a game stored are checked; kill points are added until 4 were (how
    # many find one depends on how far each run got, i.e. on the machine's load)
    report = crash.crash_run(kills=8, seed=seed, speed=20.0, plies=24, workdir=tmp_path,
                             max_delay=1.5, log=lambda m: None, session=True, min_checked=4)
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


def _spawn(data: Path, *extra: str):
    from test_daemon_support import PIN, spawn_daemon

    return spawn_daemon(["--board", "sim", "--port", "0", "--host", "127.0.0.1", "--pin", PIN,
                         "--data-dir", str(data), *extra])


def _made(base: str, frm: str, to: str) -> dict:
    from test_daemon_support import control, state, wait_for

    n = len(state(base)["moves"])
    for square in (frm, to):
        assert control(base, "api/click", {"square": square})[0] == 200
    return wait_for(lambda: (st := state(base))["moves"][n:] and st,
                    what=f"the move {frm}-{to}")  # type: ignore[return-value]


def _stored_events(data: Path, kind: str) -> list[dict]:
    import json
    import sqlite3

    con = sqlite3.connect(data / "games.sqlite3")
    try:
        return [json.loads(r[0]) for r in con.execute(
            "SELECT data FROM events WHERE kind = ? ORDER BY id", (kind,))]
    finally:
        con.close()


def test_a_remote_players_move_to_make_survives_kill_9(tmp_path: Path) -> None:
    """The real daemon: the phone player's chosen move is answered only once it is stored; a
    kill -9 right after the answer loses nothing, and the restarted daemon shows it again (the
    state fields exactly as INTERFACES.md gives them) and accepts only it."""
    import signal

    from test_daemon_support import control, state, wait_for

    d, base = _spawn(tmp_path, "--defenders", "page", "--time-control", "5+3")
    try:
        _made(base, "d1", "d4")
        links = control(base, "api/links", {})[1]["links"]
        status, out = control(base, "api/move", {"move": "f4-e4"},
                              player=links["defenders"]["token"])
        assert status == 200 and out["move_to_make"]["move"] == "f4-e4"
    finally:
        d.stop(signal.SIGKILL)
    d, base = _spawn(tmp_path, "--defenders", "page", "--time-control", "5+3")
    try:
        st = state(base)
        assert st["moves"] == ["d1-d4"] and st["reason"] is None and st["match"] is None
        m = st["move_to_make"]
        assert {k: m[k] for k in ("move", "from", "to", "by")} == {
            "move": "f4-e4", "from": "f4", "to": "e4", "by": "page"}
        assert st["players"]["defenders"]["kind"] == "page"
        assert st["players"]["attackers"]["kind"] == "board"
        assert all(isinstance(p["name"], str) and p["name"] for p in st["players"].values())
        clock = st["clock"]
        # as stored at the choice: the phone player's clock stopped then (+3 s), the
        # attackers' runs again (once the board matches the game) while the move is made
        assert clock["running"] in ("attackers", None) and 295 < clock["attackers"] <= 303
        assert 298 < clock["defenders"] <= 303.0
        wait_for(lambda: (leds := state(base)["leds"]).get("f4") == "make_from"
                 and leds.get("e4") == "make_to", what="the LEDs of the move to make")
        assert control(base, "api/click", {"square": "f4"})[0] == 200
        assert control(base, "api/click", {"square": "g4"})[0] == 200
        wait_for(lambda: "not the move to make" in state(base)["message"],
                 what="the refusal")
        for square in ("g4", "f4"):  # put back as the lights ask
            assert control(base, "api/click", {"square": square})[0] == 200
        wait_for(lambda: state(base)["tracking"] == "ready", what="ready")
        st = _made(base, "f4", "e4")
        assert st["moves"] == ["d1-d4", "f4-e4"] and st["move_to_make"] is None
    finally:
        out = d.stop()
    assert "Traceback" not in out, out


def test_the_computers_chosen_move_is_shown_again_after_kill_9(tmp_path: Path) -> None:
    """The computer's move to make is stored with the game: after a kill -9 the board shows
    the same move again without asking the engine afresh."""
    import signal
    import time

    from test_daemon_support import state, wait_for

    args = ("--variant", "brandubh", "--attackers", "computer:1")
    d, base = _spawn(tmp_path, *args)
    try:
        chosen = wait_for(lambda: state(base)["move_to_make"],
                          what="the computer's move")
        wait_for(lambda: _stored_events(tmp_path, "move_to_make"), what="the stored move")
    finally:
        d.stop(signal.SIGKILL)
    d, base = _spawn(tmp_path, *args)
    try:
        st = state(base)
        assert st["move_to_make"] == chosen and st["moves"] == []
        time.sleep(1.0)  # the engine would have answered by now had it been asked again
        assert state(base)["move_to_make"] == chosen and state(base)["thinking"] is None
        assert len(_stored_events(tmp_path, "move_to_make")) == 1
        st = _made(base, chosen["from"], chosen["to"])  # type: ignore[index]
        assert st["moves"][0].split("x")[0] == chosen["move"]  # type: ignore[index]
    finally:
        out = d.stop()
    assert "Traceback" not in out, out
