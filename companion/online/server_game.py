"""One game on the server as this board sees it: the server's moves mirrored on a local board
(so captures, plies and the house rule are known: the server announces none of them), the
move in flight, the clocks and the draw offer; and the :data:`RemoteEvent`s it produces.
A game the board only watches has no side of its own (``side`` ""): both sides' moves are
the other end's.

Pure state, driven by the network thread (:mod:`companion.online.service`); no I/O.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from companion.rules import Move, MoveError, other
from companion.rules.game import Game
from companion.rules.hnefatafl_org import ServerHistory, limit_reached
from companion.rules.ruleset import ATTACKERS, DEFENDERS
from companion.session.remote import (
    GameSettings,
    RemoteClock,
    RemoteDraw,
    RemoteEnd,
    RemoteEvent,
    RemoteMove,
    RemoteRefused,
    RemoteResign,
    RemoteSeat,
    RemoteStart,
    RemoteStatus,
    RemoteTerms,
    TimeControl,
)

from .protocol import ResumedGame, ServerMove, ServerTime, rules_for_size

#: ``game_over`` words -> result
RESULTS = {"attacker_wins": ATTACKERS, "defender_wins": DEFENDERS}
#: Server error texts -> a sentence for the page (the rest are shown as the server says them).
REFUSALS = {
    "play: you already reached that position":
        "the server refuses it: the defenders may not recreate an earlier position",
    "play: it isn't your turn": "the server says it is not this board's turn",
    "play: the game is already over": "the game is already over on the server",
}


@dataclass
class OnlineGame:
    """The game ``id`` on the server, the board playing ``side`` ("": watching the game of
    ``watched``, the attackers' and the defenders' names)."""

    id: int
    size: int
    side: str
    opponent: str
    rated: bool
    time: ServerTime | None
    server: str
    rating: float | None = None
    game: Game = field(init=False)
    history: ServerHistory = field(init=False)
    pending: tuple[int, Move] | None = None     # our move sent, not yet answered
    unsent: tuple[int, Move] | None = None      # our move stored but not sent (no link)
    resigned: str | None = None                 # the side the server showed resigning
    draw_offered_by: str | None = None
    resign_wanted: bool = False                 # resign when it is the board's turn
    resign_sent: bool = False
    last_clock: tuple[float, float, float] | None = None   # attackers s, defenders s, at
    over: bool = False
    watched: tuple[str, str] | None = None
    ratings: tuple[float | None, float | None] = (None, None)
    confirmed: int = 0      # plies the server confirmed (sent, acknowledged, in its record)
    me: str | None = None   # the account playing ``side`` (the board's player's name)

    def __post_init__(self) -> None:
        self.rules = rules_for_size(self.size)
        self.game = Game(self.rules)
        self.history = ServerHistory(self.game.board)
        if self.time is not None:  # the clocks start with the game; game_time comes later
            main = self.time.main_ms / 1000
            self.last_clock = (main, main, time.monotonic())

    # -- what the session needs -----------------------------------------------------------
    @property
    def ref(self) -> str:
        return f"{self.server}/{self.id}"

    @property
    def plies(self) -> int:
        return len(self.game.played)

    @property
    def turn(self) -> str:
        return self.game.turn

    @property
    def watching(self) -> bool:
        return self.watched is not None

    def terms(self) -> RemoteTerms:
        control = None
        if self.time is not None:
            control = TimeControl(self.time.main_ms / 1000, float(self.time.increment_s))
        seats = None
        if self.watched is not None:
            seats = (RemoteSeat(self.watched[0], self.ratings[0]),
                     RemoteSeat(self.watched[1], self.ratings[1]))
        return RemoteTerms(
            settings=GameSettings.make(self.rules.id), time_control=control,
            local_side=self.side, opponent=self.opponent, ref=self.ref, rating=self.rating,
            rated=self.rated, watched=seats, local_name=None if self.watching else self.me,
        )

    def status(self) -> dict[str, object]:
        """The game for the page (``game`` in GET /api/online)."""
        out: dict[str, object] = {
            "id": self.id, "side": self.side or None, "opponent": self.opponent,
            "rating": self.rating, "rated": self.rated, "variant": self.rules.id,
            "size": self.size, "time_control": self.time.text if self.time else "none",
            "plies": self.plies, "over": self.over, "draw_offer": self.draw_offered_by,
            "watching": self.watching}
        if self.watched is not None:
            out["attackers"], out["defenders"] = self.watched
            out["ratings"] = {"attackers": self.ratings[0], "defenders": self.ratings[1]}
        return out

    def start_event(self) -> RemoteStart:
        return RemoteStart(self.terms(), tuple(self.moves()))

    def moves(self) -> list[Move]:
        return list(self.game.board.move_stack)

    # -- moves ------------------------------------------------------------------------------
    def apply(self, move: Move) -> None:
        """Play a move the server accepted on the mirror (MoveError if it is illegal here)."""
        self.game.play(move)
        self.history.add(self.game.board)
        self.draw_offered_by = None

    def refusal(self, move: Move) -> str | None:
        """Why the server would refuse this board's ``move`` now (checked before sending)."""
        board = self.game.board
        why = board.illegal_reason(move)
        return why or self.history.refusal(board, move)

    def opponent_move(self, side: str, move: Move) -> list[RemoteEvent]:
        """The opponent's ``game ID play`` line (either side's, watching): the move to make."""
        if side != other(self.side) and not self.watching:
            return []
        if self.turn != side:
            raise MoveError(f"the server sent a {side} move but it is the {self.turn}' turn "
                            "on the board")
        ply = self.plies
        self.apply(move)
        self.confirmed = self.plies
        return [RemoteMove(ply, move)]

    def accepted(self) -> None:
        """``= game`` (or the game ended with our move): the move in flight stands."""
        if self.pending is not None:
            ply, move = self.pending
            self.pending = None
            if ply == self.plies:
                self.apply(move)
                self.confirmed = self.plies

    def refused(self, error: str) -> list[RemoteEvent]:
        """``? game ERROR``: the move in flight was refused."""
        if self.pending is None:
            return []
        ply, _move = self.pending
        self.pending = None
        return [RemoteRefused(ply, REFUSALS.get(error, f"the server refused the move ({error})"))]

    # -- endings ----------------------------------------------------------------------------
    def game_over(self, word: str) -> list[RemoteEvent]:
        """``= game_over ID attacker_wins|defender_wins``, in the server's words."""
        result = RESULTS.get(word)
        if result is None or self.over:
            return []
        self.accepted()
        self.over = True
        events: list[RemoteEvent] = []
        reason = "server"
        outcome = self.game.outcome()
        if outcome is not None and outcome.result == result:
            reason = str(outcome.termination)
        elif self.resigned is not None:
            by_server = self.resigned == self.side and not self.resign_sent
            reason = "time" if by_server or self._flag_fell(self.resigned) else "resignation"
            if reason == "resignation" and self.resigned != self.side and not self.watching:
                events.append(RemoteResign(self.resigned))
        elif self.last_clock is not None and self._flag_fell(other(result)):
            reason = "time"
        events.append(RemoteEnd(result, reason))
        return events

    def _flag_fell(self, side: str) -> bool:
        """Whether ``side``'s clock had (about) run out by now (the server resigns then)."""
        if self.last_clock is None:
            return False
        att, dfn, at = self.last_clock
        left = att if side == ATTACKERS else dfn
        running = self.turn == side
        return left - (time.monotonic() - at if running else 0.0) < 1.5

    def draw_agreed(self) -> list[RemoteEvent]:
        """``= draw accept``: agreement, or the move limit (no ``game_over`` line then)."""
        if self.over:
            return []
        self.accepted()
        self.over = True
        if limit_reached(self.plies):
            return [RemoteEnd("draw", "move_limit")]
        return [RemoteEnd("draw", "agreement")]

    def draw_offer(self) -> list[RemoteEvent]:
        """``request_draw ID ROLE`` from the server: the opponent offers a draw."""
        if self.over or self.watching:
            return []
        self.draw_offered_by = other(self.side)
        return [RemoteDraw(other(self.side), "offer")]

    # -- clocks -----------------------------------------------------------------------------
    def clock(self, attackers_ms: int, defenders_ms: int, lag: float,
              running: str | None = None) -> RemoteClock:
        """``= game_time``: the server's clocks when it sent them, ``lag`` seconds ago."""
        at = time.monotonic() - lag
        side = running or (None if self.over else self.turn)
        self.last_clock = (attackers_ms / 1000, defenders_ms / 1000, at)
        return RemoteClock(attackers_ms / 1000, defenders_ms / 1000, side, at)

    # -- reconciling with the server's record -------------------------------------------------
    def reconcile(self, doc: ResumedGame, stored: list[Move]) -> tuple[list[RemoteEvent],
                                                                       Move | None]:
        """After a (re)login: the server's moves against the board's ``stored`` ones.
        Returns the events to hand in and this board's move to send (stored, never sent).
        A record that lacks or changes moves the server had confirmed (``confirmed``) or that
        differs from the board's goes to the session as it is: the owner is asked before the
        board drops a move."""
        server = [m.move for m in doc.moves if m.move is not None]
        common = min(len(server), len(stored))
        events: list[RemoteEvent] = []
        to_send: Move | None = None
        confirmed, self.confirmed = self.confirmed, 0
        self.game = Game(self.rules)
        if not self._replay(server):
            self._replay(server[:common] if server[:common] == stored[:common] else [])
            return [RemoteStart(self.terms(), tuple(self.moves()))], None
        self.confirmed = len(server)
        if len(server) < confirmed or server[:confirmed] != stored[:confirmed]:
            # the server's record drops (or changes) moves it had sent or acknowledged: never
            # resent, never dropped on its word alone; the session asks the owner
            return [RemoteStatus(
                "connected", f"the server's record of game {self.id} lacks or changes moves it "
                "had accepted: the board keeps its game until the owner takes the server's",
                "record_contradicts"),
                RemoteStart(self.terms(), tuple(server), confirmed)], None
        if server[:common] != stored[:common]:
            return [RemoteStart(self.terms(), tuple(server))], None   # (the session asks)
        if len(stored) > len(server):
            extra = stored[len(server):]
            if len(extra) == 1 and self.turn == self.side:
                to_send = extra[0]
            else:
                return [RemoteStart(self.terms(), tuple(server))], None
        for ply in range(len(stored), len(server)):
            if ply % 2 == (0 if self.rules.first == self.side else 1):
                # a move of this board's side that the board does not have: take the server's
                return [RemoteStart(self.terms(), tuple(server))], None
            events.append(RemoteMove(ply, server[ply]))
        return events, to_send

    def _replay(self, moves: list[Move]) -> bool:
        self.game = Game(self.rules)
        try:
            for move in moves:
                self.game.play(move)
        except MoveError:
            return False
        self.history = ServerHistory(self.game.board)
        return True


def resumed_moves(doc: ResumedGame) -> list[ServerMove]:
    """The moves of a game document that are moves (not the ``---`` of a resignation)."""
    return [m for m in doc.moves if m.move is not None]
