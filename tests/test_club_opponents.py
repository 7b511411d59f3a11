"""The other boards of a club as a board's one club player (ClubOpponents) over a real
Mosquitto, each board with a stand-in of its session (tests/club_fakes.py): only the active
board's game reaches the session, other boards' proposals wait for the owner (and are never
agreed by themselves during a game), a flag crosses over as the end of the game, the boards
seen on the broker are listed, and a flood of boards is bounded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from club_broker import CLUB_KEY, MOSQUITTO, module_broker
from club_fakes import FakeBoardSession, terms, wait_for
from club_rogue import Rogue
from prerequisites import require
from test_daemon_support import PATIENCE

from companion.club import opponents as opponents_module
from companion.club.config import Broker
from companion.club.link import ClubLink
from companion.club.opponents import ClubOpponents
from companion.club.outbox import Outbox
from companion.session.remote import (
    RemoteDraw,
    RemoteEnd,
    RemoteMove,
    RemoteStart,
    RemoteTerms,
)

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)


@pytest.fixture(scope="module")
def broker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from module_broker(tmp_path_factory.mktemp("mosquitto"))


KEY = CLUB_KEY.encode()


class Board:
    """One board of the club: its link, outbox, ClubOpponents and the stand-in session."""

    def __init__(self, url: str, folder: Path, club: str, me: str,
                 accept: tuple[str, ...] = ()) -> None:
        self.club, self.me = club, me
        self.link = ClubLink(Broker.parse(url), f"tafl-{club}-{me}", key=KEY, board=me,
                             will=(f"tafl/{club}/{me}/status", b'{"online":false}'))
        self.outbox = Outbox(folder / f"{me}.sqlite3")
        self.player = ClubOpponents(self.link, self.outbox, club, me, accept=accept)
        self.session = FakeBoardSession(self.player)
        self.link.on_connect(lambda: self.link.publish(f"tafl/{club}/{me}/status",
                                                       b'{"online":true}', retain=True))
        self.link.start()
        assert self.link.subscribed.wait(PATIENCE)

    def propose(self, peer: str, side: str, variant: str = "brandubh", tc: str = "none") -> None:
        t = terms(variant, side, tc)
        self.session.started(RemoteTerms(t.settings, t.time_control, side, peer, ""))

    def statuses(self) -> list[str | None]:
        return [s.code for s in self.session.statuses]

    def close(self) -> None:
        self.player.close()
        self.link.close()
        self.outbox.close()


def club_name(request: pytest.FixtureRequest) -> str:
    return "o" + str(abs(hash(request.node.name)) % 10**8)


def test_only_the_active_boards_game_reaches_the_session(broker_url: str, tmp_path: Path,
                                                         request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    one = Board(broker_url, tmp_path, club, "table-1", accept=("table-3",))
    two = Board(broker_url, tmp_path, club, "table-2")
    three = Board(broker_url, tmp_path, club, "table-3")
    boards = (one, two, three)
    pumps = tuple(b.session for b in boards)
    try:
        one.propose("table-2", "attackers")
        two.propose("table-1", "defenders")
        wait_for(lambda: one.session.game is not None and two.session.game is not None,
                 pumps=pumps)
        assert one.player.active == "table-2" and two.player.active == "table-1"
        wait_for(lambda: {b["board"] for b in one.player.status()["boards"]}
                 >= {"table-2", "table-3"}, pumps=pumps)
        one.session.play("d1-e1")
        wait_for(lambda: two.session.game is not None and two.session.game.moves == ["d1-e1"],
                 pumps=pumps)
        # table-3 proposes mid-game: shown to table-1's owner, never agreed by itself (even
        # though table-1 accepts table-3's proposals), and the owner cannot accept it now
        three.propose("table-1", "defenders", "tablut")
        wait_for(lambda: "proposal" in one.statuses(), pumps=pumps)
        assert one.player.status()["proposals"][0]["board"] == "table-3"
        assert one.player.busy("table-3") and not one.player.busy("table-2")
        assert len(one.session.of(RemoteStart)) == 1
        # the game with table-2 goes on
        two.session.play("d3-e3")
        wait_for(lambda: len(one.session.of(RemoteMove)) == 1, pumps=pumps)
        # it ends (table-1's state says so): now table-3's proposal can be played
        assert one.session.terms is not None
        one.player.observe({"result": "defenders", "reason": "resignation",
                            "remote": {"ref": one.session.terms.ref}})
        assert not one.player.busy("table-3")
        assert one.player.accept("table-3")
        wait_for(lambda: three.session.game is not None and len(one.session.of(RemoteStart))
                 == 2, pumps=pumps)
        assert one.player.active == "table-3"
        assert one.session.terms and one.session.terms.settings.variant == "tablut"
        assert (one.session.terms.local_side, one.session.terms.opponent) == ("attackers",
                                                                              "table-3")
        # a late message of table-2's finished game does not reach the session any more
        two.player.send_draw("defenders", "offer")
        one.session.play("d1-d3")  # an attacker of tablut
        wait_for(lambda: three.session.game is not None and len(three.session.game.played) == 1,
                 pumps=pumps)
        wait_for(lambda: two.link.pending == 0, pumps=pumps)
        assert not one.session.of(RemoteDraw)
    finally:
        for b in boards:
            b.close()


def test_a_flag_at_one_board_ends_the_game_at_the_other(broker_url: str, tmp_path: Path,
                                                        request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    one = Board(broker_url, tmp_path, club, "table-1")
    two = Board(broker_url, tmp_path, club, "table-2")
    pumps = (one.session, two.session)
    try:
        one.propose("table-2", "attackers", tc="1+0")
        two.propose("table-1", "defenders", tc="1+0")
        wait_for(lambda: one.session.game is not None and two.session.game is not None,
                 pumps=pumps)
        assert one.session.terms is not None
        # table-1's attackers ran out of time there (its own side: its word)
        one.player.observe({"result": "defenders", "reason": "time",
                            "remote": {"ref": one.session.terms.ref},
                            "clock": {"attackers": 0.0, "defenders": 58.2, "running": None,
                                      "at": 1.0}})
        wait_for(lambda: two.session.of(RemoteEnd), pumps=pumps)
        assert two.session.of(RemoteEnd) == [RemoteEnd("defenders", "time")]
    finally:
        one.close()
        two.close()


def test_the_next_game_proposed_before_this_board_saw_the_end_is_shown(
        broker_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    one = Board(broker_url, tmp_path, club, "table-1")
    two = Board(broker_url, tmp_path, club, "table-2")
    pumps = (one.session, two.session)
    try:
        one.propose("table-2", "attackers")
        two.propose("table-1", "defenders")
        wait_for(lambda: one.session.game is not None and two.session.game is not None,
                 pumps=pumps)
        assert one.session.terms is not None
        ref = one.session.terms.ref
        # the draw is agreed; table-2 proposes the next game at once, before table-1's own
        # state says the game is over: it waits ...
        two.propose("table-1", "attackers", "tablut")
        # (the new offer, not the first game's still in table-1's copy: a race on a busy machine)
        wait_for(lambda: one.player.peers["table-2"].status()["rejected"] == 0
                 and (peer := one.player.peers["table-2"]._peer) is not None
                 and peer.offer is not None
                 and peer.offer[1].settings.variant == "tablut", pumps=pumps)
        assert "proposal" not in one.statuses()
        # ... and shows once it is
        one.player.observe({"result": "draw", "reason": "agreement", "remote": {"ref": ref}})
        wait_for(lambda: "proposal" in one.statuses(), pumps=pumps)
        assert one.player.status()["proposals"][0]["terms"]["variant"] == "tablut"
    finally:
        one.close()
        two.close()


def test_events_before_the_session_connects_wait_and_a_flood_of_boards_is_bounded(
        broker_url: str, tmp_path: Path, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    club = club_name(request)
    monkeypatch.setattr(opponents_module, "MAX_PEERS", 5)
    evil = Rogue(broker_url)  # an insider: it has the club's key
    two = Board(broker_url, tmp_path, club, "table-2")
    link = ClubLink(Broker.parse(broker_url), f"tafl-{club}-table-1", key=KEY,
                    board="table-1")
    outbox = Outbox(tmp_path / "one.sqlite3")
    one = ClubOpponents(link, outbox, club, "table-1")
    link.start()
    try:
        two.propose("table-1", "defenders")
        wait_for(lambda: one.status()["proposals"], pumps=(two.session,))
        session = FakeBoardSession(one)  # connects now: the proposal was kept for it
        session.pump()
        assert "proposal" in [s.code for s in session.statuses]
        for i in range(12):  # boards nobody knows, each with a document for table-1
            doc = {"v": 1, "from": f"x{i}", "to": "table-1", "seq": 1, "offer": None,
                   "game": None}
            evil.signed(f"tafl/{club}/x{i}/play/table-1", json.dumps(doc).encode())
        evil.signed(f"tafl/{club}/Bad Name/play/table-1", b"{}")
        wait_for(lambda: len(one.peers) == 5, pumps=(session,))
        assert "table-2" in one.peers
        assert one.accept("table-2")
        wait_for(lambda: session.game is not None and two.session.game is not None,
                 pumps=(session, two.session))
    finally:
        one.close()
        link.close()
        outbox.close()
        evil.close()
        two.close()
