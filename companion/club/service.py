"""What the daemon starts for a board of a club: the broker link, the outbox, the publisher,
and a :class:`~companion.club.player.ClubPlayer` per other board it plays.

Wiring (``companion.daemon``)::

    club = ClubService(cfg.club, data_dir)
    club.attach(hub)      # every state snapshot the session announces goes to the publisher
    club.start()
    session.attach_remote(club.opponents)   # the session's one club player: every other board
    ...                   # ``club:table-2``: club.player("table-2") checks the name
    club.close()

The hub's listener runs on the scan loop's thread and only hands over the snapshot's text; the
work happens on the publisher's thread and the link's network thread.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

from companion.club import topics
from companion.club.config import ClubConfig, check_name
from companion.club.link import ClubLink
from companion.club.opponents import ClubOpponents, OpponentsStatus
from companion.club.outbox import OUTBOX_NAME, Outbox
from companion.club.publisher import BoardPublisher

HEAL_S = 1.0  # a forged document of this board's is replaced at most this often


class ClubStatus(OpponentsStatus):
    """``GET /club/api/status``: the broker, the club, this board, the link's state and error,
    what it refused (by reason), and :class:`OpponentsStatus`."""

    broker: str
    club: str
    board: str
    link: str
    error: str | None
    refused: dict[str, int]


class Hub(Protocol):
    """What the service needs of the daemon's state hub (:class:`companion.web.hub.StateHub`)."""

    def subscribe(self, listener: Any) -> None: ...

    def unsubscribe(self, listener: Any) -> None: ...

    def current(self) -> tuple[int, str]: ...


class ClubService:
    """One board's membership of a club (see the module docstring)."""

    def __init__(self, cfg: ClubConfig, data_dir: Path) -> None:
        self.cfg = cfg
        offline = (topics.status_topic(cfg.club, cfg.board), topics.encode({"online": False}))
        self.link = ClubLink(cfg.broker, f"tafl-{cfg.club}-{cfg.board}",
                             key=cfg.club_key(Path(data_dir)), board=cfg.board, will=offline,
                             on_status=self._link_changed)
        self._offline = offline
        self.outbox = Outbox(Path(data_dir) / OUTBOX_NAME)
        self.publisher = BoardPublisher(self.link, self.outbox, cfg.club, cfg.board)
        self.opponents = ClubOpponents(self.link, self.outbox, cfg.club, cfg.board,
                                       accept=cfg.accept)
        self.publisher.observers.append(self.opponents.observe)
        self._own_status = offline[0]
        self.link.subscribe(self._own_status, self._status_said)
        # this board's own documents, to see a forgery put in their place (no handler needed:
        # a forged one is refused by the link, which says so through on_forged)
        self._own = f"{topics.prefix(cfg.club, cfg.board)}/#"
        self._forged: set[str] = set()
        self._heal: threading.Timer | None = None
        self._heal_lock = threading.Lock()
        self.link.subscribe(self._own, lambda topic, body: None)
        self.link.on_forged = self._forged_on
        self._hub: Hub | None = None

    def attach(self, hub: Hub) -> None:
        self._hub = hub
        hub.subscribe(self._changed)
        self._changed()

    def _changed(self) -> None:
        if self._hub is not None:
            self.publisher.offer(self._hub.current()[1])

    def start(self) -> None:
        self.publisher.start()
        self.link.start()

    def player(self, peer: str) -> ClubOpponents:
        """The session's club player for ``club:PEER`` (every other board; ValueError for a
        bad name or this board itself)."""
        check_name(peer, f"club:{peer}")
        self.opponents.player(peer)
        return self.opponents

    def _status_said(self, topic: str, body: bytes) -> None:
        """This board's own status: "offline" while it is connected is its will put back by
        somebody else (or an old one): say "online" again."""
        if body == self._offline[1] and self.link.connected.is_set():
            self.publisher.republish()

    def _forged_on(self, topic: str) -> None:
        """A message refused on one of this board's own topics (paho's thread): on a broker
        without ACLs it may have replaced the board's retained document, so the board
        publishes its own again, at most once a second however many arrive."""
        with self._heal_lock:
            self._forged.add(topic)
            if self._heal is None:
                self._heal = threading.Timer(HEAL_S, self._republish)
                self._heal.daemon = True
                self._heal.start()

    def _republish(self) -> None:
        with self._heal_lock:
            forged, self._forged, self._heal = self._forged, set(), None
        plays = {t.rsplit("/", 1)[1] for t in forged if f"/{topics.PLAY}/" in t}
        if any(f"/{topics.PLAY}/" not in t for t in forged):
            self.publisher.republish()  # the state or the status
        for peer in plays:
            player = self.opponents.peers.get(peer)
            if player is not None:
                player.own.publish()

    def _link_changed(self, state: str, error: str | None) -> None:
        opponents = getattr(self, "opponents", None)  # (the link may report before it exists)
        if opponents is not None:
            opponents.link_changed(state, error)

    def status(self) -> ClubStatus:
        """For the page: the link, the boards seen on the broker, the board this board plays
        (``active``), the proposals waiting for the owner, each board's conversation."""
        return {"broker": self.cfg.broker.url, "club": self.cfg.club, "board": self.cfg.board,
                "link": self.link.state, "error": self.link.error,
                "refused": self.link.counts(), **self.opponents.status()}

    def close(self) -> None:
        if self._hub is not None:
            self._hub.unsubscribe(self._changed)
        self.link.unsubscribe(self._own_status)
        self.link.unsubscribe(self._own)
        with self._heal_lock:
            if self._heal is not None:
                self._heal.cancel()
        self.publisher.close()
        self.opponents.close()
        self.link.close(final=self._offline)
        self.outbox.close()
