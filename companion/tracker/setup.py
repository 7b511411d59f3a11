"""Setting the board up: until the board matches the tracker's model, guidance says what to
place, clear and swap; once it matches and is still, play (judging) starts."""

from __future__ import annotations

from .. import messages
from ..rules.game import Game
from .events import Event, Ready, SetupNeeded
from .model import COLOUR_OF, PieceModel
from .readings import Deadline, Readings, Timing
from .square_relations import Grid


class PieceCheck:
    """For boards whose sensors cannot tell the pieces' kinds (reed switches): at natural
    moments — the board set up for a game (``setup``) or for a game under way (``resume``: a
    restart, a control), a takeback by hand (``takeback``) — ask the players to check that
    every piece is the kind the game believes. The next move, or :meth:`done`, ends the check.
    Does nothing unless ``enabled``."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.reason: str | None = None  #: why a check is asked, None while none is

    def ask(self, reason: str) -> None:
        """Ask for a check (if enabled)."""
        if self.enabled:
            self.reason = reason

    def done(self) -> None:
        """The check is over (confirmed, or play went on)."""
        self.reason = None


#: A piece a takeback carries home: it stands on ``frm`` and goes back to ``to``.
Carry = tuple[int, int, str]


def undone_moves(before: Game, after: Game) -> tuple[Carry, ...]:
    """What going from ``before`` to ``after`` undid, when ``after`` is ``before`` with its last
    moves taken back (the same start, its moves a prefix): each undone move as the piece to
    carry home, latest first; () otherwise."""
    k = len(after.played)
    if (before.start_position != after.start_position or before.start_turn != after.start_turn
            or len(before.played) <= k
            or [p.text for p in before.played[:k]] != [p.text for p in after.played]):
        return ()
    board = after.board
    out: list[Carry] = []
    for played in reversed(before.played[k:]):
        piece = board.piece_at(played.move.frm)
        if piece is not None:
            out.append((played.move.to, played.move.frm, piece))
    return tuple(out)


class Setup:
    """Whether play has started (``playing``) and, until then, what the board lacks: squares
    to ``fill`` and to ``recolour`` (with the piece that belongs there) and to ``clear``, each
    in name order, and ``back``: the pieces a takeback carries home (``frm``, ``to``,
    piece), a fill square and a clear square that are one undone move, latest first."""

    def __init__(self, timing: Timing, grid: Grid, readings: Readings, model: PieceModel,
                 deadline: Deadline) -> None:
        self._timing, self._grid, self._readings = timing, grid, readings
        self._model, self._deadline = model, deadline
        self.reset()

    def reset(self) -> None:
        """A new model: set the board up (again)."""
        self.playing = False
        self._announced = False
        self.fill: tuple[tuple[int, str], ...] = ()
        self.clear: tuple[int, ...] = ()
        self.recolour: tuple[tuple[int, str], ...] = ()
        self.back: tuple[Carry, ...] = ()
        self._undone: tuple[Carry, ...] = ()

    def undone(self, moves: tuple[Carry, ...], earlier: tuple[Carry, ...] = ()) -> None:
        """The moves a takeback undid (latest first, as pieces to carry home): the set-up
        guides each piece back (``back``) while its home is to be filled and the square it
        stands on is not. ``earlier``: the carries of a takeback the board has not followed
        yet (they come first; a piece carried twice goes straight to its first home)."""
        out: list[Carry] = []
        for frm, to, piece in (*earlier, *moves):
            for i, (f, t, p) in enumerate(out):
                if t == frm and p == piece:  # carried on from where an earlier carry ends
                    out[i] = (f, to, p)
                    break
            else:
                out.append((frm, to, piece))
        self._undone = tuple(out)

    @property
    def pending_carries(self) -> tuple[Carry, ...]:
        """The carries not followed yet (the board not set up since the takeback)."""
        return () if self.playing else self._undone

    @property
    def complete(self) -> bool:
        """Whether the board matches the model."""
        return not (self.fill or self.clear or self.recolour)

    def evaluate(self, now: float) -> list[Event]:
        """Compare the board with the model: a ``setup`` event the first time it differs, a
        ``ready`` one (and play) once it matches and has been still for ``settle``."""
        grid, model, readings = self._grid, self._model, self._readings
        piece = model.piece
        position, occupied, colours = model.position, readings.occupied, readings.colours
        self.fill = tuple((s, piece(s)) for s in grid.sort(position - occupied))
        self.clear = tuple(grid.sort(occupied - position))
        self.recolour = tuple(
            (s, piece(s)) for s in grid.sort(occupied & position)
            if s in colours and colours[s] != COLOUR_OF[piece(s)])
        self.back = self._carried()
        if not self.complete:
            if self._announced:
                return []
            self._announced = True
            name = grid.name
            message = messages.setup_message(
                {name(s): p for s, p in self.fill}, [name(s) for s in self.clear],
                {name(s): p for s, p in self.recolour},
                [{"piece": p, "from": name(f), "to": name(t)} for f, t, p in self.back])
            return [SetupNeeded(now, message, self.fill, self.clear, self.recolour,
                                grid.size)]
        settled_at = readings.last_change + self._timing.settle
        if now < settled_at:
            self._deadline.want(settled_at)
            return []
        self.playing = True
        self._undone = ()
        return [Ready(now, model.turn)]

    def _carried(self) -> tuple[Carry, ...]:
        """The undone moves whose piece is still to go home: its home square is to be filled
        with it and the square it stands on (or was lifted from) is not to be filled."""
        fill = dict(self.fill)
        out: list[Carry] = []
        for frm, to, piece in self._undone:
            if fill.get(to) == piece and frm not in fill and not any(
                    frm == f or to == t for f, t, _ in out):
                out.append((frm, to, piece))
        return tuple(out)
