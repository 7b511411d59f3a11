"""The tracker: timestamped occupancy scans in; proposed moves, events, guidance and LED frames
out.

Pure: no I/O and no wall clock. Time is whatever the caller's scans and ticks say. The tracker
keeps a private model of the game (it never changes the caller's ``Game``) and *proposes*:
``move``, ``revised`` and ``takeback`` events say what it concluded; the session applies them
(``events.apply_proposal``) or refuses them and calls :meth:`Tracker.reset`. The session can set
the move to make (:meth:`Tracker.expect`) and suspend judging (:meth:`Tracker.suspend`).
docs/events.md documents every event, guidance kind and fault code.

How it decides (times are the caller's clock; ``settle`` defaults to 0.2 s, ``hold`` to 0.5 s,
``knock_window`` to 0.2 s, ``revise_window`` to 1.2 s, ``lift_hold`` to 0.75 s):

* The *base* is what the board should show: the game's position plus captured pieces that are
  still standing on the board ("pending"). The *diff* is the current scan against the base:
  squares that should be occupied but are empty (``gone``) and the reverse (``new``).
* A square is *settled* when it has not changed for ``settle`` seconds. Nothing is concluded from
  unsettled squares, so contact bounce, a magnet passing an empty square, a piece sliding through
  transit squares, or a knocked piece that falls straight back never produce an event.
* A move is accepted once its squares have settled, nothing along its path (one square before the
  start to one past the destination) has changed for ``settle`` seconds, and the diff is
  explained by exactly one legal move of the side to move (pieces knocked meanwhile aside, see
  below; their squares need not have settled). Its captured pieces may already be gone. The
  piece must have left its square more than ``knock_window`` after the previous move's piece
  came to rest (earlier, it was the previous mover's hand). So a move is accepted ``settle``
  after its piece comes to rest.
* **Knocks.** A piece that leaves its square and lands on a touching one (diagonals included)
  within ``knock_window`` is *knocked* only if a hand was busy with another piece at that
  moment: a piece was in the air (lifted before it, or within the knock window after it, and
  not yet put down), a piece was being put down on a new square, the last move's piece was
  being carried (from leaving its square until ``knock_window`` after coming to rest), or a
  captured piece was being lifted off. Speed alone never makes a knock: an opponent's piece, or
  one's own soldier onto the throne or a corner, moved one square quickly while nothing else is
  touched is an illegal move like any other. A knocked piece is tolerated while the move is
  accepted and flagged afterwards (``warning`` ``knocked``); a candidate move whose destination
  a knocked piece could have reached is not accepted.
* A move accepted while the piece was only pausing (a slow slide, an overshoot, a piece put down
  and picked up again) is *revised* when the same piece moves on along the same line while the
  mover's hand is still on it: it left its resting square at most ``revise_window`` after
  coming to rest there, it was put down again without a pause longer than that, and the
  opponent has not touched a piece of his own meanwhile. Event ``revised`` (the move that
  replaces the last one, with ``replaces``); captures are recomputed, so a capture flagged on
  the transit square is withdrawn. The revision keeps the first placement time
  (``placed_at``). Later touches of that piece are the opponent's: lifted and put back is
  nothing (held for ``hold``: a ``lifted_out_of_turn`` warning), moved and left is illegal
  (``not_your_turn``). Re-seating the piece just placed (lifted and put back on its square) is
  nothing.
* Restoring the position before the last move (captured pieces put back too, in any order) takes
  it back (event ``takeback``); one move at a time. A captured piece put back
  while the capturing piece still stands becomes pending again (event ``restored``).
* Anything else that stays while nobody touches the board for ``hold`` seconds is a fault
  (``lift_hold``, 0.75 s, for a piece of the side not to move that is only lifted: a slow
  hand moving it somewhere is judged once it is put down):
  ``illegal`` (a move the rules forbid, a move while captured pieces still stand, several pieces
  moved) or ``warning`` (wrong piece lifted, a piece knocked to another square, a piece lifted out
  of turn, a piece of the wrong colour on polarity boards). Each fault is flagged once and clears
  when the board is back in a legal state; while the board is on its way back (part of the
  fault undone, say the piece lifted to be put back) nothing new is flagged; a legal move made
  from an illegal state counts.
* After the game has ended only captured pieces being lifted off, revisions and takebacks count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..rules import Move, Outcome
from ..rules.game import Game
from ..scan import Scan
from .events import Event, Guidance, TrackerState
from .faults import Faults
from .judge import Judge
from .knocks import Knocks
from .model import Candidate, Expected, PieceModel
from .moves import MoveFinder, Proposer
from .readings import NEVER, Deadline, Readings, Timing
from .revisions import RevisionWindow
from .setup import PieceCheck, Setup, undone_moves
from .shown import Display
from .square_relations import grid_for

__all__ = ["NEVER", "BoardReading", "Candidate", "Expected", "Timing", "Tracker"]


@dataclass(frozen=True, slots=True)
class BoardReading:
    """What the sensors read (:attr:`Tracker.reading`): occupied squares, their colours
    (``"a"``/``"d"``, polarity boards only), and whether the board has been still for the
    tracker's ``settle`` time."""

    occupied: frozenset[int]
    colours: Mapping[int, str]
    still: bool


class Tracker:
    """Turns a stream of scans into the moves that were played (see the module docstring): a
    state machine over its parts, each owning its state — the readings (``readings``), the
    piece model (``model``), the set-up (``setup``), the revision window (``revisions``),
    knocks (``knocks``), faults (``faults``), the move finder and the proposer (``moves``, which
    holds the move to make), the display (``display``) and the judge (``judge``), which
    infers from them during play."""

    def __init__(
        self, game: Game, *, settle: float = 0.2, hold: float = 0.5, knock_window: float = 0.2,
        revise_window: float = 1.2, lift_hold: float = 0.75, check_pieces: bool = False,
    ) -> None:
        self.timing = Timing(settle, hold, knock_window, revise_window, lift_hold)
        self._readings = Readings(grid_for(game.rules.size))
        self._deadline = Deadline(self._readings)
        self._check = PieceCheck(check_pieces)
        self._assemble(game)
        self._suspended: str | None = None
        self._reading = False

    def _assemble(self, game: Game) -> None:
        """The parts that depend on the board's size, for ``game``'s."""
        timing, readings, deadline, check = self.timing, self._readings, self._deadline, self._check
        self._grid = grid = grid_for(game.rules.size)
        readings.regrid(grid)
        self._model = model = PieceModel(game, grid)
        self._window = window = RevisionWindow(timing, grid, readings, model)
        self._knocks = knocks = Knocks(timing, grid, readings, model)
        self._faults = faults = Faults(timing, grid, readings, model, deadline)
        self._setup = setup = Setup(timing, grid, readings, model, deadline)
        self._display = display = Display(grid, readings, model, setup, check, faults)
        finder = MoveFinder(timing, grid, readings, model, window, knocks)
        self._proposer = proposer = Proposer(grid, readings, model, window, knocks, faults,
                                             display, finder, check)
        self._judge = Judge(timing, grid, readings, model, deadline, window, knocks, faults,
                            display, finder, proposer)

    # -- public API ---------------------------------------------------------------------
    @property
    def settle(self) -> float:
        """How long a square must be still before anything is concluded from it."""
        return self.timing.settle

    @property
    def moves(self) -> tuple[str, ...]:
        """The record texts of the tracker's own model of the game (what it has proposed)."""
        return tuple(self._model.game.moves)

    @property
    def outcome(self) -> Outcome | None:
        """How the tracker's model of the game ended, None while it goes on."""
        return self._model.game.outcome()

    @property
    def leds(self) -> dict[str, str]:
        """The current LED frame: square -> role (a :class:`~companion.feedback.LedRole`)."""
        return dict(self._display.frame)

    @property
    def guidance(self) -> Guidance:
        """What the players should do now, as data (``guidance.to_json()`` for the page)."""
        return self._display.guidance

    @property
    def message(self) -> str:
        """The guidance as an English sentence (``companion.messages``)."""
        return self._display.message

    @property
    def state(self) -> TrackerState:
        """What the tracker is waiting for (see :class:`TrackerState`)."""
        return self._display.state

    @property
    def deadline(self) -> float | None:
        """The next time at which :meth:`tick` may change something (None: only a scan can)."""
        return self._deadline.at

    @property
    def expected(self) -> Move | None:
        """The move to make, None if any move is judged."""
        expected = self._proposer.expected
        return expected.move if expected else None

    @property
    def suspended(self) -> str | None:
        """Why judging is suspended, None while it is not."""
        return self._suspended

    def feed(self, scan: Scan) -> list[Event]:
        """Take one full scan; returns the events it caused. SquareError (a ValueError) if it
        names a square that is not on the board."""
        t = max(scan.t, self._readings.now)
        if not self._readings.take(scan, t):
            return self.tick(t)
        return self._run(t)

    def tick(self, t: float) -> list[Event]:
        """Time passes with no change; acceptance happens here once the board has settled."""
        readings, deadline = self._readings, self._deadline.at
        if not readings.seen or deadline is None or t < deadline:
            readings.now = max(readings.now, t)
            return []
        return self._run(max(t, readings.now))

    def reset(self, game: Game, t: float) -> list[Event]:
        """Resynchronise with the session's ``game`` (a new game, a control, a refused
        proposal, a resume): the tracker takes a private copy and guides the set-up until the
        board matches it. Clears the move to make (the session sets it again); a suspension
        stays. The caller's game is never changed. A game on a board of another size (a new
        variant) starts the tracker afresh on that size (what the sensors read is kept)."""
        undone: tuple[tuple[int, int, str], ...] = ()
        earlier = self._setup.pending_carries  # a takeback the board has not followed yet
        if game.rules.size != self._grid.size:
            self._assemble(game)
            earlier = ()
        else:
            old = self._model.game
            undone = undone_moves(old, game)
            if not undone and [p.text for p in old.played] != [p.text for p in game.played]:
                earlier = ()  # another game, or moves on: the old carries mean nothing now
        self._sync_game(game)
        self._setup.undone(undone, earlier)
        if not self._readings.seen:
            return []
        return self._run(max(t, self._readings.now))

    def expect(self, move: Move | None, t: float | None = None) -> list[Event]:
        """Set the move to make: a move chosen off the board (by a remote player or the
        computer) that the person at the board must now execute. While it is set, that move is
        the only one accepted; any other is flagged ``illegal`` with the code
        ``not_the_move_to_make`` and is not proposed. The LEDs show ``make_from``/``make_to``,
        then the destination while the piece is in the air, then the captured pieces to lift.
        It clears itself once the move is proposed (and on a takeback or reset); ``None``
        clears it. MoveError (a ValueError) if the move is not legal in the tracker's model.
        Returns the events of the new display (at ``t``, or the last time seen)."""
        self._proposer.expect(move)
        return self._rerun(t)

    def suspend(self, reason: str | None, t: float | None = None) -> list[Event]:
        """Suspend judging (``reason``: a short id such as ``"storage"``, see docs/events.md):
        the board is still watched and guidance says why, but no move, revision or takeback is
        accepted or proposed and no new fault is flagged. ``None`` resumes: the board is judged
        afresh, so a move made meanwhile is then accepted normally. Returns the events (at
        ``t``, or the last time seen)."""
        self._suspended = reason
        return self._rerun(t)

    def checked(self, t: float | None = None) -> list[Event]:
        """The players checked the pieces' kinds (``check_pieces`` guidance): the check is over.
        Returns the events of the new display (at ``t``, or the last time seen)."""
        self._check.done()
        return self._rerun(t)

    def read_board(self, on: bool, t: float | None = None) -> list[Event]:
        """While ``on``, the board defines a new position (a study, a game from a book): the
        tracker neither guides the set-up nor judges anything and shows ``reading`` guidance
        with the occupied squares (and colours); :attr:`reading` is what the sensors read. The
        session builds the position from it (the pieces' kinds from the colours or the page,
        ``companion.rules.start``) and calls :meth:`reset` with the new game, which ends the
        reading (the board matches it: play starts). ``read_board(False)`` ends it without a
        new game: the board is compared with the game again."""
        self._reading = on
        if not on:
            self._setup.reset()
        return self._rerun(t)

    @property
    def reading(self) -> BoardReading:
        """What the sensors read now: the occupied squares, their colours (polarity boards),
        and whether the board has been still for ``settle``."""
        readings = self._readings
        still = readings.now >= readings.last_change + self.timing.settle
        return BoardReading(readings.occupied, dict(readings.colours), still)

    def _rerun(self, t: float | None) -> list[Event]:
        now = self._readings.now
        if not self._readings.seen:
            return []
        return self._run(now if t is None else max(t, now))

    # -- bookkeeping --------------------------------------------------------------------
    def _sync_game(self, game: Game) -> None:
        self._reading = False
        self._check.done()
        self._model.sync(game)
        self._setup.reset()
        self._window.reset()
        self._knocks.forget()
        self._faults.reset()
        self._display.view()
        self._proposer.expected = None

    def _run(self, t: float) -> list[Event]:
        self._readings.now = t
        out: list[Event] = []
        self._deadline.clear()
        setup = self._setup
        if self._reading:
            pass  # watched, neither guided nor judged
        elif not setup.playing:
            out += setup.evaluate(t)
            if setup.playing:  # set up: for a game under way, or from its start
                self._check.ask("resume" if self._model.game.played else "setup")
        if setup.playing and not self._reading:
            for _ in range(8):
                if not self._judge.step(t, self._suspended, out):
                    break
        out += self._display.refresh(t, self._proposer.expected, self._suspended, self._reading)
        return out
