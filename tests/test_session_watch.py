"""A game the board only watches (companion.session.remote: ``RemoteTerms.watched``): both
sides play at the other end, every move of theirs is a move to make, in turn; the board never
plays nor sends a move of its own. A scripted fake RemotePlayer hands the events in from another
thread; the real tracker, a real SQLite store and the simulated board on a virtual clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_helpers import Harness
from test_session_remote import FakeRemote, mv

from companion.session import OWNER, ControlError
from companion.session.clock import TimeControl
from companion.session.remote import (
    RemoteClock,
    RemoteEnd,
    RemoteLeave,
    RemoteMove,
    RemoteSeat,
    RemoteStart,
    RemoteTerms,
)
from companion.session.settings import GameSettings

REF = "hnefatafl.org:49152/9"


def watched(tc: str | None = "15+10", ref: str = REF) -> RemoteTerms:
    return RemoteTerms(GameSettings.make("hnefatafl-org"), TimeControl.parse(tc) if tc else None,
                       "", "ai-attacker – ai-defender", ref, rated=True,
                       watched=(RemoteSeat("ai-attacker", 1801.5), RemoteSeat("ai-defender")))


def watch(tmp_path: Path, moves=(), tc: str | None = "15+10") -> tuple[Harness, FakeRemote]:
    h = Harness(tmp_path)
    remote = FakeRemote(h.path)
    h.session.attach_remote(remote)
    remote.send(RemoteStart(watched(tc), tuple(moves)))
    h.run(0.5)
    return h, remote


def make(h: Harness, want: str) -> None:
    """The person at the board carries out the move to make (it must be ``want``)."""
    m = h.state["move_to_make"]
    assert m is not None and m["move"].split("x")[0] == want and m["by"] == "online", m
    h.move(m["from"], m["to"])


def test_both_sides_moves_are_moves_to_make_in_turn(tmp_path: Path) -> None:
    h, remote = watch(tmp_path)
    s = h.state
    assert s["variant"] == "hnefatafl-org"
    assert s["players"]["attackers"] == {"name": "ai-attacker", "kind": "online",
                                         "rating": 1801.5}
    assert s["players"]["defenders"] == {"name": "ai-defender", "kind": "online"}
    r = s["remote"]
    assert r["watching"] is True and r["local_side"] is None and r["ref"] == REF
    stored = h.store.game(h.session.gid).remote()
    assert stored["watched"][0] == {"name": "ai-attacker", "rating": 1801.5}
    # both sides' moves: the first is the move to make, the next waits behind it
    remote.send(RemoteMove(0, mv("e1-e4")))
    remote.send(RemoteMove(1, mv("h6-h9")))
    remote.send(RemoteMove(1, mv("h6-h9")))  # a duplicate of a waiting move: ignored
    h.run(0.05)
    assert h.state["move_to_make"]["side"] == "attackers" and h.state["remote"]["queued"] == 1
    assert h.store.game(h.session.gid).pending()["move"] == "e1-e4"  # stored before shown
    make(h, "e1-e4")
    h.run(0.05)
    assert h.state["move_to_make"]["move"] == "h6-h9" and h.state["remote"]["queued"] == 0
    assert "ai-defender, online" in h.state["message"]
    make(h, "h6-h9")
    remote.send(RemoteMove(2, mv("g1-g4")))  # captures f4: lifted as the board shows
    h.run(0.05)
    make(h, "g1-g4")
    assert h.state["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"]
    assert "f4" not in h.state["occupied"]
    # nothing of the board's goes to the other end
    assert remote.calls == []
    # with no move to make, a move at the board is refused and guided back
    h.click("h9", 0.1)
    h.click("h10", 0.8)
    assert h.state["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4"] and h.state["tracking"] == "setup"
    assert "wait for their move" in h.state["message"]
    assert [e for e in h.store.events(h.session.gid) if e["kind"] == "illegal"][-1][
        "code"] == "remote_move"
    h.click("h10", 0.1)
    h.click("h9", 0.6)
    assert h.state["tracking"] == "ready"
    assert "waiting for their move" in h.state["message"]


def test_nobody_here_decides_for_a_watched_game(tmp_path: Path) -> None:
    h, remote = watch(tmp_path)
    remote.send(RemoteMove(0, mv("e1-e4")))
    h.run(0.05)
    make(h, "e1-e4")
    for side in ("attackers", "defenders"):
        for control, args in ((h.session.resign, (side,)), (h.session.draw, ("offer", side))):
            with pytest.raises(ControlError) as err:
                control(OWNER, *args)
            assert err.value.code == "remote_side"
    for control, args, code in ((h.session.takeback, (), "no_takebacks"),
                                (h.session.request_hint, (), "no_hint"),
                                (h.session.new_game, ({},), "remote_game"),
                                (h.session.choose_move, ("h6-h9",), "remote_side")):
        with pytest.raises(ControlError) as err:
            control(OWNER, *args)
        assert err.value.code == code, control
    with pytest.raises(ControlError) as err:
        h.session.new_game(OWNER, {})
    assert "stop watching" in err.value.message
    # the server's clocks: no flag falls here
    remote.send(RemoteClock(0.2, 900.0, "defenders", at=h.t))
    h.run(2.0)
    assert h.state["result"] == "ongoing"


def test_a_game_joined_in_progress_is_caught_up_and_its_end_waits_for_the_board(
        tmp_path: Path) -> None:
    h, remote = watch(tmp_path, [mv("e1-e4"), mv("h6-h9"), mv("g1-g4")])
    st = h.state
    assert st["moves"] == ["e1-e4", "h6-h9"] and st["tracking"] == "setup"
    assert st["move_to_make"]["move"] == "g1-g4" and st["move_to_make"]["captures"] == ["f4"]
    # the game goes on and ends on the server while the board is behind
    remote.send(RemoteMove(3, mv("h9-h10")))
    remote.send(RemoteMove(4, mv("e4-e2")))
    remote.send(RemoteEnd("attackers", "resignation"))
    h.run(0.1)
    st = h.state
    assert st["result"] == "ongoing" and st["remote"]["queued"] == 2
    assert st["remote"]["pending_end"] == {"result": "attackers", "reason": "resignation"}
    for square in st["guidance"]["clear"]:  # the hands set the position up
        h.click(square, 0.1)
    for square in h.state["guidance"]["fill"]:
        h.click(square, 0.1)
    h.run(0.5)
    assert h.state["tracking"] == "ready"
    make(h, "g1-g4")
    h.run(0.05)
    make(h, "h9-h10")
    h.run(0.05)
    assert h.state["result"] == "ongoing"
    make(h, "e4-e2")
    h.run(0.05)
    st = h.state
    assert (st["result"], st["reason"]) == ("attackers", "resignation")
    assert st["moves"] == ["e1-e4", "h6-h9", "g1-g4xf4", "h9-h10", "e4-e2"]
    row = h.store.game(h.session.gid)
    assert row.finished and (row.result, row.reason) == ("attackers", "resignation")


def test_after_a_restart_the_moves_missed_meanwhile_wait_in_turn(tmp_path: Path) -> None:
    h, remote = watch(tmp_path)
    remote.send(RemoteMove(0, mv("e1-e4")))
    h.run(0.05)
    make(h, "e1-e4")
    gid = h.session.gid
    h.session.close()
    h2 = h.reopen()
    again = FakeRemote(h2.path)
    h2.session.attach_remote(again)
    h2.run(0.1)
    (_, ref, moves), = again.sent("started")  # the client watches the stored game again
    assert ref == REF and moves == (mv("e1-e4"),)
    assert h2.state["remote"]["watching"] is True
    again.send(RemoteStart(watched(), (mv("e1-e4"), mv("h6-h9"), mv("g1-g4"))))
    h2.run(0.1)
    assert h2.session.gid == gid and h2.state["moves"] == ["e1-e4"]
    assert h2.state["move_to_make"]["move"] == "h6-h9" and h2.state["remote"]["queued"] == 1
    make(h2, "h6-h9")
    h2.run(0.05)
    make(h2, "g1-g4")
    assert again.sent("move") == []
    # a gap asks the client for the record again (it answers with a RemoteStart)
    again.send(RemoteMove(5, mv("k4-k3")))
    h2.run(0.05)
    assert again.sent("started")[-1] == ("started", REF, (mv("e1-e4"), mv("h6-h9"),
                                                          mv("g1-g4")))


def test_stopping_lets_the_game_go_and_frees_the_board(tmp_path: Path) -> None:
    h, remote = watch(tmp_path, tc=None)
    remote.send(RemoteMove(0, mv("e1-e4")))
    h.run(0.05)
    make(h, "e1-e4")
    remote.send(RemoteMove(1, mv("h6-h9")))
    h.run(0.05)
    gid = h.session.gid
    remote.send(RemoteLeave("stopped watching the game", "stopped_watching"))
    h.run(0.05)
    st = h.state
    assert st["move_to_make"] is None and st["remote"]["ref"] is None
    assert st["remote"]["state"] == "left" and st["remote"]["code"] == "stopped_watching"
    assert h.store.game(gid).pending() is None and h.store.move_texts(gid) == ["e1-e4"]
    remote.send(RemoteMove(1, mv("h6-h9")))  # no longer the bound game: ignored
    h.run(0.05)
    assert h.state["move_to_make"] is None
    # a new game: the online seats do not carry over (the board plays both sides)
    new = h.session.new_game(OWNER, {"variant": "copenhagen"})
    assert new["game"] != gid and h.store.game(gid).reason == "abandoned"
    assert {p["kind"] for p in h.state["players"].values()} == {"board"}
    # each seat of the server's gets a name of its own (issue 26: the defenders' was empty)
    assert [h.state["players"][s]["name"] for s in ("attackers", "defenders")] == [
        "Player 1", "Player 2"]
    assert remote.sent("stopped") == []  # it said so itself
