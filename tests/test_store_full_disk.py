"""A real full disk mid-game: the data directory is a small tmpfs that the test fills while the
daemon runs (real store, real tracker, real server on loopback). The page and the LEDs must say
at once that moves are not being saved, the board must stop accepting moves, controls must fail
cleanly, and once space returns every move and event row must be written."""

from __future__ import annotations

import json
from pathlib import Path

from fault_fs import fill, mount_or_skip
from test_daemon_support import control, running_daemon, state, wait_for


def test_a_full_disk_mid_game_loses_nothing_and_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with mount_or_skip(data, "tmpfs", size="1m"), running_daemon(data) as d:
        b = f"http://127.0.0.1:{d.port}/"

        def click(square: str) -> None:
            assert control(b, "api/click", {"square": square})[0] == 200

        click("d1")
        click("d4")
        wait_for(lambda: state(b)["moves"] == ["d1-d4"], what="the first move")
        filler = fill(data)  # the disk is full now
        click("f4")
        click("e4")  # the tracker accepts it, the store cannot write it
        st = wait_for(lambda: (s := state(b))["storage"]["ok"] is False and s,
                      what="the storage state")
        assert st["moves"] == ["d1-d4"]  # nothing unsaved is shown
        assert set(st["leds"].values()) == {"storage"} and len(st["leds"]) == 121
        assert "not being saved" in st["message"]
        assert "full" in st["storage"]["detail"]
        status, doc = control(b, "api/resign", {"side": "attackers"})
        assert status == 503 and doc["code"] == "storage"
        assert control(b, "api/takeback", {})[0] == 503
        assert d.session.game.result == "ongoing"
        # a move made during the outage is not accepted meanwhile
        click("d4")
        click("d3")
        # the board has read the lift and the placing (its sensed squares show them), and the
        # tracker, suspended, proposes nothing (waited on the state, not on a sleep)
        wait_for(lambda: "d3" in (s := state(b))["occupied"] and "d4" not in s["occupied"],
                 what="the board reading the move made during the outage")
        assert d.store.move_texts(d.session.gid) == ["d1-d4"]
        st = state(b)
        assert st["tracking"] == "suspended" and st["moves"] == ["d1-d4"]
        filler.unlink()  # space returns: everything is written, the board resumes by itself
        st = wait_for(lambda: (s := state(b))["storage"]["ok"] and len(s["moves"]) == 3 and s,
                      what="the moves written once space returned")
        assert st["moves"] == ["d1-d4", "f4-e4", "d4-d3"]
        assert d.store.move_texts(d.session.gid) == st["moves"]
        events = d.store.events(d.session.gid)
        assert [e["kind"] for e in events].count("move") == 3
        assert all(e["t"] > 1e9 for e in events)  # wall-clock times, not the tracker's
        assert st["leds"] == {} or "storage" not in st["leds"].values()
    json.dumps(st)


def test_an_import_on_a_full_disk_is_refused_whole_and_stored_once_space_returns(
        tmp_path: Path) -> None:
    """Imports go through the session's loop like every write: on a full disk the answer is
    503 ``storage`` and nothing of the file is stored; the board shows the storage state."""
    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.rules.records import game_to_record_line

    records = []
    for moves in (["d1-d4", "f4-e4"], ["d1-d4", "f4-e4", "f2-f4"]):
        game = Game(get_variant("copenhagen"))
        for m in moves:
            game.play_text(m)
        records.append(game_to_record_line(game))
    upload = {"name": "two.csv", "text": "\n".join(records) + "\n", "variant": "copenhagen"}
    data = tmp_path / "data"
    data.mkdir()
    with mount_or_skip(data, "tmpfs", size="1m"), running_daemon(data) as d:
        b = f"http://127.0.0.1:{d.port}/"
        before = len(d.store.list_games())
        filler = fill(data)
        status, doc = control(b, "api/import", upload)
        assert status == 503 and doc["code"] == "storage", doc
        assert len(d.store.list_games()) == before  # none of the two games
        st = wait_for(lambda: (s := state(b))["storage"]["ok"] is False and s,
                      what="the storage state")
        assert "not being saved" in st["message"]
        filler.unlink()
        wait_for(lambda: state(b)["storage"]["ok"], what="the store back")
        status, doc = control(b, "api/import", upload)
        assert status == 200 and len(doc["games"]) == 2
        assert [d.store.move_texts(g) for g in doc["games"]] == [
            ["d1-d4", "f4-e4"], ["d1-d4", "f4-e4", "f2-f4xe4"]]
