"""One writer of the game and the store: every control from the page is applied by the daemon's
loop thread (a command queue), web threads only read published snapshots; a control the loop
does not take in time is answered 503 and changes nothing. And the daemon's hook for players at
a distance."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from session_helpers import Harness
from test_daemon_support import PIN, HeldBoard, control, http, state, test_config, wait_for
from test_session_remote import REF, FakeRemote, mv, terms

from companion.session import OWNER, ControlError
from companion.session.players import PlayerKind
from companion.session.remote import RemoteMove, RemoteStart

WRITES = ("sync_game", "new_game", "abandon", "set_players", "add_link", "add_events",
          "end_match", "reopen_match", "import_game", "save_analysis")


def test_only_the_loop_thread_scans_writes_and_decides(tmp_path: Path) -> None:
    from companion.daemon import Daemon

    d = Daemon(test_config(tmp_path))
    d.start()
    try:
        seen: dict[str, set[str]] = {}
        lock = threading.Lock()

        def watched(name: str, fn):
            def run(*args, **kw):
                with lock:
                    seen.setdefault(name, set()).add(threading.current_thread().name)
                return fn(*args, **kw)
            return run

        assert d.board is not None and d.store is not None
        d.board.scan = watched("scan", d.board.scan)  # type: ignore[method-assign]
        for name in WRITES:
            setattr(d.store, name, watched(name, getattr(d.store, name)))
        base = f"http://127.0.0.1:{d.port}/"
        errors: list[object] = []

        def page(n: int) -> None:
            try:
                for i in range(6):
                    square = ("d1", "d4", "f4", "e4")[(n + i) % 4]
                    status, _ = control(base, "api/click", {"square": square})
                    assert status == 200
                    assert http(base + "api/legal")[0] == 200
                    assert json.loads(http(base + "api/state")[2])["game"]
                control(base, "api/links", {})
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=page, args=(n,)) for n in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        status, out = control(base, "api/new", {"variant": "brandubh"})
        assert status == 200
        # a control's answer comes once its change is published: the state shows it at once
        assert state(base)["game"] == out["game"] and state(base)["variant"] == "brandubh"
        assert seen["scan"] == {"scan-loop"}
        writers = set().union(*(v for k, v in seen.items() if k != "scan"))
        assert writers == {"scan-loop"}, seen
        assert {"sync_game", "new_game", "add_link"} <= set(seen)
    finally:
        d.stop()


def test_a_control_the_loop_does_not_take_in_time_is_refused_and_not_applied(
        tmp_path: Path) -> None:
    h = Harness(tmp_path)
    s = h.session
    s.commands.timeout = 0.2
    got: list[object] = []

    def web() -> None:
        try:
            got.append(s.click(OWNER, "d1"))
        except ControlError as exc:
            got.append(exc)

    t = threading.Thread(target=web)
    t.start()
    t.join()  # the loop did not step meanwhile
    assert isinstance(got[0], ControlError) and got[0].status == 503
    assert got[0].code == "busy"
    h.run(0.1)  # the loop steps again: the abandoned command is not applied
    assert "d1" in h.board.occupied
    # a control while the loop runs is applied by it and answered after it is published
    done = threading.Event()
    answer: list[object] = []

    def web2() -> None:
        answer.append(s.new_game(OWNER, {"variant": "brandubh"}))
        answer.append(s.state()["variant"])
        done.set()

    s.commands.timeout = 5.0
    t = threading.Thread(target=web2)
    t.start()
    wait_for(lambda: s.commands.pending, what="the command queued")
    assert not done.is_set()  # it waits for the loop
    h.run(0.02)
    t.join(5)
    assert answer[1] == "brandubh" and answer[0]["game"] == s.gid


def test_the_daemon_plays_online_through_the_factory_hook(tmp_path: Path) -> None:
    from companion.daemon import Daemon

    made: list[FakeRemote] = []

    def factory(spec):
        assert spec.spec == "online"
        made.append(FakeRemote(tmp_path / "games.sqlite3"))
        return made[-1]

    d = Daemon(test_config(tmp_path, defenders="online"),
               remote_players={PlayerKind.ONLINE: factory})
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        remote = wait_for(lambda: made and made[0].inbox and made[0], what="attached")
        remote.send(RemoteStart(terms()))
        st = wait_for(lambda: (s := state(base))["remote"] and s["remote"]["ref"] == REF and s,
                      what="the online game")
        assert st["players"]["defenders"]["kind"] == "online"
        for square in ("d1", "d4"):
            assert control(base, "api/click", {"square": square})[0] == 200
        wait_for(lambda: remote.sent("move"), what="the move sent")
        assert remote.sent("move") == [("move", 0, mv("d1-d4"))]
        remote.send(RemoteMove(1, mv("f4-e4")))
        m = wait_for(lambda: state(base)["move_to_make"], what="the move to make")
        assert m["by"] == "online" and m["move"] == "f4-e4"
        status, out = control(base, "api/takeback", {})
        assert status == 409 and out["code"] == "no_takebacks"
        assert http(base + "api/state", headers={"X-Tafl-Pin": PIN})[0] == 200
    finally:
        d.stop()
    assert made[0].closed


def test_a_player_at_a_distance_is_at_most_one_side_and_needs_its_client(
        tmp_path: Path) -> None:
    from companion.config import ConfigError
    from companion.daemon import Daemon

    with pytest.raises(ConfigError) as err:
        Daemon(test_config(tmp_path, attackers="online", defenders="club:t2"))
    assert "at most one side" in str(err.value)
    d = Daemon(test_config(tmp_path, defenders="club:table-2"))
    with pytest.raises(ConfigError) as err:
        d.start()  # no [club] in the config
    assert "club:table-2: playing club needs the [club] settings" in str(err.value)


def test_no_page_read_waits_for_the_loop_or_its_store(tmp_path: Path) -> None:
    import sqlite3

    from companion.daemon import Daemon

    board = HeldBoard()
    d = Daemon(test_config(tmp_path), board=board)
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        gid = state(base)["game"]
        # the loop is stuck inside a step, and another writer holds the database
        board.release.clear()
        assert board.held.wait(5)
        other = sqlite3.connect(tmp_path / "games.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO matches (started, players, tie_break) VALUES (1, '[]', '[]')")
        try:
            for path in ("api/state", "api/legal", "api/games", f"api/games/{gid}",
                         f"api/review/{gid}", f"api/games/{gid}/record.csv", "api/matches",
                         "api/players"):
                status, _, body = http(base + path, timeout=5)
                assert status == 200, (path, body[:200])
            assert json.loads(http(base + "api/matches")[2])["matches"] == []  # uncommitted
            # a control waits for the loop: answered 503 in the end, never applied
            d.session.commands.timeout = 0.3
            status, out = control(base, "api/resign", {"side": "attackers"})
            assert status == 503 and out["code"] == "busy"
        finally:
            other.execute("ROLLBACK")
            other.close()
            board.release.set()
        wait_for(lambda: d.iterations > 5, what="the loop going on")
        assert state(base)["result"] == "ongoing"
    finally:
        d.stop()
