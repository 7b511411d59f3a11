"""The daemon's lifecycle (issue 30): one daemon per data directory (an OS lock held for the
process's life, released by kill -9 too), parts opened on an ExitStack and closed in reverse
order (on a failed start as on a stop), nothing closed under a loop that has not ended, and one
thread stepping a session."""

from __future__ import annotations

import signal
import sqlite3
import threading
from pathlib import Path

import pytest
from test_daemon_loop import run_cli
from test_daemon_support import (
    PIN,
    HeldBoard,
    running_daemon,
    spawn_daemon,
    state,
    test_config,
    wait_for,
)

from companion.store_lock import DataDirLock, StoreLocked


def _args(data: Path) -> list[str]:
    return ["--board", "sim", "--port", "0", "--host", "127.0.0.1", "--pin", PIN,
            "--data-dir", str(data)]


def _games(data: Path) -> int:
    con = sqlite3.connect(data / "games.sqlite3")
    try:
        return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        con.close()


def test_a_second_daemon_on_the_same_data_dir_exits_2_naming_the_first(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first, base = spawn_daemon(_args(data))
    try:
        gid = state(base)["game"]
        res = run_cli(*_args(data))
        assert res.returncode == 2, res.stdout + res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, res.stderr
        assert f"pid {first.proc.pid}" in lines[0] and f"--data-dir {data}" in lines[0]
        assert "Traceback" not in res.stderr + res.stdout
        assert _games(data) == 1  # the second one wrote nothing (no game of its own)
        # a daemon on another data directory is not held up
        other, _ = spawn_daemon(_args(tmp_path / "other"))
        other.stop()
        # kill -9: the kernel releases the lock; the next daemon starts and resumes the game
        first.stop(signal.SIGKILL)
        again, base = spawn_daemon(_args(data))
        try:
            assert state(base)["game"] == gid
            assert _games(data) == 1
        finally:
            out = again.stop()
        assert again.proc.returncode == 0 and "Traceback" not in out
    finally:
        first.stop(signal.SIGKILL)


def test_the_lock_is_held_for_the_daemons_life_and_given_up_by_stop(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        assert d.lock is not None and d.lock.held
        with pytest.raises(StoreLocked) as err:
            DataDirLock(tmp_path).acquire()
        assert "another tafl-companion (pid " in str(err.value)
    with DataDirLock(tmp_path) as lock:  # stopped: free again
        assert lock.held


def test_nothing_is_closed_under_a_loop_that_has_not_ended(tmp_path: Path) -> None:
    from companion.daemon import Daemon

    board = HeldBoard()
    d = Daemon(test_config(tmp_path), board=board)
    d.start()
    try:
        assert d.store is not None
        gid = state(f"http://127.0.0.1:{d.port}/")["game"]
        board.release.clear()
        assert board.held.wait(60)  # the loop is inside a step
        d.stop_wait = 0.05  # (the loop stays stuck however long this is)
        assert d.stop() is False  # said loudly, and:
        assert board.closed == 0 and d.lock is not None and d.lock.held
        assert d.store.game(gid).id == gid  # the store is still open under the loop
        loop = d._loop_thread
        assert loop is not None and loop.is_alive()
    finally:
        board.release.set()
    loop.join(60)
    assert not loop.is_alive()
    d.stop_wait = 60
    assert d.stop() is True  # now everything closes, once
    assert board.closed == 1 and not d.lock.held
    with pytest.raises(sqlite3.ProgrammingError):
        d.store.game(gid)


def test_a_stuck_loop_is_logged_with_where_it_is(tmp_path: Path, caplog) -> None:
    from companion.daemon import Daemon

    board = HeldBoard()
    d = Daemon(test_config(tmp_path), board=board)
    d.start()
    board.release.clear()
    try:
        assert board.held.wait(60)
        d.stop_wait = 0.05
        with caplog.at_level("ERROR", logger="companion.daemon"):
            assert d.stop() is False
        said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert said and "did not end" in said[0] and "left open" in said[0]
        assert "in scan" in said[0]  # the loop's frame: HeldBoard.scan
    finally:
        board.release.set()
        d._loop_thread.join(60)
        d.stop_wait = 60
        assert d.stop() is True


def test_a_failed_start_closes_what_it_opened_in_reverse_order(tmp_path: Path) -> None:
    from companion.config import ConfigError
    from companion.daemon import Daemon

    board = HeldBoard()
    d = Daemon(test_config(tmp_path, defenders="club:table-2"), board=board)
    with pytest.raises(ConfigError):
        d.start()  # no [club] in the config: found after the store and the session opened
    assert board.closed == 1
    assert d.lock is not None and not d.lock.held  # given up: the next start may have it
    assert d.store is not None
    with pytest.raises(sqlite3.ProgrammingError):
        d.store.game(1)
    with running_daemon(tmp_path) as again:  # the port, the lock, the store: all free
        assert state(f"http://127.0.0.1:{again.port}/")["result"] == "ongoing"


def test_a_second_thread_stepping_the_session_is_a_programming_error(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        n = d.iterations
        wait_for(lambda: d.iterations > n, what="the loop stepping")
        moves = len(d.session.game.played)
        with pytest.raises(RuntimeError, match="one thread steps a session"):
            d.step()
        assert d._loop_thread is not None and d._loop_thread.is_alive()
        n = d.iterations
        wait_for(lambda: d.iterations > n, what="the loop still stepping")  # still its own
        assert len(d.session.game.played) == moves


def test_the_command_queue_belongs_to_the_first_thread_that_steps() -> None:
    from companion.session.command_queue import CommandQueue

    q = CommandQueue(timeout=5)
    q.claim()
    q.claim()  # the same thread again: fine
    got: list[BaseException] = []

    def other() -> None:
        try:
            q.claim()
        except RuntimeError as exc:
            got.append(exc)

    t = threading.Thread(target=other, name="intruder")
    t.start()
    t.join(60)
    assert len(got) == 1 and "'intruder'" in str(got[0])
    assert q.on_loop_thread()  # still the first thread's
