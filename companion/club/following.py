"""Following the peer's side of the agreed game.

The peer's document carries its whole game; each time it changes, it is compared with this
board's: a takeback made there (or, after a restart, a move of the peer's side the peer no
longer has) takes this board's game back too; the peer's next move is checked by the rules
against this board's game and handed to the session as :class:`RemoteMove`; its draw offers
and answers, resignation and flag follow (:func:`~companion.club.channel.decisions`), and its
clock reading is shown against this board's own (:func:`~companion.club.document.peer_clock`).
A game that differs, a move of the wrong side or an illegal one is refused and changes nothing.

Called holding the club player's lock.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.club.channel import ClockReading, PeerDoc, decisions
from companion.club.document import PlayDocument, peer_clock
from companion.rules import MoveError, other
from companion.rules.game import Game
from companion.session.remote import RemoteEvent, RemoteMove, RemoteTakeback


class GameFollower:
    """Board ``peer``'s side of the agreed game in ``own``, read against this board's, and
    this board's last clock reading (``my_clock``)."""

    def __init__(self, own: PlayDocument, peer: str, *, hand: Callable[[RemoteEvent], None],
                 refuse: Callable[[str, str], None], changed: Callable[[], None],
                 wall: Callable[[], float], monotonic: Callable[[], float]) -> None:
        self.own, self.peer = own, peer
        self._hand, self._refuse, self._changed = hand, refuse, changed
        self.wall, self.monotonic = wall, monotonic
        self.my_clock: ClockReading | None = None

    def note_clock(self, clock: object) -> ClockReading | None:
        """This board's clock reading (its state's ``clock``), kept: returned when it goes to
        the peer (with every move, and when the clocks stop). Each board is the authority on
        the time of the side played there."""
        if not isinstance(clock, dict):
            return None
        mine: ClockReading = {"attackers": clock.get("attackers"),
                              "defenders": clock.get("defenders"), "running": clock.get("running"),
                              "wall": clock.get("at") or self.wall()}
        before, self.my_clock = self.my_clock, mine
        if before is None or before["running"] != mine["running"]:
            return mine
        return None

    def sync(self, doc: PeerDoc, resumed: bool = False) -> None:
        """The peer's agreed game against this board's: a takeback there, the peer's next
        move (checked by the rules), its draw offer or answer, resignation, flag and clock."""
        peer, game, rules = doc.game, self.own.game, self.own.rules
        if peer is None or game is None or rules is None:
            return
        seen = self.own.seen
        changed = False
        mine: list[str] = game["moves"]
        common = 0
        while (common < min(len(mine), len(peer.moves))
               and mine[common] == peer.moves[common]):
            common += 1
        peer_side = peer.terms.side_of(self.peer)
        taken = peer.takebacks > int(seen.get("takebacks", 0))
        # after a restart: a move of the peer's side that the peer no longer has was taken
        # back there (a board never forgets its own stored moves otherwise)
        lost = resumed and any(_side_at(rules, i) == peer_side
                               for i in range(common, len(mine)))
        if (taken or lost) and common < len(mine):
            self.own.truncate(common)
            self._hand(RemoteTakeback(common))
            mine, changed = game["moves"], True
            rules = self.own.rules
            assert rules is not None
        elif common < min(len(mine), len(peer.moves)):
            self._refuse(f"the game at {self.peer} differs from this board's at move "
                         f"{common + 1} ({peer.moves[common]} there, {mine[common]} here)",
                         "diverged")
            return
        seen["takebacks"] = peer.takebacks
        n = len(mine)
        if len(peer.moves) > n and common >= n:
            changed = self._next_move(rules, peer.moves[n], n, peer_side) or changed
        for event in decisions(peer, peer_side, seen):
            self._hand(event)
        if peer.clock is not None and peer.clock["wall"] != seen.get("clock"):
            seen["clock"] = peer.clock["wall"]
            self._hand(peer_clock(peer_side, peer.clock, self.my_clock, self.wall(),
                                  self.monotonic()))
        if changed:
            self._changed()
        else:
            self.own.save()

    def _next_move(self, rules: Game, text: str, ply: int, peer_side: str) -> bool:
        """The peer's move of ply ``ply``, checked by the rules: handed in as the move to
        make (True), or refused."""
        if _side_at(rules, ply) != peer_side:
            self._refuse(f"{self.peer} sent a move for the {rules.turn}, who play at this "
                         "board", "forged_move")
            return False
        try:
            played = rules.play_text(text)
        except (MoveError, ValueError) as exc:
            self._refuse(f"{self.peer} sent an illegal move {text!r}: {exc}", "illegal_move")
            return False
        game = self.own.game
        assert game is not None
        game["moves"].append(played.text)
        self._hand(RemoteMove(ply, played.move))
        return True


def _side_at(game: Game, ply: int) -> str:
    return game.start_turn if ply % 2 == 0 else other(game.start_turn)
