"""The tracker's private model: its copy of the game, and what should stand on the board (the
game's position plus captured pieces still standing), with the occupied squares before every
move (a takeback by hand restores one of those)."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import ATTACKERS, Board, Move, Outcome
from ..rules.game import Game, PlayedMove
from .event_json import FaultFields
from .square_relations import Grid

#: The sensor colour (polarity boards) of each piece letter.
COLOUR_OF = {"t": "a", "T": "d", "K": "d"}


def side_colour(side: str) -> str:
    """The sensor colour (``"a"``/``"d"``) of a side's pieces."""
    return "a" if side == ATTACKERS else "d"


@dataclass(frozen=True, slots=True)
class Expected:
    """The move to make (see :meth:`Tracker.expect`): the move, its record text, the piece and
    side that make it, and what it captures (in name order)."""

    move: Move
    text: str
    piece: str
    side: str
    captures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One explanation of the board's difference as a legal move: its captures (name order)
    and those already lifted off (settled)."""

    frm: int
    to: int
    captured: tuple[int, ...]
    removed: tuple[int, ...]


class PieceModel:
    """The game as the tracker has concluded it (it changes only by the tracker's proposals
    and ``sync``), the captured pieces still standing (``pending``: square -> piece) and the
    last move's captured pieces already lifted off (``removed``: square -> when)."""

    def __init__(self, game: Game, grid: Grid) -> None:
        self._grid = grid
        self._preview: dict[tuple[int, int, int, str, int, int], tuple[int, ...]] = {}
        self.sync(game)

    def sync(self, game: Game) -> None:
        """Take a private copy of ``game``; nothing pending."""
        self.game = game.copy()
        self.board: Board = self.game.board  #: the model game's board (the same object)
        board = self.board
        self.before: list[frozenset[int]] = [
            frozenset(board.geo.iter_bits(bb)) for bb in board.occupied_before_moves()]
        self.pending: dict[int, str] = {}
        self.removed: dict[int, float] = {}
        self._preview.clear()
        self.position_changed()

    def position_changed(self) -> None:
        """Recompute what follows from the game's position (only the tracker changes it)."""
        self.position = self.game.board.occupied_squares()
        self._ended: tuple[Outcome | None] | None = None

    # -- reading ------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        """The side to move."""
        return self.board.turn

    @property
    def last(self) -> PlayedMove | None:
        """The last move played, None before the first."""
        played = self.game.played
        return played[-1] if played else None

    @property
    def outcome(self) -> Outcome | None:
        """The model's outcome (cached until its position changes)."""
        if self._ended is None:
            self._ended = (self.game.outcome(),)
        return self._ended[0]

    @property
    def base(self) -> frozenset[int]:
        """What the board should show: the position plus captured pieces still standing."""
        return self.position | self.pending.keys()

    def piece(self, square: int) -> str:
        """The piece letter on an occupied square of the model's position."""
        piece = self.game.board.piece_at(square)
        if piece is None:
            raise ValueError(f"no piece on {self._grid.name(square)} in the tracker's model")
        return piece

    def letter(self, square: int) -> str | None:
        """The piece that should stand on ``square`` (a captured one still standing too)."""
        return self.pending.get(square) or self.game.board.piece_at(square)

    def side_of(self, square: int) -> str | None:
        """The side of the piece on ``square`` in the model's position."""
        return self.game.board.side_of(square)

    def captures_of(self, move: Move) -> tuple[int, ...]:
        """What a legal ``move`` would capture, in name order (cached per position)."""
        board = self.game.board
        key = (board.att, board.dfn, board.king, board.turn, move.frm, move.to)
        caps = self._preview.get(key)
        if caps is None:
            if len(self._preview) > 512:
                self._preview.clear()
            captured, _ = board.preview(move)
            caps = tuple(self._grid.sort(captured))
            self._preview[key] = caps
        return caps

    def captured_pieces(self, played: PlayedMove) -> dict[int, str]:
        """The piece letter of each square a move captured, in name order."""
        soldier = "T" if played.side == ATTACKERS else "t"
        return {s: ("K" if s == played.captured_king else soldier)
                for s in self._grid.sort(played.captures)}

    def illegal_instead_of_last(self, move: Move) -> tuple[str, FaultFields] | None:
        """Why ``move`` would have been illegal in place of the last move (None if legal): the
        code and the :class:`~companion.tracker.events.Fault` fields its wording needs."""
        trial = self.game.board.copy()
        trial.pop()
        return _why(trial, move)

    def illegal(self, move: Move) -> tuple[str, FaultFields] | None:
        """Why ``move`` is illegal now (None if it is legal), as for
        :meth:`illegal_instead_of_last`."""
        return _why(self.game.board, move)

    # -- changing -----------------------------------------------------------------------
    def play(self, move: Move, removed: dict[int, float]) -> PlayedMove:
        """Play a move (its captured pieces on ``removed`` already lifted off, when)."""
        before = self.position
        played = self.game.play(move)
        self.before.append(before)
        self.settle_captures(played, removed)
        return played

    def revise(self, to: int) -> PlayedMove | None:
        """Replace the last move by its piece going on to ``to``; None (nothing changed) if that
        is not legal."""
        last = self.game.played[-1]
        move = Move(last.move.frm, to)
        trial = self.game.board.copy()
        trial.pop()
        if not trial.is_legal(move):
            return None
        self._preview.clear()
        self.game.undo()
        played = self.game.play(move)
        self.settle_captures(played, {})
        return played

    def settle_captures(self, played: PlayedMove, removed: dict[int, float]) -> None:
        """After ``played``: its captured pieces stand until lifted (``removed``: lifted
        already)."""
        self.position_changed()
        caps = self.captured_pieces(played)
        self.pending = {s: p for s, p in caps.items() if s not in removed}
        self.removed = dict(removed)

    def lifted_off(self, square: int, at: float) -> None:
        """The captured piece on ``square`` was lifted off at ``at``."""
        del self.pending[square]
        self.removed[square] = at

    def put_back(self, square: int, piece: str) -> None:
        """A captured piece was put back on ``square`` (a takeback by hand under way)."""
        self.pending[square] = piece

    def take_back(self) -> PlayedMove:
        """Undo the last move (the board shows the position before it)."""
        played = self.game.undo()
        self.before.pop()
        self._preview.clear()
        self.position_changed()
        self.pending = {}
        return played


def _why(board: Board, move: Move) -> tuple[str, FaultFields] | None:
    why = board.illegal_code(move)
    if why is None:
        return None
    fields: FaultFields = {}
    if why.square is not None:
        fields["at"] = why.square
    if why.turn is not None:
        fields["turn"], fields["side"] = why.turn, why.side
    return why.code, fields
