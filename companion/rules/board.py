"""The Board: one tafl position with its side to move, legal moves, make/undo and outcome.

>>> board = Board("brandubh")
>>> board
Board('brandubh', '/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/', 'attackers')
>>> board.push(Move.parse("d2-c2", board))    # captures nothing
SquareSet.from_squares([], 7)
>>> board.turn, len(board.legal_moves())
(<Side.DEFENDERS: 'defenders'>, 23)
>>> board.pop()
Move.parse('d2-c2', 7)
>>> board == Board("brandubh")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import core
from .move import ILLEGAL_TEXT as ILLEGAL_TEXT  # re-exported (older imports)
from .move import Illegal as Illegal
from .move import Move as Move
from .move import MoveError as MoveError
from .move import SquareSet as SquareSet
from .move import parse_move_text
from .otn import PositionError
from .outcome import REASON_TEXT as REASON_TEXT  # re-exported (older imports)
from .outcome import Outcome, Termination
from .placement import Placement
from .ruleset import ATTACKERS, DEFENDERS, PRESETS, RuleSet, Side
from .ruleset import other as other


@dataclass(frozen=True, slots=True)
class Position:
    """What the rules need to go on from a position: the placement (OTN) and the side to move.
    (Whether the king has left the throne follows from where he stands; repetitions before it
    are not part of a position.) ``str(position)`` is ``"<OTN> <turn>"`` and
    :meth:`parse` reads it back.

    >>> position = Board("brandubh").position()
    >>> str(position)
    '/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/ attackers'
    >>> Position.parse(str(position)) == position
    True
    """

    otn: str
    turn: str

    def __str__(self) -> str:
        return f"{self.otn} {self.turn}"

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read ``"<OTN> attackers|defenders"``; PositionError if it is not that form (the
        placement itself is checked when a Board is made of it).

        >>> Position.parse("/7/7/7/3K3/7/7/7/ defenders").turn
        <Side.DEFENDERS: 'defenders'>
        >>> Position.parse("/7/7/7/3K3/7/7/7/ white")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        companion.rules.otn.PositionError: expected '<OTN> attackers|defenders', not '... white'
        """
        otn, sep, turn = text.strip().rpartition(" ")
        if not sep or turn not in (ATTACKERS, DEFENDERS):
            raise PositionError(f"expected '<OTN> attackers|defenders', not {text!r}")
        return cls(otn, Side(turn))

#: A position as the repetition history keys it: attackers, defenders, the king, side to move.
_Key = tuple[int, int, int, Side]
#: What :meth:`Board.pop` restores.
_Undo = tuple[int, int, int, Side, bool, Termination | None, Side | None, list[_Key]]


class Board(Placement):
    """A position of a rule set, with the side to move, repetition history since the last
    capture and a move stack for :meth:`pop`.

    ``rules`` is a :class:`~companion.rules.ruleset.RuleSet` or a preset's id; ``position`` an
    OTN placement (the variant's start by default) and ``turn`` the side to move (the variant's
    first by default). PositionError says what is wrong with a position.

    Two boards are equal when every method answers alike on them: the same rule set,
    placement, side to move, repetition history and move stack (so :meth:`pop` gives the same).
    A board is mutable, hence unhashable: key positions by :meth:`position`.

    >>> Board("tablut").turn
    <Side.ATTACKERS: 'attackers'>
    >>> Board("brandubh", "/7/7/7/3K3/7/7/7/", "defenders").pieces("defenders")
    [24]
    >>> Board("brandubh", "/t6/7/7/3K3/7/7/7/")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    companion.rules.otn.PositionError: an attacker stands on the corner a1: only the king may ...
    """

    __hash__: ClassVar[None]  # type: ignore[assignment]

    def __init__(
        self, rules: RuleSet | str, position: str | None = None, turn: str | None = None,
        king_left: bool | None = None,
    ) -> None:
        super().__init__(rules, position)
        rules = self.rules
        turn = turn or rules.first
        if turn not in (ATTACKERS, DEFENDERS):
            raise PositionError(f"turn must be attackers or defenders, not {turn!r}")
        self.turn: Side = Side(turn)
        if king_left is None:
            king_left = self.king != self.geo.throne
        # Whether the king has left the throne matters only where he may not return to it
        # (``throne_stop`` "king_once"); elsewhere it is always False, so that a position (OTN
        # and the side to move) says everything the rules need, whatever the moves before it.
        self.king_left = king_left and rules.throne_stop == "king_once"
        self.move_stack: list[Move] = []
        self.capture_stack: list[SquareSet] = []
        self._undo: list[_Undo] = []
        self._win: Termination | None = None
        self._winner: Side | None = None
        self.history: list[_Key] = [self._key()]
        self._mobility: tuple[_Key, bool] | None = None  # (position, has a legal move): outcome()
        if self.king < 0:
            self._win, self._winner = core.KING_CAPTURED, ATTACKERS

    # -- identity -----------------------------------------------------------------------
    def __repr__(self) -> str:
        """``Board('brandubh', '<OTN>', 'attackers')`` for a preset's board (what makes the
        same position again); a rule set of one's own is named by its id."""
        args = f"{self.otn()!r}, {str(self.turn)!r}"
        if PRESETS.get(self.rules.id) == self.rules:
            return f"Board({self.rules.id!r}, {args})"
        return f"<Board of the rule set {self.rules.id!r} (not a preset): {args}>"

    def _state(self) -> tuple[object, ...]:
        return (self.att, self.dfn, self.king, self.turn, self.king_left, self._win,
                self._winner, self.history, self.move_stack, self._undo, self.rules)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._state() == other._state()

    # -- inspection ---------------------------------------------------------------------
    @classmethod
    def from_position(cls, rules: RuleSet | str, position: Position) -> Board:
        """A board of ``rules`` at ``position`` (no move history).

        >>> Board.from_position("brandubh", Position.parse("/7/7/7/3K3/7/7/7/ defenders"))
        Board('brandubh', '/7/7/7/3K3/7/7/7/', 'defenders')
        """
        return cls(rules, position.otn, position.turn)

    def position(self) -> Position:
        """The position (placement and side to move); ``Board.from_position(rules,
        board.position())`` plays on exactly like this board, short of its repetition history.

        >>> Board("brandubh").position().turn
        <Side.ATTACKERS: 'attackers'>
        """
        return Position(self.otn(), self.turn)

    def root(self) -> Board:
        """A board at the start of the move stack (python-chess's ``Board.root``): the position
        before the first move, with the repetition history it had then; no moves to pop.

        >>> board = Board("brandubh")
        >>> board.push(board.legal_moves()[0])
        SquareSet.from_squares([], 7)
        >>> board.root() == Board("brandubh"), board.root().move_stack
        (True, [])
        """
        if not self.move_stack:
            twin = self.copy()
            twin.move_stack, twin.capture_stack, twin._undo = [], [], []
            return twin
        twin = self.copy()
        (twin.att, twin.dfn, twin.king, twin.turn, twin.king_left, twin._win, twin._winner,
         twin.history) = self._undo[0]
        twin.move_stack, twin.capture_stack, twin._undo = [], [], []
        twin.history = list(twin.history)
        return twin

    def copy(self) -> Board:
        """An independent board in the same state: position, move stack and history (no
        replaying).

        >>> board = Board("brandubh")
        >>> twin = board.copy()
        >>> twin == board, twin is board
        (True, False)
        """
        twin = object.__new__(Board)
        twin.rules, twin.geo = self.rules, self.geo
        twin.att, twin.dfn, twin.king, twin.turn = self.att, self.dfn, self.king, self.turn
        twin.king_left, twin._win, twin._winner = self.king_left, self._win, self._winner
        twin.move_stack = list(self.move_stack)
        twin.capture_stack = list(self.capture_stack)
        twin._undo = list(self._undo)  # entries are immutable (histories are never mutated)
        twin.history = list(self.history)
        twin._mobility = self._mobility
        return twin

    def _key(self) -> _Key:
        return (self.att, self.dfn, self.king, self.turn)

    def occupied_before_moves(self) -> list[int]:
        """The occupied bitboard before each move of the move stack, oldest first.

        >>> board = Board("brandubh", "/7/7/7/3K3/7/7/7/", "defenders")
        >>> board.push(Move.parse("d4-d7", 7))
        SquareSet.from_squares([], 7)
        >>> board.occupied_before_moves() == [1 << 24]
        True
        """
        bit = self.geo.bit
        return [att | dfn | (bit[king] if king >= 0 else 0)
                for att, dfn, king, *_ in self._undo]

    # -- moves --------------------------------------------------------------------------
    def _mover(self, is_king: bool) -> core.Mover:
        return core.Mover(
            self.geo, self.rules, is_king, core.king_may_stop_on_throne(self.rules, self.king_left)
        )

    def destinations(self, square: int) -> list[int]:
        """Legal destination squares of the piece on ``square`` if its side is to move (else
        the squares it could reach were it that side's turn). Empty when the game is over.

        >>> board = Board("brandubh")
        >>> [board.name(s) for s in board.destinations(3)]     # the attacker on d1
        ['e1', 'f1', 'c1', 'b1']
        """
        side = self.side_of(square)
        if side is None or self._win:
            return []
        return core.piece_destinations(self.geo, self.occupied, square,
                                       self._mover(square == self.king))

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move (none once the game is decided by a move).

        >>> moves = Board("brandubh").legal_moves()
        >>> len(moves), str(moves[0])
        (40, 'd1-e1')
        """
        if self._win:
            return []
        occ = self.occupied
        soldier = self._mover(False)
        n = self.size
        out = []
        for s in self.pieces(self.turn):
            mover = self._mover(True) if s == self.king else soldier
            for t in core.piece_destinations(self.geo, occ, s, mover):
                out.append(Move(s, t, n))
        return out

    def has_legal_move(self) -> bool:
        """Whether the side to move has at least one legal move.

        >>> Board("brandubh").has_legal_move()
        True
        """
        occ = self.occupied
        soldier = self._mover(False)
        for s in self.pieces(self.turn):
            mover = self._mover(True) if s == self.king else soldier
            if core.piece_destinations(self.geo, occ, s, mover):
                return True
        return False

    def illegal_code(self, move: Move) -> Illegal | None:
        """None if ``move`` is legal, else why not as data (:class:`Illegal`).

        >>> board = Board("brandubh")
        >>> board.illegal_code(Move(3, 2)) is None
        True
        >>> board.illegal_code(Move(3, 0))                # d1-a1: onto the corner
        Illegal(code='corner_stop', square=0, turn=None, side=None)
        """
        if self._win:
            return Illegal("game_over")
        geo, frm, to = self.geo, move.frm, move.to
        if not (0 <= frm < geo.count and 0 <= to < geo.count):
            return Illegal("off_board")
        side = self.side_of(frm)
        if side is None:
            return Illegal("no_piece", frm)
        if side != self.turn:
            return Illegal("not_your_turn", turn=self.turn, side=side)
        if frm == to:
            return Illegal("did_not_move")
        if self.occupied >> to & 1:
            return Illegal("occupied", to)
        ff, fr, tf, tr = frm % geo.n, frm // geo.n, to % geo.n, to // geo.n
        if ff != tf and fr != tr:
            return Illegal("diagonal")
        if to in self.destinations(frm):
            return None
        is_king = frm == self.king
        for ray in geo.rays[frm]:
            if to not in ray:
                continue
            for s in ray[: ray.index(to)]:
                if self.occupied >> s & 1:
                    return Illegal("jump", s)
                if geo.corner >> s & 1:
                    return Illegal("corner_pass", s)
                if s == geo.throne:
                    return Illegal("throne_pass", s)
        if geo.corner >> to & 1 and not is_king:
            return Illegal("corner_stop", to)
        if to == geo.throne:
            return Illegal("throne_return" if is_king else "throne_stop", to)
        return Illegal("not_legal")

    def illegal_reason(self, move: Move) -> str | None:
        """None if ``move`` is legal, else a plain-language reason (English).

        >>> Board("brandubh").illegal_reason(Move.parse("d3-e3", 7))
        "it is the attackers' turn, not the defenders'"
        """
        why = self.illegal_code(move)
        return None if why is None else why.text(self.size)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal for the side to move.

        >>> board = Board("brandubh")
        >>> board.is_legal(Move.parse("d2-c2", 7)), board.is_legal(Move.parse("d2-d3", 7))
        (True, False)
        """
        return self.illegal_code(move) is None

    def parse_move(self, text: str) -> tuple[Move, list[int] | None]:
        """Parse ``"g3-e3"`` or ``"g3-e3xe2"``: the move and the listed captures (None if no
        ``x`` part). Raises MoveError for malformed text (not for illegal moves); squares are
        strict (see :mod:`companion.squares`), and so is the text: no whitespace around it.

        >>> Board("brandubh").parse_move("b4-b2xb1")
        (Move.parse('b4-b2', 7), [1])
        >>> Board("brandubh").parse_move("b4-b2")
        (Move.parse('b4-b2', 7), None)
        """
        return parse_move_text(text, self.size)

    def preview(self, move: Move) -> tuple[SquareSet, str | None]:
        """``(captured squares, result after the move)`` without keeping the move; MoveError
        if it is illegal.

        >>> board = Board("brandubh", "/7/7/7/K6/7/7/7/", "defenders")
        >>> board.preview(Move.parse("a4-a7", 7))
        (SquareSet.from_squares([], 7), 'defenders')
        """
        captured = self.push(move)
        outcome = self.outcome()
        self.pop()
        return captured, outcome.result if outcome else None

    # -- make / undo --------------------------------------------------------------------
    def push(self, move: Move) -> SquareSet:
        """Play a legal move (raises MoveError otherwise); returns the squares it captured
        (the king's included when he is taken).

        >>> board = Board("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
        >>> captured = board.push(Move.parse("d1-d2", board))    # c2 closed between b2 and d2
        >>> list(captured), str(captured), board.otn()
        ([9], 'c2', '/7/1t1t3/7/3K3/7/7/7/')
        >>> board.push(Move.parse("a4-a3", 7))
        Traceback (most recent call last):
        ...
        companion.rules.move.MoveError: illegal move a4-a3: there is no piece on a4
        """
        why = self.illegal_code(move)
        if why is not None:
            what = move.text(self.size) if why.code != "off_board" else repr(move)
            raise MoveError(f"illegal move {what}: {why.text(self.size)}")
        return self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> SquareSet:
        """Play a move known to be legal (no check); returns the captured squares like
        :meth:`push`.

        >>> board = Board("brandubh", "/3t3/1tT4/7/3K3/7/7/7/")
        >>> board.push_unchecked(Move.parse("d1-d2", 7))
        SquareSet.from_squares([9], 7)
        """
        geo, rules = self.geo, self.rules
        frm, to = move.frm, move.to
        self._undo.append(
            (self.att, self.dfn, self.king, self.turn, self.king_left, self._win, self._winner,
             self.history)
        )
        swap = geo.bit[frm] | geo.bit[to]
        attackers_moved = self.turn == ATTACKERS
        king_moved = frm == self.king
        if attackers_moved:
            self.att ^= swap
        elif king_moved:
            self.king = to
            if frm == geo.throne and rules.throne_stop == "king_once":
                self.king_left = True
        else:
            self.dfn ^= swap
        captured = core.compute_captures(
            geo, rules, self.att, self.dfn, self.king, to, attackers_moved
        )
        if captured:
            self.att &= ~captured
            self.dfn &= ~captured
            if self.king >= 0 and captured >> self.king & 1:
                self.king = -1
        self._win = core.move_result(
            geo, rules, self.att, self.dfn, self.king, self.king_left, to, king_moved,
            attackers_moved,
        )
        self._winner = (ATTACKERS if attackers_moved else DEFENDERS) if self._win else None
        mover = self.turn
        self.turn = other(self.turn)
        key = self._key()
        self.history = [key] if captured else self.history + [key]
        if not self._win and rules.repetition != "off" and self.history.count(key) >= 3:
            self._win = Termination.REPETITION
            if rules.repetition == "draw":
                self._winner = None
            elif mover == DEFENDERS:
                self._winner = ATTACKERS
            else:
                self._win = None  # a third occurrence by the attackers is allowed
        self.move_stack.append(move)
        squares = SquareSet(captured, self.size)
        self.capture_stack.append(squares)
        return squares

    def pop(self) -> Move:
        """Undo the last move and return it; IndexError when there is none.

        >>> board = Board("brandubh")
        >>> board.push(Move.parse("d2-c2", 7))
        SquareSet.from_squares([], 7)
        >>> board.pop(), board == Board("brandubh")
        (Move.parse('d2-c2', 7), True)
        """
        if not self.move_stack:
            raise IndexError("no move to undo")
        (self.att, self.dfn, self.king, self.turn, self.king_left, self._win, self._winner,
         self.history) = self._undo.pop()
        self.capture_stack.pop()
        return self.move_stack.pop()

    # -- result -------------------------------------------------------------------------
    def move_outcome(self) -> Outcome | None:
        """The ending a move has brought about (the king captured or escaped, an exit fort,
        encirclement, repetition), None otherwise. Unlike :meth:`outcome` it does not ask
        whether the side to move has a legal move, so it costs nothing.

        >>> board = Board("brandubh", "/7/7/7/K6/7/7/7/", "defenders")
        >>> board.move_outcome() is None
        True
        >>> board.push(Move.parse("a4-a7", 7))
        SquareSet.from_squares([], 7)
        >>> board.move_outcome()
        Outcome(winner=<Side.DEFENDERS: 'defenders'>, termination=<Termination.ESCAPE: 'escape'>)
        """
        return Outcome(self._winner, self._win) if self._win else None

    def outcome(self) -> Outcome | None:
        """How the game stands decided by the rules: None while it goes on.

        >>> Board("brandubh").outcome() is None
        True
        >>> Board("brandubh", "/7/7/7/t6/7/7/7/").outcome().result    # no king: attackers won
        'attackers'
        >>> Board("brandubh", "/7/7/7/3K3/7/7/7/").outcome().termination    # nobody to move
        <Termination.NO_MOVES: 'no_moves'>
        """
        if self._win:
            return Outcome(self._winner, self._win)
        # Whether the side to move can move is the costly part, and the same position is asked
        # many times between two moves (the session's every scan): it is kept for the position.
        key = self._key()
        mobility = self._mobility
        if mobility is None or mobility[0] != key:
            mobility = self._mobility = (key, self.has_legal_move())
        if not mobility[1]:
            winner = other(self.turn) if self.rules.no_moves == "loss" else None
            return Outcome(winner, Termination.NO_MOVES)
        return None
