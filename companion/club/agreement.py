"""Agreeing on a game with the peer before its first move.

Each board's document carries its *offer* (variant, house rules, clock, who plays what). Two
offers with the same terms agree by themselves (the smaller offer id names the game); the peer
taking up this board's offer (its document has a game with the offer's id and terms) agrees it;
otherwise the peer's offer waits for this board's owner (:meth:`Agreement.accept`, on the page)
unless the config accepts that board's offers (``[club] accept``) and this board plays no other
board's game. Agreement hands :class:`RemoteStart` to the session.

Called holding the club player's lock.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from companion.club.channel import PeerDoc, PeerGame, Terms
from companion.club.document import PlayDocument
from companion.rules import other
from companion.session.remote import RemoteEvent, RemoteStart, RemoteStatus, RemoteTerms

log = logging.getLogger("companion.club")


class Agreement:
    """Board ``me``'s side of agreeing on the next game with board ``peer``: its offer (in
    ``own``), the peer's ``proposal`` waiting for the owner, the one the owner declined."""

    def __init__(self, own: PlayDocument, club: str, me: str, peer: str, *, accepts: bool,
                 busy: Callable[[], bool], link_state: Callable[[], str],
                 hand: Callable[[RemoteEvent], None], changed: Callable[[], None],
                 mark: Callable[[], None]) -> None:
        self.own, self.club, self.me, self.peer = own, club, me, peer
        self.accepts = accepts
        self._busy = busy  # this board plays an agreed game with another board now
        self._link_state = link_state
        self._hand, self._changed, self._mark = hand, changed, mark
        self.proposal: tuple[str, Terms] | None = None  # the peer's offer, waiting for owner
        self._declined: str | None = None  # the peer's offer the owner declined

    def offer(self, terms: RemoteTerms) -> None:
        """This board offers a new game on ``terms`` (its side is ``terms.local_side``)."""
        mine = Terms(terms.settings, terms.time_control,
                     tuple(sorted({self.me: terms.local_side,
                                   self.peer: other(terms.local_side)}.items())))
        self.own.propose(mine, f"{self.me}/{secrets.token_hex(4)}")

    def read(self, doc: PeerDoc) -> bool:
        """The peer's latest document: its offer withdrawn, taken up, agreed or waiting. True
        when it plays this board's agreed game (to be followed from it)."""
        game, offer = self.own.game, self.own.offer
        if self.proposal and (doc.offer is None or doc.offer[0] != self.proposal[0]):
            self.proposal = None  # withdrawn by the peer
            self._mark()
        if game and doc.game and doc.game.ref == game.get("ref"):
            return True
        if not game and offer and doc.game:
            mine = self.own.terms(offer["terms"])
            if doc.game.ref == offer["id"]:
                if doc.game.terms == mine:  # the peer accepted our offer
                    self.agree(offer["id"], mine)
                    return True
                return False
            if self._agreed_alike(doc.game, offer["id"], mine):
                self.agree(doc.game.ref, mine)
                return True
        if doc.offer is None or (game and not self.own.over()) or doc.offer[0] == self._declined:
            return False
        oid, terms = doc.offer
        busy = self._busy()  # playing another board: the owner decides
        if not busy and offer and self.own.terms(offer["terms"]) == terms:
            self.agree(min(oid, offer["id"]), terms)  # the same terms: agreed by both
        elif not busy and self.accepts and (not offer or not doc.accepts or oid < offer["id"]):
            self.agree(oid, terms)
        elif self.proposal is None or self.proposal[0] != oid:
            self.proposal = (oid, terms)
            self._mark()
            self._hand(RemoteStatus(self._link_state(), f"{self.peer} proposes a game",
                                    "proposal", {"peer": self.peer, "id": oid,
                                                 "terms": terms.to_json()}))
        return False

    def _agreed_alike(self, peer_game: PeerGame, my_offer: str, mine: Terms) -> bool:
        """The peer's game is the one it agreed by itself because both offers had the same
        terms: its own offer's id (the smaller one), this board's offer's terms, not ended,
        and not a game this board played before. This board may never have read the peer's
        offer: a newer document of a topic replaces a queued older one (companion.club.link)
        and a flood guard keeps only the newest, so the offer and the agreement can arrive as
        the agreement alone."""
        return (peer_game.ref.startswith(f"{self.peer}/") and peer_game.ref < my_offer
                and peer_game.terms == mine and not peer_game.resign and not peer_game.flag
                and peer_game.ref != self.own.seen.get("ref"))

    def accept(self) -> bool:
        """The owner accepts the peer's proposal; False when there is none."""
        if self.proposal is None:
            return False
        self.agree(*self.proposal)
        return True

    def decline(self) -> bool:
        """The owner declines the peer's proposal (it is not shown again); False when there
        is none."""
        if self.proposal is None:
            return False
        self._declined, self.proposal = self.proposal[0], None
        self._mark()
        return True

    def forget(self) -> None:
        """The peer's proposal no longer waits (this board stopped playing the peer)."""
        self.proposal = None

    def agree(self, ref: str, terms: Terms) -> None:
        """Game ``ref`` on ``terms`` is agreed: in the document, and to the session."""
        self.own.agree(ref, terms)
        self.proposal = None
        self._changed()
        log.info("club: game %s with %s agreed (%s)", ref, self.peer,
                 terms.settings.summary())
        self._hand(RemoteStart(RemoteTerms(terms.settings, terms.time_control,
                                           terms.side_of(self.me), self.peer,
                                           f"club:{self.club}/{ref}")))
