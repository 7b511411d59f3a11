"""Setting the board up: until the board matches the tracker's model, guidance says what to
place, clear and swap; once it matches and is still, play (judging) starts."""

from __future__ import annotations

from .. import messages
from .events import Event, Ready, SetupNeeded
from .model import COLOUR_OF, PieceModel
from .readings import Deadline, Readings, Timing
from .squares import Grid


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


class Setup:
    """Whether play has started (``playing``) and, until then, what the board lacks: squares
    to ``fill`` and to ``recolour`` (with the piece that belongs there) and to ``clear``, each
    in name order."""

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
        if not self.complete:
            if self._announced:
                return []
            self._announced = True
            name = grid.name
            message = messages.setup_message(
                {name(s): p for s, p in self.fill}, [name(s) for s in self.clear],
                {name(s): p for s, p in self.recolour})
            return [SetupNeeded(now, message, self.fill, self.clear, self.recolour,
                                grid.size)]
        settled_at = readings.last_change + self._timing.settle
        if now < settled_at:
            self._deadline.want(settled_at)
            return []
        self.playing = True
        return [Ready(now, model.turn)]
