"""Issue 25, attacks 3 and 4: a rogue client on a club broker WITHOUT ACLs (the tests' real
Mosquitto lets anybody publish anything) forges every kind of message a board or the room
reads: a retained move far ahead, a resignation, a flag fall, a takeback, a replay of a real
message, fake boards, a fake result for the room, and it squats the boards' client ids. None
of it changes a game, the boards a board lists, its club players, or the room page."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from club_broker import CLUB_KEY, MOSQUITTO, module_broker
from club_fakes import wait_for
from club_rogue import Rogue
from prerequisites import require
from test_club_opponents import Board as ClubBoard
from test_club_play import agree, club_name, pair, play_moves, random_game
from test_club_room import board_state
from test_daemon_support import PATIENCE

from companion.club.config import Broker
from companion.club.room_web import RoomServer
from companion.session.remote import RemoteEnd, RemoteMove, RemoteResign, RemoteTakeback

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)
FORGER_KEY = "a-key-that-is-not-the-clubs-0123456789"


@pytest.fixture(scope="module")
def broker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from module_broker(tmp_path_factory.mktemp("mosquitto"))


def refused(link: object) -> int:
    return sum(link.counts().values())  # type: ignore[attr-defined]


def test_forged_moves_resignations_flags_takebacks_and_replays_change_no_game(
        broker_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    topic = f"tafl/{club}/table-1/play/table-2"
    rogue = Rogue(broker_url, record=topic)  # it reads what table-1 says, as anybody can
    a, b = pair(broker_url, tmp_path, club)
    try:
        agree(a, b)
        texts = random_game(11, 8)
        play_moves(a, b, texts[:6])
        wait_for(lambda: any(p for t, p, _ in rogue.heard if t == topic))
        captured = [p for t, p, _ in rogue.heard if t == topic][-1]  # a real, sealed document
        play_moves(a, b, texts[6:7])
        real = json.loads(captured.split(b"\n", 1)[1])
        game = real["game"]
        ahead = random_game(11, 9)  # the real game and one more legal move of table-1's
        forged = {
            "retained move far ahead": {**real, "seq": real["seq"] + 1000,
                                        "game": {**game, "moves": ahead}},
            "resignation": {**real, "seq": real["seq"] + 1001,
                            "game": {**game, "resign": "attackers"}},
            "flag fall": {**real, "seq": real["seq"] + 1002,
                          "game": {**game, "flag": "attackers",
                                   "ended": {"result": "defenders", "reason": "time"}}},
            "takeback": {**real, "seq": real["seq"] + 1003,
                         "game": {**game, "moves": [], "takebacks": game["takebacks"] + 1}},
        }
        before = list(b.session.game.moves)  # type: ignore[union-attr]
        events = len(b.session.log)
        for what, doc in forged.items():
            body = json.dumps(doc).encode()
            for key in (None, FORGER_KEY):  # no seal; a seal made with another key
                n = refused(b.link)
                if key is None:
                    rogue.raw(topic, body, retain=True)
                else:
                    rogue.signed(topic, body, key=key, retain=True)
                wait_for(lambda: refused(b.link) > n, pumps=(b.session,))  # noqa: B023
                assert b.session.game.moves == before, what  # type: ignore[union-attr]
        n = refused(b.link)
        rogue.raw(topic, captured, retain=True)  # a real document again, later: a replay
        wait_for(lambda: refused(b.link) > n, pumps=(b.session,))
        assert b.link.counts()["unsigned"] == 4 and b.link.counts()["bad_signature"] == 4
        assert b.link.counts()["replayed"] >= 1
        new = b.session.log[events:]
        assert not [e for e in new if isinstance(e, RemoteResign | RemoteEnd | RemoteTakeback
                                                 | RemoteMove)], new
        assert b.session.game.moves == before  # type: ignore[union-attr]
        assert b.session.game and not b.session.game.is_over()
        # the real board still gets through, its move is the move to make (no forgery hid it)
        play_moves(a, b, texts[7:8])
        assert b.session.game.moves == a.session.game.moves == texts[:8]  # type: ignore
    finally:
        rogue.close()
        a.close()
        b.close()


def test_fake_boards_are_never_listed_nor_made_players(broker_url: str, tmp_path: Path,
                                                       request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    rogue = Rogue(broker_url)
    one = ClubBoard(broker_url, tmp_path, club, "table-1")
    try:
        wait_for(lambda: one.link.subscribed.is_set())
        n = refused(one.link)
        for i in range(60):
            ghost = f"ghost-{i}"
            doc = {"v": 1, "from": ghost, "to": "table-1", "seq": 1, "accepts": True,
                   "offer": None, "game": None}
            rogue.raw(f"tafl/{club}/{ghost}/status", b'{"online":true}', retain=True)
            rogue.signed(f"tafl/{club}/{ghost}/play/table-1", json.dumps(doc).encode(),
                         key=FORGER_KEY)
        wait_for(lambda: refused(one.link) >= n + 120)
        assert one.player.peers == {}
        assert one.player.status()["boards"] == []
        assert one.link.counts()["unsigned"] >= 60 and one.link.counts()["bad_signature"] >= 60
    finally:
        rogue.close()
        one.close()


def _get(server: RoomServer, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=PATIENCE) as r:
        return json.loads(r.read())


def test_the_room_shows_no_fake_result_and_no_ghost_board(broker_url: str,
                                                          request: pytest.FixtureRequest
                                                          ) -> None:
    club = club_name(request)
    rogue = Rogue(broker_url)
    server = RoomServer(Broker.parse(broker_url), club, "127.0.0.1", 0, interval=0.05,
                        key=CLUB_KEY.encode())
    server.start()
    try:
        real = board_state(1, ["d1-e1", "d3-e3"])
        rogue.signed(f"tafl/{club}/table-1/state", json.dumps(real).encode(), retain=True)
        wait_for(lambda: len(_get(server, "/api/club")["boards"]) == 1)
        before = _get(server, "/api/club")
        fake = {**real, "result": "attackers", "reason": "resign"}
        for topic, body in [(f"tafl/{club}/table-1/state", fake),
                            (f"tafl/{club}/ghost/state", real)]:
            for key in (None, FORGER_KEY):
                n = refused(server.link)
                if key is None:
                    rogue.raw(topic, json.dumps(body).encode(), retain=True)
                else:
                    rogue.signed(topic, json.dumps(body).encode(), key=key, retain=True)
                wait_for(lambda: refused(server.link) > n)  # noqa: B023
        assert _get(server, "/api/club") == before
        assert server.room.summary()["boards"][0]["state"]["result"] == "ongoing"
    finally:
        server.close()
        rogue.close()


def test_a_client_using_a_boards_id_never_kicks_it_off(broker_url: str, tmp_path: Path,
                                                       request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    one = ClubBoard(broker_url, tmp_path, club, "table-1")
    try:
        wait_for(lambda: one.link.subscribed.is_set())
        for _ in range(13):  # the board's name as the client id, as before the fix
            squatter = Rogue(broker_url, client_id=f"tafl-{club}-table-1")
            squatter.close()
        squatter = Rogue(broker_url, client_id=f"tafl-{club}-table-1", v5=False)
        squatter.close()
        # the board's exact id (learnt somehow): it is taken over once, the board comes back
        # under a new id and does not fight for the old one (the squatter stays connected)
        old = one.link.client_id
        squatter = Rogue(broker_url, client_id=old)
        wait_for(lambda: one.link.client_id != old and one.link.subscribed.is_set())
        assert squatter.connected.is_set() and squatter.connects == 1
        assert one.link.drops == 1
        squatter.close()
    finally:
        one.close()


class _Hub:
    """The daemon's state hub as the club service sees it: one snapshot."""

    def __init__(self, state: dict) -> None:
        self.text = json.dumps(state)

    def subscribe(self, listener: object) -> None:
        pass

    def unsubscribe(self, listener: object) -> None:
        pass

    def current(self) -> tuple[int, str]:
        return 1, self.text


def test_a_forged_retained_document_is_replaced_by_the_boards_own(
        broker_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """On a broker without ACLs a forgery can take the place of a board's retained state (the
    broker keeps the last one): the board sees it on its own topic and publishes its own
    again, so a room or a board that subscribes later gets the real one."""
    from companion.club.config import parse_club
    from companion.club.seal import Verifier
    from companion.club.service import ClubService

    club = club_name(request)
    topic = f"tafl/{club}/table-1/state"
    cfg = parse_club({"broker": broker_url, "name": club, "board": "table-1",
                      "key": CLUB_KEY, "allow_anonymous_broker": True})
    service = ClubService(cfg, tmp_path)
    service.attach(_Hub({**board_state(3, ["d1-e1"]), "result": "ongoing"}))
    service.start()
    rogue = Rogue(broker_url, record=topic)
    try:
        wait_for(lambda: any(t == topic for t, _, _ in rogue.heard))
        n = refused(service.link)
        rogue.raw(topic, json.dumps({**board_state(3, ["d1-e1"]), "result": "attackers"}
                                    ).encode(), retain=True)
        wait_for(lambda: refused(service.link) > n)

        def late_reader_gets_the_real_state() -> bool:
            late = Rogue(broker_url, record=topic)
            try:
                wait_for(lambda: bool(late.heard))
                body = Verifier(CLUB_KEY.encode()).open(topic, late.heard[0][1], True)
                return bool(json.loads(body)["result"] == "ongoing")
            except ValueError:  # still the forgery (unsigned)
                return False
            finally:
                late.close()

        wait_for(late_reader_gets_the_real_state)
    finally:
        rogue.close()
        service.close()
