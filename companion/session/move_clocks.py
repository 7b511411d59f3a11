"""The game's clocks as a part of the session: the two-sided :class:`GameClock`, the clock
record kept with every move, the clocks before each ply (for takebacks), the switch that waits
for captured pieces to be lifted, and the hold of a move chosen off the board.

The clock switches at the placement of a move, or once its captured pieces are lifted (their
removal is on the mover's time). A move chosen off the board (a phone player, the computer, a
player at a distance) switches its chooser's clock **at the choice** (his thinking is over): when
the opponent plays at the board his clock starts then (he carries the move out and thinks about
his reply at the same time); when the opponent plays off the board too nobody's clock runs
until the move is made (``held``). A choice that is withdrawn gives the clocks back as they were
before it; a takeback, the end of the game or a new game simply forget it. The choice's clocks
are stored with the move to make, so a restart brings them back too.

No clock runs before the game's first move is on the board, however the game started (the
page, the command line, a match's next game, a restart, a takeback to the start): the board's
set-up (``ready``) starts nothing, the first move costs its side nothing and earns no increment,
and it starts the opponent's clock when its piece comes to rest. Only the owner's explicit start
(the board's clock button) runs a clock sooner.

Every time is on the board's time base (``board_time``), so a switch can be backdated to the
moment the piece came to rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypedDict, cast

from companion.rules import other
from companion.session.clock import SIDES, ClockJSON, ClockSnapshot, GameClock, TimeControl

#: A clock as it stood before a ply: its snapshot and when its running side started.
Before = tuple[ClockSnapshot | None, float | None]

#: The clock button, among the captures a switch waits for (a square no board has): with
#: ``press_to_end`` a move at the board ends (the clocks switch) with the board's clock button,
#: as on a chess clock (companion.panel).
PRESS = -1


class ClockRecord(TypedDict, total=False):
    """What is stored with a move about the clocks: the wall time, when the piece was placed
    (board time), the seconds left per side after it, the clock's state, and when the clock
    switched (the captured pieces lifted)."""

    wall: float
    placed: float
    left: dict[str, float]
    state: ClockSnapshot
    switched: float


class ChoiceClocks(TypedDict):
    """The choice's clocks as stored with the move to make (``games.pending``)."""

    before: ClockSnapshot | None
    after: ClockSnapshot
    held: bool


def copy_clock(clock: GameClock | None) -> GameClock | None:
    """An independent copy of ``clock`` (its running side's start time too)."""
    if clock is None:
        return None
    twin = GameClock.restore(clock.snapshot())
    twin.since = clock.since
    return twin


@dataclass
class _Saved:
    clock: GameClock | None
    records: list[ClockRecord | None]
    before: list[Before]
    pending: tuple[str, frozenset[int]] | None
    choice: Before | None
    held: bool


@dataclass
class Clocks:
    """The clocks of the current game (see the module docstring)."""

    board_time: Callable[[], float]
    wall: Callable[[], float]
    tc: TimeControl | None = None
    clock: GameClock | None = None
    records: list[ClockRecord | None] = field(default_factory=list)  # one per ply
    before: list[Before] = field(default_factory=list)  # the clock before each ply
    pending: tuple[str, set[int]] | None = None  # (mover, captures still on the board)
    _choice: Before | None = None  # the clocks before a move to make switched them
    _held: bool = False

    # -- the game ------------------------------------------------------------------------------
    def new_game(self, tc: TimeControl | None) -> None:
        """A new game's clocks: full, not running (they run from the first move)."""
        self.tc, self.clock = tc, GameClock(tc) if tc else None
        self.records, self.before, self.pending = [], [], None
        self.forget_choice()

    def restore(self, tc: TimeControl | None, clock: GameClock | None,
                records: list[ClockRecord | None], before: list[Before]) -> None:
        self.tc, self.clock, self.records, self.before = tc, clock, records, before
        self.pending = None
        self.forget_choice()

    def checkpoint(self) -> _Saved:
        """Everything, to :meth:`rollback` to when a change cannot be stored."""
        return _Saved(copy_clock(self.clock), list(self.records), list(self.before),
                      (self.pending[0], frozenset(self.pending[1])) if self.pending else None,
                      self._choice, self._held)

    def rollback(self, saved: _Saved) -> None:
        self.clock, self.records, self.before = saved.clock, saved.records, saved.before
        self.pending = (saved.pending[0], set(saved.pending[1])) if saved.pending else None
        self._choice, self._held = saved.choice, saved.held

    # -- reading -------------------------------------------------------------------------------
    def snapshot(self) -> ClockSnapshot | None:
        """The clock as stored with the game."""
        return self.clock.snapshot() if self.clock else None

    def left(self, t: float) -> dict[str, float] | None:
        """Seconds left per side at ``t`` (None without a clock)."""
        return {s: self.clock.left(s, t) for s in SIDES} if self.clock else None

    def to_json(self, t: float, wall: float) -> ClockJSON | None:
        """``clock`` in the page state: as read at ``t``, wall time ``at``."""
        if self.clock is None:
            return None
        out = self.clock.to_json(t)
        out["at"] = round(wall, 3)
        return out

    def times(self) -> list[dict[str, float] | None]:
        """The seconds left after each stored move (``times`` in the page state)."""
        return [(r or {}).get("left") for r in self.records]

    def record(self, placed: float, switched: float | None = None) -> ClockRecord:
        """The clock record of a move placed at ``placed`` (switched at ``switched``)."""
        rec: ClockRecord = {"wall": self.wall(), "placed": round(placed, 3)}
        if self.clock is not None:
            at = switched if switched is not None else placed
            rec["left"] = {s: round(self.clock.left(s, at), 3) for s in SIDES}
            rec["state"] = self.clock.snapshot(at)
            if switched is not None:
                rec["switched"] = round(switched, 3)
        return rec

    def flag_due(self, t: float) -> tuple[str, float] | None:
        """``(side, when)`` if the running side's time has run out at ``t``."""
        clock = self.clock
        side = clock.flag_due(t) if clock else None
        if clock is None or side is None:
            return None
        return side, clock.flag_at() or t

    # -- the flow of a game --------------------------------------------------------------------
    def side_to_start(self, turn: str) -> str | None:
        """Whose clock starts when the board is set up: the side to move, or with a switched
        choice waiting at the board its opponent (nobody while it is held)."""
        if self._choice is None:
            return turn
        return None if self._held else other(turn)

    def start_when_ready(self, turn: str, over: bool, t: float,
                         chosen: str | None, opponent_off_board: bool, moved: bool) -> None:
        """The board is set up (``ready``): once the game's first move is on the board
        (``moved``) the clock runs again for the side to move, or with a switched choice
        waiting at the board for its opponent (nobody while it is held); a choice made before
        the set-up stops its clock now. Before the first move no clock runs (the module
        docstring)."""
        clock = self.clock
        side = self.side_to_start(turn)
        if (clock is not None and clock.running is None and clock.flagged is None
                and not over and side is not None and moved):
            clock.start(side, t)
            self.catch_up(chosen, t, over, opponent_off_board)

    def before_move(self) -> Before:
        return (self.clock.snapshot(), self.clock.since) if self.clock else (None, None)

    def moved(self, mover: str, lifted_later: set[int], placed: float, over: bool,
              before: Before) -> None:
        """A move was made at the board, placed at ``placed``: its captures in
        ``lifted_later`` are still on the board. A move to make switched the clock at its
        choice already (then nobody's clock ran since when ``held``: the opponent's starts
        now)."""
        chosen = self._made()
        self.before.append(chosen[0] if chosen else before)
        self._switch_after(mover, lifted_later, placed, over, chosen[1] if chosen else None)

    def revised(self, mover: str, lifted_later: set[int], placed: float, over: bool) -> None:
        """The last move was revised: the clock as before it, then switched again from its
        first placement."""
        self.records.pop()
        before, since = self.before[-1] if self.before else (None, None)
        if self.clock is not None and before is not None:
            self.clock = GameClock.restore(before)
            self.clock.since = since
        self._switch_after(mover, lifted_later, placed, over, None)

    def last_placed(self, default: float) -> float:
        last = self.records[-1] if self.records else None
        return float((last or {}).get("placed", default))

    def _switch_after(self, mover: str, lifted_later: set[int], placed: float, over: bool,
                      held: bool | None) -> None:
        self.pending = None
        if self.clock is not None:
            if over:
                self.clock.stop(placed)
            elif held is not None:
                if held:
                    self.clock.start(other(mover), placed)
            elif lifted_later:
                self.pending = (mover, set(lifted_later))
            else:
                self.clock.switch(mover, placed)
        self.records.append(self.record(placed))

    def capture_lifted(self, square: int, t: float) -> None:
        """A captured piece left the board at ``t``: the last one switches the clock."""
        if self.pending is None or self.clock is None:
            return
        mover, waiting = self.pending
        waiting.discard(square)
        if not waiting:
            self.pending = None
            self.clock.switch(mover, t)
            if self.records:
                placed = (self.records[-1] or {}).get("placed", t)
                self.records[-1] = self.record(placed, switched=t)

    def took_back(self, plies: int, turn: str, t: float, moved: bool) -> None:
        """``plies`` moves were taken back: both clocks as before them, the side to move's
        running from ``t`` (none when the game is back before its first move: ``moved`` is
        False)."""
        before: ClockSnapshot | None = None
        for _ in range(plies):
            if self.records:
                self.records.pop()
            before, _since = self.before.pop() if self.before else (None, None)
        if self.tc is not None:
            self.clock = GameClock.restore(before) if before else GameClock(self.tc)
            self.clock.flagged = None
            if moved:
                self.clock.start(turn, t)
            else:
                self.clock.running, self.clock.since = None, None
        self.pending = None
        self.forget_choice()

    def reopened(self, turn: str, t: float, moved: bool) -> None:
        """A draw agreement or resignation was taken back: the side to move's clock runs (none
        before the game's first move)."""
        if self.clock is not None and self.tc is not None:
            self.clock.flagged = None
            if moved:
                self.clock.start(turn, t)

    def ended(self, t: float) -> None:
        if self.clock is not None and self.clock.running:
            self.clock.stop(t)
        self.pending = None
        self.forget_choice()

    def flag(self, side: str, at: float) -> None:
        """``side``'s flag fell at ``at``."""
        if self.clock is not None:
            self.clock.stop(at)
            self.clock.flagged = side

    def start(self, side: str, t: float) -> None:
        """``side``'s clock runs from ``t`` (the board's clock button before the first move)."""
        if self.clock is not None:
            self.clock.start(side, t)

    def pause(self, action: str, t: float) -> None:
        """The owner pauses or resumes the clock."""
        if self.clock is not None:
            self.clock.pause(t) if action == "pause" else self.clock.resume(t)

    def set_remote(self, left: Mapping[str, float], running: str | None, at: float,
                   only: str | None) -> None:
        """The clocks as the other end read them at ``at`` (``only``: that side's alone; else
        both, and which runs)."""
        if self.tc is None:
            return
        mine = copy_clock(self.clock) or GameClock(self.tc)
        for side in SIDES:
            if only is None or side == only:
                if mine.running == side and mine.since is not None:
                    mine.since = at  # its time from the reading on
                mine.times[side].main = max(0.0, float(left[side]))
        if only is None:
            mine.paused, mine.flagged = False, None
            if running in SIDES:
                mine.running, mine.since = running, at
            else:
                mine.running, mine.since = None, None
            self.forget_choice()
        self.clock = mine

    # -- the move to make ------------------------------------------------------------------------
    def choose(self, side: str, t: float, over: bool, opponent_off_board: bool) -> None:
        """A move to make was chosen for ``side``: its clock switches now (a choice before
        gives its clocks back first)."""
        self.withdraw_choice()
        self.catch_up(side, t, over, opponent_off_board)

    def catch_up(self, chosen: str | None, t: float, over: bool,
                 opponent_off_board: bool) -> None:
        """Switch the clock for the waiting move to make (of side ``chosen``) at ``t`` if it has
        not switched yet: it was chosen while its chooser's clock did not run (before the set-up,
        during a pause), and the clock now starts or resumes."""
        clock = self.clock
        if chosen is None or self._choice is not None or clock is None:
            return
        if (clock.running != chosen or clock.paused or clock.flagged is not None
                or clock.since is None or over):
            return  # not running for him (not set up yet, paused): it switches when it runs
        self._choice = (clock.snapshot(), clock.since)
        clock.switch(chosen, t)
        self._held = opponent_off_board
        if self._held:
            clock.running, clock.since = None, None

    def withdraw_choice(self) -> None:
        """The move to make is withdrawn: the clocks as they were before the choice."""
        if self._choice is None:
            return
        snap, since = self._choice
        self.forget_choice()
        if self.clock is None or snap is None:
            return
        paused = self.clock.paused
        clock = GameClock.restore(snap)
        clock.paused = paused
        if clock.running is not None:
            clock.since = self.board_time() if since is None or paused else since
        self.clock = clock

    def forget_choice(self) -> None:
        """The choice's clocks no longer matter (its move was made, taken back, the game ended
        or a new one started)."""
        self._choice, self._held = None, False

    def _made(self) -> tuple[Before, bool] | None:
        if self._choice is None:
            return None
        out = (self._choice, self._held)
        self.forget_choice()
        return out

    def stored_choice(self) -> ChoiceClocks | None:
        """The choice's clocks as stored with the move to make (None: it did not switch)."""
        if self._choice is None or self.clock is None:
            return None
        return {"before": self._choice[0], "after": self.clock.snapshot(), "held": self._held}

    def restore_choice(self, data: object) -> None:
        """The choice's clocks after a restart (:meth:`stored_choice`): they read as at the
        choice and run again once the board is set up."""
        if not isinstance(data, dict) or self.clock is None:
            return
        before, after = data.get("before"), data.get("after")
        if not isinstance(before, dict) or not isinstance(after, dict):
            return
        paused = self.clock.paused
        clock = GameClock.restore(after)
        clock.running, clock.since, clock.paused = None, None, paused
        self.clock = clock
        self._choice = (cast(ClockSnapshot, before), None)  # as stored_choice stored it
        self._held = bool(data.get("held"))
