"""Players at a distance through the session's seam (companion.session.remote): a scripted fake
RemotePlayer plays the other end, with the real tracker, a real SQLite store and the simulated
board on a virtual clock. Events are handed in from another thread, as a network client does."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from session_helpers import Harness

from companion.rules import get_variant
from companion.rules.board import Move
from companion.rules.game import Game
from companion.session import OWNER, SPECTATOR, ControlError
from companion.session.clock import TimeControl
from companion.session.players import PlayerError, PlayerKind, PlayerSpec
from companion.session.remote import (
    Inbox,
    RemoteChat,
    RemoteClock,
    RemoteDraw,
    RemoteEnd,
    RemoteEvent,
    RemoteKind,
    RemoteMove,
    RemoteRefused,
    RemoteResign,
    RemoteStart,
    RemoteStatus,
    RemoteTakeback,
    RemoteTerms,
)
from companion.session.settings import GameSettings
from companion.squares import parse_square
from companion.store import Store

REF = "hnefatafl.org:49152/4"


class FakeRemote:
    """The other end, scripted by the test: what the session sent it, in order (each with the
    moves stored when it was sent), and :meth:`send` to hand it an event from a network
    thread."""

    def __init__(self, store_path: Path, kind: str = "online", takebacks: bool = False) -> None:
        self._kind = RemoteKind(kind)
        self._takebacks = takebacks
        self.inbox: Inbox | None = None
        self.calls: list[tuple] = []
        self.stored_when_sent: list[list[str]] = []
        self.closed = False
        self._path = store_path

    @property
    def kind(self) -> RemoteKind:
        return self._kind

    @property
    def takebacks(self) -> bool:
        return self._takebacks

    def connect(self, inbox: Inbox) -> None:
        self.inbox = inbox

    def started(self, terms: RemoteTerms, moves: tuple[Move, ...]) -> None:
        self.calls.append(("started", terms.ref, moves))

    def _stored(self) -> list[str]:
        reader = Store(self._path)
        try:
            row = reader.unfinished() or reader.latest()
            return reader.move_texts(row.id) if row else []
        finally:
            reader.close()

    def send_move(self, ply: int, move: Move) -> None:
        self.calls.append(("move", ply, move))
        self.stored_when_sent.append(self._stored())

    def send_draw(self, side: str, action: str) -> None:
        self.calls.append(("draw", side, action))

    def send_resign(self, side: str) -> None:
        self.calls.append(("resign", side))

    def send_takeback(self, ply: int) -> None:
        self.calls.append(("takeback", ply))

    def stopped(self) -> None:
        self.calls.append(("stopped",))

    def close(self) -> None:
        self.closed = True

    def send(self, event: RemoteEvent) -> None:
        """Hand ``event`` in from a thread of its own (the inbox only enqueues)."""
        assert self.inbox is not None
        t = threading.Thread(target=self.inbox, args=(event,))
        t.start()
        t.join()

    def sent(self, what: str) -> list[tuple]:
        return [c for c in self.calls if c[0] == what]


def mv(text: str, size: int = 11) -> Move:
    frm, to = text.split("-")
    return Move(parse_square(frm, size), parse_square(to, size))


def terms(local: str = "attackers", tc: str | None = "5+0", ref: str = REF,
          variant: str = "copenhagen") -> RemoteTerms:
    return RemoteTerms(GameSettings.make(variant), TimeControl.parse(tc) if tc else None,
                       local, "bob", ref, rating=1523.4, rated=True)


def online_game(tmp_path: Path, *, kind: str = "online", takebacks: bool = False,
                moves: tuple[Move, ...] = (), local: str = "attackers",
                tc: str | None = "5+0") -> tuple[Harness, FakeRemote]:
    h = Harness(tmp_path)
    remote = FakeRemote(h.path, kind, takebacks)
    h.session.attach_remote(remote)
    remote.send(RemoteStart(terms(local, tc), moves))
    h.run(0.5)
    return h, remote


def test_a_game_with_an_online_opponent_goes_both_ways(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path)
    s = h.state
    assert s["players"]["defenders"] == {"name": "bob", "kind": "online", "rating": 1523.4}
    assert s["players"]["attackers"]["kind"] == "board"
    assert s["remote"]["ref"] == REF and s["remote"]["local_side"] == "attackers"
    assert remote.sent("started") == [("started", REF, ())]
    gid = h.session.gid
    assert h.store.game(gid).remote()["ref"] == REF
    # this board's move goes to the other end once it is stored, not before
    h.move("d1", "d4")
    assert remote.sent("move") == [("move", 0, mv("d1-d4"))]
    assert remote.stored_when_sent == [["d1-d4"]]
    assert "waiting for their move" in h.state["message"]
    # the other end's move: the move to make at the board, stored first
    remote.send(RemoteMove(1, mv("f4-e4")))
    h.run(0.05)
    m = h.state["move_to_make"]
    assert m["move"] == "f4-e4" and m["by"] == "online" and m["side"] == "defenders"
    assert h.store.game(gid).pending()["move"] == "f4-e4"
    assert "bob, online" in h.state["message"]
    h.move("f4", "e4")
    assert h.state["moves"] == ["d1-d4", "f4-e4"] and h.state["move_to_make"] is None
    assert len(remote.sent("move")) == 1  # its own move is not sent back
    # a duplicate is ignored; a move further ahead asks the other end to resync
    remote.send(RemoteMove(1, mv("f4-e4")))
    h.run(0.05)
    assert h.state["moves"] == ["d1-d4", "f4-e4"] and len(remote.sent("started")) == 1
    remote.send(RemoteMove(3, mv("g7-g8")))
    h.run(0.05)
    assert h.state["move_to_make"] is None
    assert remote.sent("started")[-1] == ("started", REF, (mv("d1-d4"), mv("f4-e4")))
    # the link's status and chat reach the page
    remote.send(RemoteStatus("reconnecting", "the server does not answer", "timeout"))
    remote.send(RemoteChat("bob", "good luck", 1.7e9))
    h.run(0.05)
    r = h.state["remote"]
    assert r["state"] == "reconnecting" and r["code"] == "timeout"
    assert r["chat"] == [{"by": "bob", "text": "good luck", "wall": 1.7e9}]


def test_the_other_ends_clocks_are_authoritative(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path, tc="5+0")
    h.move("d1", "d4")
    remote.send(RemoteClock(200.0, 250.0, "attackers", at=h.t))
    h.run(0.01)
    clock = h.state["clock"]  # as read then (the page counts down from "at")
    assert clock["attackers"] == pytest.approx(200.0, abs=0.05)
    assert clock["defenders"] == pytest.approx(250.0) and clock["running"] == "attackers"
    h.run(3.0)
    running = h.session.clock
    assert running is not None and running.left("attackers", h.t) == pytest.approx(197.0,
                                                                                    abs=0.05)
    stored = h.store.game(h.session.gid).clock
    assert stored is not None and '"main":200.0' in stored
    with pytest.raises(ControlError) as err:
        h.session.clock_control(OWNER, "pause")
    assert err.value.code == "remote_clock"
    # no flag falls here: the other end's word ends the game on time
    remote.send(RemoteClock(0.5, 250.0, "attackers", at=h.t))
    h.run(3.0)
    assert h.state["result"] == "ongoing"
    remote.send(RemoteEnd("defenders", "time"))
    h.run(0.05)
    assert (h.state["result"], h.state["reason"]) == ("defenders", "time")
    row = h.store.game(h.session.gid)
    assert (row.result, row.reason) == ("defenders", "time") and row.finished


def test_a_refused_move_is_taken_back_and_guided_back(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path)
    h.move("d1", "d4")
    remote.send(RemoteRefused(0, "the server does not allow that move"))
    h.run(0.1)
    st = h.state
    assert st["moves"] == [] and h.store.move_texts(h.session.gid) == []
    assert st["tracking"] == "setup" and "The server does not allow that move" in st["message"]
    assert "d4" in st["guidance"]["clear"] and "d1" in st["guidance"]["fill"]
    h.click("d4", 0.1)
    h.click("d1", 0.6)
    assert h.state["tracking"] == "ready"
    assert [e for e in h.store.events(h.session.gid) if e["kind"] == "takeback"][-1][
        "reason"] == "the server does not allow that move"


def test_takebacks_are_refused_online_and_cross_over_in_the_club(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path / "online")
    h.move("d1", "d4")
    with pytest.raises(ControlError) as err:
        h.session.takeback(OWNER)
    assert err.value.code == "no_takebacks"
    h.click("d4", 0.1)
    h.click("d1", 0.8)  # a takeback by hand: refused, the piece guided back
    assert h.state["moves"] == ["d1-d4"] and h.state["tracking"] == "setup"
    assert "not allowed" in h.state["message"]
    assert remote.sent("takeback") == []

    c, club = online_game(tmp_path / "club", kind="club", takebacks=True)
    assert c.state["players"]["defenders"]["kind"] == "club"
    c.move("d1", "d4")
    club.send(RemoteMove(1, mv("f4-e4")))
    c.run(0.05)
    c.move("f4", "e4")
    c.move("h1", "h3")
    out = c.session.takeback(OWNER)
    assert out["undone"] == "h1-h3" and club.sent("takeback") == [("takeback", 2)]
    club.send(RemoteTakeback(1))  # the other board takes back its own move too
    c.run(0.1)
    assert c.state["moves"] == ["d1-d4"] and c.store.move_texts(c.session.gid) == ["d1-d4"]
    assert c.state["turn"] == "defenders"


def test_draws_resignations_and_the_other_ends_own_words(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path)
    h.move("d1", "d4")
    remote.send(RemoteDraw("defenders", "offer"))
    h.run(0.05)
    assert h.state["draw_offer"] == "defenders" and remote.sent("draw") == []
    with pytest.raises(ControlError) as err:  # nobody here decides for the other end
        h.session.draw(OWNER, "accept", "defenders")
    assert err.value.code in ("remote_side", "no_offer")
    h.session.draw(OWNER, "decline", "attackers")
    assert remote.sent("draw") == [("draw", "attackers", "decline")]
    h.session.draw(OWNER, "offer", "attackers")
    remote.send(RemoteDraw("defenders", "accept"))
    h.run(0.05)
    assert (h.state["result"], h.state["reason"]) == ("draw", "agreement")
    assert remote.sent("draw")[-1] == ("draw", "attackers", "offer")
    # a new game on the server: the finished one stays as it ended, the board plays again
    gid = h.session.gid
    remote.send(RemoteStart(terms("defenders", None, ref="hnefatafl.org:49152/5")))
    h.run(0.5)
    assert h.session.gid != gid and h.state["players"]["attackers"]["kind"] == "online"
    remote.send(RemoteMove(0, mv("d1-d4")))
    h.run(0.05)
    h.move("d1", "d4")
    h.session.resign(OWNER, "defenders")
    assert remote.sent("resign") == [("resign", "defenders")]
    with pytest.raises(ControlError) as err:
        h.session.resign(OWNER, "attackers")
    assert err.value.code == "game_over"
    # a third game ends in the server's own words (stored, exported)
    remote.send(RemoteStart(terms("attackers", None, ref="hnefatafl.org:49152/6")))
    h.run(0.5)
    remote.send(RemoteResign("defenders"))
    h.run(0.05)
    assert (h.state["result"], h.state["reason"]) == ("attackers", "resignation")
    remote.send(RemoteStart(terms("attackers", None, ref="hnefatafl.org:49152/7")))
    h.run(0.5)
    remote.send(RemoteEnd("draw", "move_limit"))
    h.run(0.05)
    assert (h.state["result"], h.state["reason"]) == ("draw", "move_limit")
    row = h.store.game(h.session.gid)
    assert (row.result, row.reason) == ("draw", "move_limit")
    assert "# result: draw (move_limit)" in h.session.export(row.id, "csv")
    assert h.store.load_game(row.id).is_over()


def test_a_restart_mid_game_reconciles_with_the_other_end(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path)
    h.move("d1", "d4")
    remote.send(RemoteMove(1, mv("f4-e4")))
    h.run(0.05)
    h.move("f4", "e4")
    gid = h.session.gid
    h.session.close()
    assert remote.closed
    h2 = h.reopen()  # a power cut: the board is as it was, the store too
    again = FakeRemote(h2.path)
    h2.session.attach_remote(again)
    h2.run(0.1)
    assert h2.session.gid == gid
    assert again.sent("started") == [("started", REF, (mv("d1-d4"), mv("f4-e4")))]
    # the board's move made while the link was down reaches the other end once it is back
    h2.move("f2", "f4")
    assert again.sent("move") == [("move", 2, mv("f2-f4"))]
    # the other end missed nothing; its reply was made while this board was down
    again.send(RemoteStart(terms(), (mv("d1-d4"), mv("f4-e4"), mv("f2-f4"), mv("g7-g8"))))
    h2.run(0.05)
    assert h2.state["move_to_make"]["move"] == "g7-g8"
    assert h2.session.gid == gid
    # a record that differs would drop the board's f2-f4: the board keeps it, the page asks the
    # owner, nothing is sent meanwhile (issue 25: never dropped on the other end's word alone)
    started = len(again.sent("started"))
    again.send(RemoteStart(terms(), (mv("d1-d4"), mv("f4-e4"), mv("h1-h3"), mv("g7-g8"))))
    h2.run(0.1)
    assert h2.state["moves"] == ["d1-d4", "f4-e4", "f2-f4xe4"]
    assert h2.state["remote"]["dispute"] == {"from": 3, "theirs": 4, "ours": 3}
    assert len(again.sent("started")) == started
    assert h2.store.move_texts(gid)[:3] == ["d1-d4", "f4-e4", "f2-f4xe4"]
    # the owner takes the other end's record: the board is guided to its position
    assert h2.session.take_record(OWNER)["before"] == 3
    h2.run(0.1)
    assert h2.state["remote"]["dispute"] is None
    assert h2.state["moves"] == ["d1-d4", "f4-e4", "h1-h3"]
    assert h2.state["move_to_make"]["move"] == "g7-g8"
    assert h2.store.move_texts(gid)[:3] == ["d1-d4", "f4-e4", "h1-h3"]


def test_the_board_plays_under_its_account_name_and_a_new_game_names_every_seat(
        tmp_path: Path) -> None:
    """Issue 26: the board's own player showed as "Player 1", not the account it plays on the
    server; "New game, same players" after the online game left the online seat's name empty."""
    h = Harness(tmp_path)
    remote = FakeRemote(h.path)
    h.session.attach_remote(remote)
    remote.send(RemoteStart(replace(terms("attackers"), local_name="alice")))
    h.run(0.5)
    assert h.state["players"]["attackers"]["name"] == "alice"
    assert h.state["players"]["defenders"]["name"] == "bob"
    remote.send(RemoteEnd("attackers", "resignation"))
    h.run(0.1)
    h.session.new_game(OWNER, {})
    h.run(0.1)
    players = h.state["players"]
    assert [players[s]["kind"] for s in ("attackers", "defenders")] == ["board", "board"]
    assert [players[s]["name"] for s in ("attackers", "defenders")] == ["alice", "Player 2"]


def test_a_record_lacking_a_confirmed_move_is_the_owners_to_take(tmp_path: Path) -> None:
    """The other end's record lacks a move it had confirmed (online: the server acknowledged
    the board's move): the session keeps it and asks the owner; a record that only lacks the
    board's last move, never confirmed, is not asked about (the client resends it)."""
    h, remote = online_game(tmp_path)
    h.move("d1", "d4")
    remote.send(RemoteMove(1, mv("f4-e4")))
    h.run(0.05)
    h.move("f4", "e4")
    h.move("h1", "h3")
    record = (mv("d1-d4"), mv("f4-e4"))
    remote.send(RemoteStart(terms(), record, confirmed=3))      # h1-h3 had been confirmed
    h.run(0.1)
    assert h.state["moves"] == ["d1-d4", "f4-e4", "h1-h3"]
    assert h.state["remote"]["dispute"] == {"from": 3, "theirs": 2, "ours": 3}
    with pytest.raises(ControlError) as refused:
        h.session.take_record(SPECTATOR)
    assert refused.value.status == 403
    h.session.take_record(OWNER)
    h.run(0.1)
    assert h.state["moves"] == ["d1-d4", "f4-e4"] and h.state["remote"]["dispute"] is None
    with pytest.raises(ControlError) as none:
        h.session.take_record(OWNER)
    assert none.value.code == "no_dispute"
    h.click("h3", 0.1)          # the board is guided back to the record: h3 to h1
    h.click("h1", 0.6)
    assert h.state["tracking"] == "ready"
    h.move("h1", "h3")
    remote.send(RemoteStart(terms(), record))                    # never confirmed: resent
    h.run(0.1)
    assert h.state["moves"] == ["d1-d4", "f4-e4", "h1-h3"]
    assert h.state["remote"]["dispute"] is None
    assert remote.sent("started")[-1] == ("started", REF, record + (mv("h1-h3"),))


def test_joining_a_game_in_progress_sets_the_board_up_first(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path, local="defenders",
                            moves=(mv("d1-d4"), mv("f4-e4"), mv("f2-f4")))
    st = h.state
    assert st["moves"] == ["d1-d4", "f4-e4"]  # played at once: the board is guided there
    assert st["tracking"] == "setup" and {"d1", "f4"} <= set(st["guidance"]["clear"])
    assert st["move_to_make"]["move"] == "f2-f4"  # the other end's last: made at the board
    assert h.store.move_texts(h.session.gid) == ["d1-d4", "f4-e4"]
    h2, remote2 = online_game(tmp_path / "b", local="attackers",
                              moves=(mv("d1-d4"), mv("f4-e4")))
    st = h2.state
    assert st["moves"] == ["d1-d4"] and st["move_to_make"]["move"] == "f4-e4"


def test_controls_that_would_leave_a_game_at_a_distance_are_refused(tmp_path: Path) -> None:
    h, remote = online_game(tmp_path)
    for control, args in ((h.session.new_game, ({},)), (h.session.swap, ()),
                          (h.session.set_players, ({"attackers": {"name": "X"}},))):
        with pytest.raises(ControlError) as err:
            control(OWNER, *args)
        assert err.value.code == "remote_game"
    with pytest.raises(ControlError) as err:
        h.session.request_hint(OWNER)
    assert err.value.code == "no_hint"
    h.move("d1", "d4")
    with pytest.raises(ControlError) as err:
        h.session.choose_move(OWNER, "f4-e4")
    assert err.value.code == "remote_side"
    h.session.resign(OWNER, "attackers")
    assert h.session.new_game(OWNER, {})["game"]
    assert remote.sent("stopped") == [("stopped",)]
    assert h.state["remote"]["ref"] is None


def test_a_game_that_does_not_fit_the_board_is_refused(tmp_path: Path) -> None:
    from session_helpers import HandBoard

    rules = get_variant("copenhagen")
    h = Harness(tmp_path, board=HandBoard(11, Game(rules).board.occupied_names()))
    remote = FakeRemote(h.path)
    h.session.attach_remote(remote)
    remote.send(RemoteStart(terms(variant="brandubh")))
    h.run(0.1)
    assert h.state["remote"]["code"] == "cannot_play"
    assert "7x7" in h.state["remote"]["message"] and remote.sent("stopped")
    assert h.state["variant"] == "copenhagen"


def test_player_specs_for_players_at_a_distance() -> None:
    assert PlayerSpec.parse("online").kind is PlayerKind.ONLINE
    club = PlayerSpec.parse("club:table-2", "Ann")
    assert (club.kind, club.peer, club.spec) == (PlayerKind.CLUB, "table-2", "club:table-2")
    assert club.to_json() == {"name": "Ann", "kind": "club", "board": "table-2"}
    assert PlayerSpec.from_stored(club.to_json(), "x") == club
    rated = PlayerSpec(PlayerKind.ONLINE, "bob", rating=1500.0)
    assert PlayerSpec.from_stored(rated.to_json(), "x") == rated
    for bad in ("club:", "club:a/b", "club:Table", "club:" + "x" * 33, "online:x"):
        with pytest.raises(PlayerError):
            PlayerSpec.parse(bad)


def test_a_club_game_proposed_here_starts_once_the_other_board_agrees(tmp_path: Path) -> None:
    h = Harness(tmp_path, defenders="club:table-2", tc="5+0")
    club = FakeRemote(h.path, "club", takebacks=True)
    h.session.attach_remote(club)
    h.run(0.1)
    (_, ref, moves), = club.sent("started")
    assert ref == "" and moves == ()  # a proposal: the player agrees it with the other board
    assert "Waiting for Bo to agree" in h.state["message"]
    h.click("d1", 0.1)
    h.click("d4", 0.8)
    assert h.state["moves"] == [] and h.state["tracking"] == "setup"  # refused, guided back
    h.click("d4", 0.1)
    h.click("d1", 0.6)
    agreed = RemoteTerms(GameSettings.make("copenhagen"), TimeControl.parse("5+0"),
                         "attackers", "Bo", "club:oslo/table-1/8f3a9c01")
    club.send(RemoteStart(agreed))
    h.run(0.5)
    assert h.state["remote"]["ref"] == "club:oslo/table-1/8f3a9c01"
    assert club.sent("started")[-1] == ("started", "club:oslo/table-1/8f3a9c01", ())
    h.move("d1", "d4")
    assert club.sent("move") == [("move", 0, mv("d1-d4"))]
    # the other board's clock is its own side's word; this board's side is this board's
    clock = h.session.clock
    assert clock is not None
    mine = clock.left("attackers", h.t)
    club.send(RemoteClock(123.0, 200.0, "defenders", at=h.t))
    h.run(0.01)
    clock = h.session.clock
    assert clock is not None
    assert clock.left("defenders", h.t) == pytest.approx(200.0, abs=0.05)
    assert clock.left("attackers", h.t) == pytest.approx(mine, abs=0.05)
