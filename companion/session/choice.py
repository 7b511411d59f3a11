"""The move to make and the clock: a move chosen off the board stops its chooser's clock.

A phone player or the computer chooses a move; the person at the board then makes it. The
chooser's clock switches **at the choice** (his thinking is over; increment and overtime as for
any move), as with an e-board playing online or an engine: the time the hands at the board take
to carry the move out is not the chooser's.

* When the opponent plays **at the board**, his clock starts at the choice: he carries the move
  out and thinks about his reply at the same time (a slow hand costs him, not the chooser).
* When the opponent plays **off the board** too (a phone player or the computer, with a helper at
  the board), nobody's clock runs until the move is made (the opponent cannot think before the
  position is on the board); his clock starts when the piece comes to rest.

A choice that is withdrawn (the side is handed to another player, the phone player chooses
another move) gives the clocks back as they were before it (the chooser's turn goes on, the
time since counting for him). A takeback, the end of the game or a new game simply forget it.
The clock state of the choice is stored with the move to make (``games.pending``), so a restart
brings it back too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.rules import other
from companion.session.clock import GameClock
from companion.session.players import PlayerKind

if TYPE_CHECKING:
    from companion.session.core import SessionCore


def choose(s: SessionCore, chosen: dict) -> None:
    """Make ``chosen`` the move to make and switch its chooser's clock now."""
    withdraw(s)
    s.move_to_make = chosen
    catch_up(s, s.board_time())


def catch_up(s: SessionCore, t: float) -> None:
    """Switch the clock for the waiting move to make at ``t`` if it has not switched yet: it
    was chosen while the chooser's clock did not run (before the board was set up, during a
    pause), and the clock now starts or resumes."""
    clock, chosen = s.clock, s.move_to_make
    if chosen is None or s.choice_clock is not None or clock is None:
        return
    side = chosen["side"]
    if (clock.running != side or clock.paused or clock.flagged is not None
            or clock.since is None or s.game.is_over()):
        return  # not running for him (not set up yet, paused): it switches when it runs
    s.choice_clock = (clock.snapshot(), clock.since)
    clock.switch(side, t)
    s.choice_held = s.players[other(side)].kind is not PlayerKind.BOARD
    if s.choice_held:
        clock.running, clock.since = None, None


def withdraw(s: SessionCore) -> None:
    """The move to make is withdrawn: the clocks as they were before the choice."""
    s.move_to_make = None
    if s.choice_clock is None:
        return
    snap, since = s.choice_clock
    forget(s)
    if s.clock is None or snap is None:
        return
    paused = s.clock.paused
    clock = GameClock.restore(snap)
    clock.paused = paused
    if clock.running is not None:
        clock.since = s.board_time() if since is None or paused else since
    s.clock = clock


def forget(s: SessionCore) -> None:
    """The choice's clock state no longer matters (its move was made, taken back, the game
    ended or a new one started)."""
    s.choice_clock = None
    s.choice_held = False


def made(s: SessionCore) -> tuple[tuple[dict | None, float | None], bool] | None:
    """The chosen move was made at the board: ``(the clocks before the choice, held)`` if its
    clock switched at the choice (the move then switches nothing), else None."""
    if s.choice_clock is None:
        return None
    out = (s.choice_clock, s.choice_held)
    forget(s)
    return out


def stored(s: SessionCore) -> dict | None:
    """The choice's clocks as stored with the move to make (None: it did not switch)."""
    if s.choice_clock is None or s.clock is None:
        return None
    return {"before": s.choice_clock[0], "after": s.clock.snapshot(), "held": s.choice_held}


def restore(s: SessionCore, data: object) -> None:
    """Bring the choice's clocks back after a restart (``data`` from :func:`stored`): they
    read as at the choice and run again once the board is set up."""
    if not isinstance(data, dict) or s.clock is None:
        return
    before, after = data.get("before"), data.get("after")
    if not isinstance(before, dict) or not isinstance(after, dict):
        return
    paused = s.clock.paused
    clock = GameClock.restore(after)
    clock.running, clock.since, clock.paused = None, None, paused
    s.clock = clock
    s.choice_clock = (before, None)
    s.choice_held = bool(data.get("held"))


def side_to_start(s: SessionCore) -> str | None:
    """Whose clock starts when the board is set up: the side to move, or with a switched
    choice waiting at the board its opponent (nobody while it is held)."""
    if s.choice_clock is None:
        return s.game.turn
    return None if s.choice_held else other(s.game.turn)
