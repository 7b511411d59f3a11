"""The daemon at rest (issue 31): with nobody playing the loop scans at the rest rate and sleeps
until the next scan or the next command, whichever comes first; the first change or command
brings back the full rate, and nothing done at rest is lost."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

from test_daemon_support import PATIENCE, control, state, test_config, wait_for

from companion.hardware_config import BoardConfig, parse_board
from companion.rules import PRESETS
from companion.rules.board import Board
from companion.session.commands import CommandQueue


def test_a_posted_command_wakes_the_waiting_loop_at_once() -> None:
    queue = CommandQueue()
    assert queue.wait(0) is False  # nothing posted: no wake
    woke: list[bool] = []
    waiting = threading.Event()

    def loop() -> None:
        waiting.set()
        woke.append(queue.wait(PATIENCE))  # without the wake this waits PATIENCE and is False

    t = threading.Thread(target=loop)
    t.start()
    waiting.wait(PATIENCE)
    queue.post(lambda: None, "a control")
    t.join(PATIENCE)
    assert woke == [True]
    assert queue.pending == 1  # the wake takes nothing: the next step drains it
    assert queue.wait(0) is False  # and the wake is used up


def test_a_command_posted_before_the_wait_is_not_slept_through() -> None:
    queue = CommandQueue()
    queue.post(lambda: None)
    assert queue.wait(PATIENCE) is True


def test_the_rest_rate_is_configurable_and_checked() -> None:
    assert BoardConfig().idle_hz == 20.0 and BoardConfig().idle_after == 5.0
    cfg = parse_board({"idle_hz": 10, "idle_after": 0})
    assert (cfg.idle_hz, cfg.idle_after) == (10.0, 0.0)
    for bad, message in (({"idle_hz": 0}, "[board] idle_hz: 0 is out of range"),
                         ({"idle_after": -1}, "[board] idle_after: -1 is out of range"),
                         ({"idle_hz": "fast"}, "[board] idle_hz: expected a number")):
        try:
            parse_board(bad)
        except Exception as exc:  # noqa: BLE001 - ConfigError, checked by its text
            assert str(exc).startswith(message), exc
        else:
            raise AssertionError(f"{bad} accepted")


def test_the_daemon_rests_and_a_move_made_at_rest_is_kept(tmp_path: Path) -> None:
    from companion.daemon import Daemon

    cfg = test_config(tmp_path)
    cfg = replace(cfg, board=replace(cfg.board, idle_hz=5.0, idle_after=0.3))
    d = Daemon(cfg)
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        wait_for(lambda: d.resting, what="the loop at rest")
        # a whole move made at rest, one square at a time (each click a command)
        for square in ("d1", "d4"):
            wait_for(lambda: d.resting, what="the loop at rest again")
            status, _ = control(base, "api/click", {"square": square})
            assert status == 200
        wait_for(lambda: state(base)["moves"] == ["d1-d4"], what="the move")
        wait_for(lambda: d.resting, what="the loop at rest after the move")
        assert state(base)["moves"] == ["d1-d4"]
        assert d.store is not None
        board = Board(PRESETS["copenhagen"])
        board.push(board.parse_move("d1-d4")[0])
        assert set(state(base)["occupied"]) == set(board.occupied_names())
    finally:
        d.stop()


def test_a_replayed_trace_never_rests(tmp_path: Path) -> None:
    """A trace is fed at its own rate (crash tests and replays depend on its timing)."""
    from companion.daemon import Daemon
    from companion.drivers.sim import ReplayBoard

    trace = tmp_path / "t.jsonl"
    trace.write_text("\n".join(json.dumps(x) for x in (
        {"trace": "tafl-trace/1", "variant": "brandubh", "size": 7, "scan_hz": 100},
        {"t": 0.0, "occupied": sorted(Board(PRESETS["brandubh"]).occupied_names())},
        {"t": 0.5, "end": True})) + "\n")
    cfg = test_config(tmp_path / "data", variant="brandubh")
    cfg = replace(cfg, board=replace(cfg.board, idle_hz=5.0, idle_after=0.05))
    d = Daemon(cfg, board=ReplayBoard(str(trace), speed=1.0))
    d.start()
    try:
        start = d.iterations
        wait_for(lambda: d.iterations > start + 50, what="fifty scans")
        assert not d.resting
    finally:
        d.stop()
