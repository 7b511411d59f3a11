"""The players of both sides behind one protocol: each side has a :class:`Seat`.

Every kind of player sits in a seat the session's loop drives the same way: when its side is to
move it is asked what it decided (:meth:`Seat.step`), a takeback or a new game cancels it
(:meth:`Seat.cancel`), and it is closed when it no longer plays. What differs is where its
decisions come from:

* :class:`PersonSeat` — a person at the board (``board``) or on a phone (``page``): the board's
  proposals and the page's controls bring the moves; the seat itself decides nothing;
* :class:`DistantSeat` — a player at a distance (``online``, ``club``): the moves come through
  the session's inbox (:mod:`companion.session.remote_play`);
* :class:`ComputerSeat` — the built-in engine or an external OTEP engine: asked when its side is
  to move, polled without blocking at every loop step; it remembers what it was asked, shows
  its thinking, waits after a failure, and counts its hopeless moves (the resign policy).

:class:`Seats` holds both seats and what the page sees of them (``thinking``,
``player_error``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Protocol

from companion.rules.game import Game
from companion.session.computer import (
    Chose,
    ComputerConfig,
    Decision,
    Failed,
    PlayerFailure,
    Resigns,
    Thinking,
    soldiers,
    thinking_json,
)
from companion.session.players import MovePlayer, PlayerError, PlayerSpec, open_move_player

log = logging.getLogger("companion.session")
SIDES = ("attackers", "defenders")

THINKING_EVERY = 0.5  # seconds between two samples of the engine's thinking
RETRY_S = 5.0  # a failed computer player is asked again after this
HAND_TAKEBACK_HOLD = 3.0  # after its move is taken back by hand, the computer waits this long

#: What a seat may read when its side is to move: the seconds left per side (None without a
#: clock).
ClockReading = Callable[[], dict[str, float] | None]


class Seat(Protocol):
    """What plays one side, as the session's loop drives it (see the module docstring)."""

    @property
    def spec(self) -> PlayerSpec: ...

    @property
    def thinking(self) -> Thinking | None:
        """What the page shows while it chooses, or None."""
        ...

    def step(self, game: Game, now: float, wall: float, cfg: ComputerConfig, *,
             may_ask: bool, clock: ClockReading) -> Decision | None:
        """Its side is to move in ``game`` (``may_ask``: the store writes): what it decided
        now, or None (nothing yet, or its decisions arrive another way)."""
        ...

    def cancel(self) -> bool:
        """Stop choosing at once (a takeback, a new game, its move made by hand); True if it
        was choosing."""
        ...

    def close(self) -> None: ...


class PersonSeat:
    """A person at the board or on a phone: the board and the page bring the moves."""

    def __init__(self, spec: PlayerSpec) -> None:
        self._spec = spec

    @property
    def spec(self) -> PlayerSpec:
        return self._spec

    @property
    def thinking(self) -> Thinking | None:
        return None

    def step(self, game: Game, now: float, wall: float, cfg: ComputerConfig, *,
             may_ask: bool, clock: ClockReading) -> Decision | None:
        return None

    def cancel(self) -> bool:
        return False

    def close(self) -> None:
        pass


class DistantSeat(PersonSeat):
    """A player at a distance: its moves come through the session's inbox (the player object
    itself belongs to :class:`~companion.session.remote_play.RemoteGames`)."""


class ComputerSeat:
    """A computer player (see the module docstring)."""

    def __init__(self, spec: PlayerSpec, side: str, player: MovePlayer) -> None:
        self._spec = spec
        self.side = side
        self.player = player
        self._asked: int | None = None  # the ply it was asked for
        self._asked_wall = 0.0
        self._thinking_at = -1e9
        self._retry_at = 0.0
        self._thinking: Thinking | None = None
        self._hopeless = 0

    @property
    def spec(self) -> PlayerSpec:
        return self._spec

    @property
    def thinking(self) -> Thinking | None:
        return self._thinking

    def cancel(self) -> bool:
        was = self._thinking is not None
        self.player.cancel()
        self._asked, self._thinking = None, None
        return was

    def hold(self, until: float) -> None:
        """Ask nothing of it before ``until`` (its move was taken back by hand: the person may
        take back his own move too)."""
        self._retry_at = max(self._retry_at, until)
        self._hopeless = 0

    def forget_hopeless(self) -> None:
        self._hopeless = 0

    def close(self) -> None:
        self.player.close()

    def step(self, game: Game, now: float, wall: float, cfg: ComputerConfig, *,
             may_ask: bool, clock: ClockReading) -> Decision | None:
        ply = len(game.played)
        if self._asked is not None and self._asked != ply:
            self.cancel()  # asked for a position that is gone (its move was made by hand)
        if self._asked is None:
            if now < self._retry_at or not may_ask:
                return None
            self.player.request(game, clock())
            self._asked, self._asked_wall, self._thinking_at = ply, wall, now
            self._thinking = {"side": self.side, "by": self._spec.kind.value,
                              "since": round(wall, 3)}
            return None
        try:
            answer = self.player.poll()
        except PlayerError as exc:
            self._asked, self._thinking = None, None
            self._retry_at = now + RETRY_S
            log.warning("the %s' player failed: %s (asking again in %g s)", self.side, exc,
                        RETRY_S)
            return Failed(self.side, str(exc))
        if answer is None:
            if now - self._thinking_at >= THINKING_EVERY:
                self._thinking_at = now
                self._thinking = thinking_json(self.side, self._spec.kind.value,
                                               self._asked_wall, self.player.thinking)
            return None
        self._thinking = None
        if answer.resigned or answer.move is None:
            return Resigns(self.side, answer.note or "it resigns")
        if self._is_hopeless(answer.score, answer.mate, cfg):
            return Resigns(self.side, f"a hopeless position (score {answer.score}, mate "
                                      f"{answer.mate})")
        score = (soldiers(answer.score, answer.mate)
                 if answer.score is not None or answer.mate is not None else None)
        return Chose(self.side, answer.move, self._spec.kind.value, score)

    def ask_again(self) -> None:
        """Its answer could not be taken (the store failed): it is asked afresh."""
        self._asked = None

    def _is_hopeless(self, cp: int | None, mate: int | None, cfg: ComputerConfig) -> bool:
        """Count its hopeless answers in a row; True when it should resign now."""
        lost = (mate is not None and mate < 0) or (
            cp is not None and cp <= -cfg.resign_threshold * 100)
        self._hopeless = self._hopeless + 1 if lost else 0
        return cfg.resign and self._hopeless >= max(1, cfg.resign_moves)


def open_seat(spec: PlayerSpec, side: str, seed: int) -> Seat:
    """The seat for ``spec`` (PlayerError when a computer player cannot be started)."""
    if spec.is_computer:
        return ComputerSeat(spec, side, open_move_player(spec, side, seed))
    return DistantSeat(spec) if spec.is_remote else PersonSeat(spec)


class Seats:
    """Both sides' seats, and what the page sees of them (see the module docstring)."""

    def __init__(self, open_one: Callable[[PlayerSpec, str, int], Seat] = open_seat) -> None:
        self._open = open_one
        self._seats: dict[str, Seat] = {}
        self.error: PlayerFailure | None = None

    def seat(self, side: str) -> Seat | None:
        return self._seats.get(side)

    def computer(self, side: str) -> MovePlayer | None:
        """The computer player of ``side``, if a computer plays it."""
        seat = self._seats.get(side)
        return seat.player if isinstance(seat, ComputerSeat) else None

    def sync(self, specs: Mapping[str, PlayerSpec], seed: int) -> None:
        """Seat the players of these specs (a seat whose player is the same stays)."""
        for side in SIDES:
            have = self._seats.get(side)
            if have is not None and have.spec == specs[side]:
                have.cancel()
                continue
            if have is not None:
                have.close()
            self._seats[side] = self._open(specs[side], side, seed)

    @property
    def thinking(self) -> Thinking | None:
        return next((s.thinking for s in self._seats.values() if s.thinking), None)

    def step(self, game: Game, now: float, wall: float, cfg: ComputerConfig, *,
             may_ask: bool, waiting: bool, clock: ClockReading) -> Decision | None:
        """The side to move's seat decides (``waiting``: a move to make waits at the board:
        nobody is asked); a seat asked for a position that is gone stops."""
        turn = game.turn
        for side, other in self._seats.items():
            if side != turn or game.is_over() or waiting:
                other.cancel()
        seat = self._seats.get(turn)
        if seat is None or game.is_over() or waiting:
            return None
        decision = seat.step(game, now, wall, cfg, may_ask=may_ask, clock=clock)
        if isinstance(decision, Failed):
            self.error = {"side": decision.side, "message": decision.message}
        elif decision is not None:
            self.error = None
        return decision

    def cancel(self) -> bool:
        """Stop every seat choosing (a takeback, a new game, the end of the game); True when
        a computer was thinking."""
        return any([seat.cancel() for seat in self._seats.values()])

    def hold_after_hand_takeback(self, side: str, now: float) -> None:
        """The hands at the board took back the computer's move: it waits a moment before
        choosing again, so the person can take back his own move too."""
        seat = self._seats.get(side)
        if isinstance(seat, ComputerSeat):
            seat.hold(now + HAND_TAKEBACK_HOLD)
        self.forget_hopeless()

    def forget_hopeless(self) -> None:
        for seat in self._seats.values():
            if isinstance(seat, ComputerSeat):
                seat.forget_hopeless()

    def ask_again(self, side: str) -> None:
        seat = self._seats.get(side)
        if isinstance(seat, ComputerSeat):
            seat.ask_again()

    def close(self) -> None:
        for seat in self._seats.values():
            seat.close()
        self._seats.clear()
