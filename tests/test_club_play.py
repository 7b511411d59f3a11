"""Board-to-board play over a real Mosquitto: two club players, each with a stand-in of its
session (tests/club_fakes.py), agree on the game, play it, and survive hostile traffic, a
broker restart and a restarted board."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from club_broker import CLUB_KEY, MOSQUITTO, Mosquitto, module_broker
from club_fakes import FakeBoardSession, terms, wait_for
from club_rogue import Rogue
from prerequisites import require
from test_daemon_support import PATIENCE

from companion.club.config import Broker
from companion.club.link import ClubLink
from companion.club.outbox import Outbox
from companion.club.player import ClubPlayer
from companion.rules.game import Game

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)


@pytest.fixture(scope="module")
def broker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from module_broker(tmp_path_factory.mktemp("mosquitto"))


class Board:
    """One board's club side: link, outbox, player and the stand-in session."""

    def __init__(self, url: str, folder: Path, club: str, me: str, peer: str,
                 accepts: bool = False, carry_out: bool = True) -> None:
        self.url, self.folder, self.club, self.me, self.peer = url, folder, club, me, peer
        self.link = ClubLink(Broker.parse(url), f"tafl-{club}-{me}", key=CLUB_KEY.encode(),
                             board=me)
        self.outbox = Outbox(folder / "club.sqlite3")
        self.player = ClubPlayer(self.link, self.outbox, club, me, peer, accepts=accepts)
        self.session = FakeBoardSession(self.player, carry_out)
        self.link.start()
        assert self.link.subscribed.wait(PATIENCE)

    def close(self) -> None:
        self.player.close()
        self.link.close()
        self.outbox.close()


def club_name(request: pytest.FixtureRequest) -> str:
    return "t" + str(abs(hash(request.node.name)) % 10**8)


def random_game(seed: int, plies: int, variant: str = "brandubh") -> list[str]:
    from companion.session.remote import GameSettings

    game = Game(GameSettings.make(variant).rules())
    rnd = random.Random(seed)
    while len(game.played) < plies and not game.is_over():
        moves = game.board.legal_moves()
        game.play(rnd.choice(moves))
    return game.moves


def pair(url: str, tmp: Path, club: str, **kw: bool) -> tuple[Board, Board]:
    a = Board(url, tmp / "a", club, "table-1", "table-2", accepts=kw.get("a_accepts", False))
    b = Board(url, tmp / "b", club, "table-2", "table-1", accepts=kw.get("b_accepts", False))
    return a, b


def agree(a: Board, b: Board, variant: str = "brandubh", tc: str = "5+3") -> None:
    a.session.started(terms(variant, "attackers", tc))
    b.session.started(terms(variant, "defenders", tc))
    wait_for(lambda: a.session.game is not None and b.session.game is not None,
             pumps=(a.session, b.session))


def play_moves(a: Board, b: Board, texts: list[str]) -> None:
    for text in texts:
        mover, other = (a, b) if a.session.game and a.session.game.turn == (
            a.session.terms.local_side if a.session.terms else "") else (b, a)
        mover.session.play(text)
        n = len(mover.session.game.played)  # type: ignore[union-attr]
        wait_for(lambda n=n, other=other: len(other.session.game.played) == n,  # type: ignore
                 pumps=(a.session, b.session))
    wait_for(lambda: settled(a, b), pumps=(a.session, b.session))


def settled(a: Board, b: Board) -> bool:
    """Both boards have said all they will about the moves made: each one's document holds
    every move and each has read the other's newest document. (The board that receives a move
    hands it to its session before it publishes its own document with it; a message sent on
    that board's topic meanwhile is rightly replaced or refused as older by the newer one, so a
    test that sends such messages must wait for this first.)"""
    plies = len(a.session.game.played) if a.session.game else 0
    for mine, theirs in ((a, b), (b, a)):
        game = mine.player.doc["game"]
        if not game or len(game["moves"]) != plies:
            return False
        if theirs.player.own.seen.get("seq") != mine.player.doc["seq"]:
            return False
    return True


def test_two_boards_agree_and_play_a_game(broker_url: str, tmp_path: Path,
                                          request: pytest.FixtureRequest) -> None:
    a, b = pair(broker_url, tmp_path, club_name(request))
    try:
        agree(a, b)
        assert a.session.terms and b.session.terms
        assert a.session.terms.ref == b.session.terms.ref
        assert (a.session.terms.local_side, b.session.terms.local_side) == ("attackers",
                                                                            "defenders")
        assert a.session.terms.time_control == b.session.terms.time_control
        texts = random_game(7, 30)
        play_moves(a, b, texts)
        assert a.session.game and b.session.game
        assert a.session.game.moves == b.session.game.moves == texts
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("variant", sorted(__import__("companion.rules",
                                                      fromlist=["PRESETS"]).PRESETS))
def test_every_preset_is_agreed_with_its_house_rules(variant: str, broker_url: str,
                                                     tmp_path: Path,
                                                     request: pytest.FixtureRequest) -> None:
    a, b = pair(broker_url, tmp_path, club_name(request))
    try:
        a.session.started(terms(variant, "defenders", "10+5", chain_capture=True))
        b.session.started(terms("copenhagen", "attackers"))  # its own wish differs
        wait_for(lambda: bool(b.session.statuses), pumps=(a.session, b.session))
        assert b.session.statuses[-1].code == "proposal"
        assert b.player.status()["proposal"]["terms"]["variant"] == variant
        assert a.session.game is None and b.session.game is None  # nothing before the owner
        assert b.player.accept()
        wait_for(lambda: a.session.game is not None and b.session.game is not None,
                 pumps=(a.session, b.session))
        ta, tb = a.session.terms, b.session.terms
        assert ta and tb and ta.settings == tb.settings
        assert ta.settings.variant == variant and tb.settings.rules().chain_capture
        assert (ta.local_side, tb.local_side) == ("defenders", "attackers")
        first = random_game(3, 2, variant)
        play_moves(a, b, first)
        assert a.session.game and b.session.game and a.session.game.moves == first
    finally:
        a.close()
        b.close()


def test_configured_acceptance_takes_the_peers_terms(broker_url: str, tmp_path: Path,
                                                     request: pytest.FixtureRequest) -> None:
    a, b = pair(broker_url, tmp_path, club_name(request), b_accepts=True)
    try:
        a.session.started(terms("tablut", "attackers", "3+2"))
        b.session.started(terms("brandubh", "defenders"))
        wait_for(lambda: a.session.game is not None and b.session.game is not None,
                 pumps=(a.session, b.session))
        assert b.session.terms and b.session.terms.settings.variant == "tablut"
        assert b.session.terms.time_control and b.session.terms.time_control.text == "3+2"
    finally:
        a.close()
        b.close()


def test_takeback_draw_and_resignation_cross_over(broker_url: str, tmp_path: Path,
                                                  request: pytest.FixtureRequest) -> None:
    from club_fakes import RemoteDraw, RemoteResign, RemoteTakeback

    a, b = pair(broker_url, tmp_path, club_name(request))
    try:
        agree(a, b)
        texts = random_game(11, 4)
        play_moves(a, b, texts)
        # the defenders' board takes back the last move (its own)
        assert b.session.game is not None
        b.session.game.undo()
        b.player.send_takeback(3)
        wait_for(lambda: a.session.of(RemoteTakeback), pumps=(a.session, b.session))
        assert a.session.game and a.session.game.moves == texts[:3]
        play_moves(a, b, [texts[3]])  # played again
        b.player.send_draw("defenders", "offer")
        wait_for(lambda: a.session.of(RemoteDraw), pumps=(a.session, b.session))
        a.player.send_draw("attackers", "decline")
        wait_for(lambda: b.session.of(RemoteDraw), pumps=(a.session, b.session))
        assert b.session.of(RemoteDraw)[0] == RemoteDraw("attackers", "decline")
        a.player.send_resign("attackers")
        wait_for(lambda: b.session.of(RemoteResign), pumps=(a.session, b.session))
        assert b.session.of(RemoteResign) == [RemoteResign("attackers")]
        assert a.session.of(RemoteTakeback) == [RemoteTakeback(3)]  # once, not per message
    finally:
        a.close()
        b.close()


def test_hostile_traffic_is_refused_and_changes_nothing(broker_url: str, tmp_path: Path,
                                                        request: pytest.FixtureRequest) -> None:
    club = club_name(request)
    a, b = pair(broker_url, tmp_path, club)
    evil = Rogue(broker_url)  # an insider: it has the club's key (an outsider: test_club_attacks)
    try:
        agree(a, b)
        texts = random_game(5, 3)
        play_moves(a, b, texts[:2])
        topic = f"tafl/{club}/table-1/play/table-2"
        good = json.loads(json.dumps({"v": 1, "from": "table-1", "to": "table-2",
                                      **a.player.doc}))
        before = list(b.session.game.moves)  # type: ignore[union-attr]
        bad: list[bytes] = [
            b"{not json", b"[1, 2]", b"\xff\xfe", b'{"v": 1, "seq": NaN}',
            b"x" * 100_000,
            json.dumps({**good, "from": "table-9"}).encode(),        # another board
            json.dumps({**good, "seq": good["seq"] + 50,              # history rewritten
                        "game": {**good["game"], "moves": [texts[1], texts[0]]}}).encode(),
            json.dumps({**good, "seq": good["seq"] + 60,              # an illegal move
                        "game": {**good["game"], "moves": [*good["game"]["moves"],
                                                           "d4-d4"]}}).encode(),
        ]
        def refused() -> int:
            return b.player.rejected + b.link.dropped["too_big"]

        for payload in bad:  # one by one (a newer message on a topic replaces a queued one)
            n = refused()
            evil.signed(topic, payload, qos=1)
            wait_for(lambda: refused() > n, pumps=(b.session,))  # noqa: B023
        assert b.session.game and b.session.game.moves == before
        # the flood, and an old document again (a QoS 1 resend): nothing changes
        for _ in range(300):
            evil.signed(topic, json.dumps({**good, "seq": 1}).encode(), qos=0)
        play_moves(a, b, [texts[2]])  # the real board still gets through
        assert b.session.game.moves == texts
    finally:
        evil.close()
        a.close()
        b.close()


def test_a_restarted_board_gets_what_was_played_meanwhile(broker_url: str, tmp_path: Path,
                                                          request: pytest.FixtureRequest
                                                          ) -> None:
    a, b = pair(broker_url, tmp_path, club_name(request))
    try:
        agree(a, b)
        texts = random_game(21, 6)
        play_moves(a, b, texts[:4])
        stored = b.session.game
        t = b.session.terms
        b.close()  # the board goes away (its store keeps the game)
        a.session.play(texts[4])  # the attackers move meanwhile
        b = Board(broker_url, tmp_path / "b", a.club, "table-2", "table-1")
        b.session.game, b.session.terms = stored, t
        assert t is not None
        b.session.started(t)
        wait_for(lambda: len(b.session.game.played) == 5,  # type: ignore[union-attr]
                 pumps=(a.session, b.session))
        play_moves(a, b, texts[5:6])
        assert a.session.game and a.session.game.moves == b.session.game.moves == texts
    finally:
        a.close()
        b.close()


def test_the_broker_restarts_mid_game_and_no_move_is_lost(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    a, b = pair(broker.url, tmp_path, "restart")
    try:
        agree(a, b)
        texts = random_game(9, 6)
        play_moves(a, b, texts[:3])
        broker.stop()
        b.session.play(texts[3])  # played while the broker is down
        broker.start()
        wait_for(lambda: len(a.session.game.played) == 4,  # type: ignore[union-attr]
                 pumps=(a.session, b.session))
        play_moves(a, b, texts[4:])
        assert a.session.game and b.session.game
        assert a.session.game.moves == b.session.game.moves == texts
    finally:
        a.close()
        b.close()
        broker.stop()
