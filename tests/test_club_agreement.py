"""Agreeing on a club game when the peer's documents arrive as only the newest one.

A board's link keeps one queued document per topic (a newer one replaces the older) and its
flood guard keeps only the newest, so a board that is slow to read (a busy Pi, a CPU hog beside
the tests) can see the peer's agreement without ever having read the offer before it. Beside
``stress-ng`` this left one board agreed and the other waiting for good
(test_club_play.py's ``agree``, seen at load 25). No broker here: each board's published
documents are handed to the other by the test, the last one only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from club_fakes import FakeBoardSession, terms

from companion.club.outbox import Outbox
from companion.club.player import ClubPlayer


class LatestOnlyLink:
    """A link that records what its board publishes; the test delivers the newest."""

    state = "connected"

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def on_connect(self, hook: Any) -> None:
        pass

    def subscribe(self, topic: str, handler: Any, qos: int = 1) -> None:
        pass

    def unsubscribe(self, topic: str) -> None:
        pass

    def publish(self, topic: str, payload: bytes, **kw: Any) -> None:
        self.sent.append((topic, payload))

    def newest(self) -> bytes:
        return self.sent[-1][1]


def board(tmp: Path, me: str, peer: str) -> tuple[ClubPlayer, LatestOnlyLink, FakeBoardSession]:
    link = LatestOnlyLink()
    player = ClubPlayer(link, Outbox(tmp / f"{me}.sqlite3"), "oslo", me, peer)  # type: ignore
    return player, link, FakeBoardSession(player)


def test_the_peers_agreement_read_without_its_offer_starts_the_same_game(tmp_path: Path
                                                                         ) -> None:
    one, one_link, one_session = board(tmp_path, "table-1", "table-2")
    two, two_link, two_session = board(tmp_path, "table-2", "table-1")
    one_session.started(terms("brandubh", "attackers", "5+3"))
    two_session.started(terms("brandubh", "defenders", "5+3"))
    offered = len(one_link.sent)
    one.received("", two_link.newest())  # table-1 reads table-2's offer: the same terms
    one_session.pump()
    assert one_session.game is not None and one_session.terms is not None
    assert len(one_link.sent) > offered  # table-1 published the agreement
    # table-2 never read table-1's offer: only the agreement that replaced it
    assert json.loads(one_link.newest())["offer"] is None
    two.received("", one_link.newest())
    two_session.pump()
    assert two_session.game is not None and two_session.terms is not None
    assert two_session.terms.ref == one_session.terms.ref
    assert (one_session.terms.local_side, two_session.terms.local_side) == ("attackers",
                                                                            "defenders")


def test_an_ended_game_of_the_peer_on_the_same_terms_is_not_taken_up(tmp_path: Path) -> None:
    one, one_link, one_session = board(tmp_path, "table-1", "table-2")
    two, two_link, two_session = board(tmp_path, "table-2", "table-1")
    one_session.started(terms("brandubh", "attackers", "5+3"))
    two_session.started(terms("brandubh", "defenders", "5+3"))
    one.received("", two_link.newest())
    one_session.pump()
    one.send_resign("attackers")  # table-1's game is over before table-2 read anything
    two.received("", one_link.newest())
    two_session.pump()
    assert two_session.game is None
    assert two.proposal is None and two.phase == "offering"
