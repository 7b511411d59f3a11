"""The Board: one tafl position with its side to move, legal moves, make/undo and outcome."""

from __future__ import annotations

from dataclasses import dataclass

from ..squares import file_letter, parse_square, square_name
from . import core
from .geometry import Geometry, geometry_for
from .otn import PositionError, format_otn, parse_otn
from .outcome import REASON_TEXT as REASON_TEXT  # re-exported (older imports)
from .outcome import Outcome, Termination
from .ruleset import ATTACKERS, DEFENDERS, RuleSet


class MoveError(ValueError):
    """A move that is malformed or not legal in the position; the message says why."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move from square index ``frm`` to square index ``to`` (``rank * size + file``)."""

    frm: int
    to: int

    def text(self, size: int) -> str:
        """``"g3-e3"``: the move's squares named on a ``size`` board (for the edges)."""
        return f"{square_name(self.frm, size)}-{square_name(self.to, size)}"


@dataclass(frozen=True, slots=True)
class Illegal:
    """Why a move is not legal, as data: a stable ``code`` (a key of :data:`ILLEGAL_TEXT`) and
    what its wording names: the square at fault, or (``not_your_turn``) the side to move and
    the side of the piece."""

    code: str
    square: int | None = None
    turn: str | None = None
    side: str | None = None

    def details(self, size: int) -> dict[str, str]:
        """The wording's data, squares named: ``{"square": "d4"}``, ``{"turn": ..., "side":
        ...}`` or ``{}``."""
        out: dict[str, str] = {}
        if self.square is not None:
            out["square"] = square_name(self.square, size)
        if self.turn is not None and self.side is not None:
            out["turn"], out["side"] = self.turn, self.side
        return out

    def text(self, size: int) -> str:
        """The reason in English."""
        return ILLEGAL_TEXT[self.code].format(**self.details(size))


@dataclass(frozen=True, slots=True)
class Position:
    """What the rules need to go on from a position: the placement (OTN) and the side to move.
    (Whether the king has left the throne follows from where he stands; repetitions before it
    are not part of a position.) ``str(position)`` is ``"<OTN> <turn>"`` and
    :meth:`parse` reads it back."""

    otn: str
    turn: str

    def __str__(self) -> str:
        return f"{self.otn} {self.turn}"

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read ``"<OTN> attackers|defenders"``; PositionError if it is not that form (the
        placement itself is checked when a Board is made of it)."""
        otn, sep, turn = text.strip().rpartition(" ")
        if not sep or turn not in (ATTACKERS, DEFENDERS):
            raise PositionError(f"expected '<OTN> attackers|defenders', not {text!r}")
        return cls(otn, turn)

#: Why a move is illegal (:meth:`Board.illegal_code`): code -> English wording of its data.
ILLEGAL_TEXT: dict[str, str] = {
    "game_over": "the game is over",
    "no_piece": "there is no piece on {square}",
    "not_your_turn": "it is the {turn}' turn, not the {side}'",
    "did_not_move": "the piece did not move",
    "occupied": "{square} is occupied",
    "diagonal": "pieces move in straight lines along a rank or file, never diagonally",
    "jump": "the piece cannot jump over the piece on {square}",
    "corner_pass": "nobody may pass through the corner {square}",
    "throne_pass": "this piece may not pass through the throne ({square})",
    "corner_stop": "only the king may stop on the corner {square}",
    "throne_return": "the king may not return to the throne",
    "throne_stop": "only the king may stop on the throne ({square})",
    "not_legal": "that move is not legal",
    "off_board": "the move leaves the board",
}


#: A position as the repetition history keys it: attackers, defenders, the king, side to move.
_Key = tuple[int, int, int, str]
#: What :meth:`Board.pop` restores.
_Undo = tuple[int, int, int, str, bool, Termination | None, str | None, list[_Key]]


def other(side: str) -> str:
    """The opponent of ``side``."""
    return DEFENDERS if side == ATTACKERS else ATTACKERS


class Board:
    """A position of a rule set, with the side to move, repetition history since the last
    capture and a move stack for :meth:`pop`."""

    def __init__(
        self, rules: RuleSet, position: str | None = None, turn: str | None = None,
        king_left: bool | None = None,
    ) -> None:
        self.rules = rules
        self.geo: Geometry = geometry_for(rules)
        self.att, self.dfn, self.king = parse_otn(position or rules.start, rules.size)
        geo = self.geo
        for bb, what in ((self.att, "an attacker"), (self.dfn, "a defender")):
            for s in geo.iter_bits(bb & (geo.corner | geo.throne_bit)):
                place = "throne" if s == geo.throne else "corner"
                raise PositionError(
                    f"{what} stands on the {place} {geo.names[s]}: only the king may stop there"
                )
        turn = turn or rules.first
        if turn not in (ATTACKERS, DEFENDERS):
            raise PositionError(f"turn must be attackers or defenders, not {turn!r}")
        self.turn = turn
        if king_left is None:
            king_left = self.king != self.geo.throne
        # Whether the king has left the throne matters only where he may not return to it
        # (``throne_stop`` "king_once"); elsewhere it is always False, so that a position (OTN
        # and the side to move) says everything the rules need, whatever the moves before it.
        self.king_left = king_left and rules.throne_stop == "king_once"
        self.move_stack: list[Move] = []
        self.capture_stack: list[int] = []
        self._undo: list[_Undo] = []
        self._win: Termination | None = None
        self._winner: str | None = None
        self.history: list[_Key] = [self._key()]
        self._mobility: tuple[_Key, bool] | None = None  # (position, has a legal move): outcome()
        if self.king < 0:
            self._win, self._winner = core.KING_CAPTURED, ATTACKERS

    # -- inspection ---------------------------------------------------------------------
    @classmethod
    def from_position(cls, rules: RuleSet, position: Position) -> Board:
        """A board of ``rules`` at ``position`` (no move history)."""
        return cls(rules, position.otn, position.turn)

    def position(self) -> Position:
        """The position (placement and side to move); ``Board.from_position(rules,
        board.position())`` plays on exactly like this board, short of its repetition history."""
        return Position(self.otn(), self.turn)

    def copy(self) -> Board:
        """An independent board in the same state: position, move stack and history (no
        replaying)."""
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

    @property
    def size(self) -> int:
        """Board size (squares per side)."""
        return self.rules.size

    @property
    def occupied(self) -> int:
        """Bitboard of every occupied square."""
        return self.att | self.dfn | (self.geo.bit[self.king] if self.king >= 0 else 0)

    def occupied_names(self) -> frozenset[str]:
        """The occupied squares by name: what a perfect sensor scan of this position reads."""
        return frozenset(self.geo.names[i] for i in self.geo.iter_bits(self.occupied))

    def otn(self) -> str:
        """The position as OTN (without the side to move)."""
        return format_otn(self.att, self.dfn, self.king, self.size)

    def name(self, square: int) -> str:
        """The name of a square index (printing, for the edges)."""
        return self.geo.names[square]

    def occupied_before_moves(self) -> list[int]:
        """The occupied bitboard before each move of the move stack, oldest first."""
        bit = self.geo.bit
        return [att | dfn | (bit[king] if king >= 0 else 0)
                for att, dfn, king, *_ in self._undo]

    def occupied_squares(self) -> frozenset[int]:
        """The occupied squares."""
        return frozenset(self.geo.iter_bits(self.occupied))

    def piece_at(self, square: int) -> str | None:
        """``"t"`` (attacker), ``"T"`` (defender), ``"K"`` (king) or None."""
        if square == self.king:
            return "K"
        if self.att >> square & 1:
            return "t"
        if self.dfn >> square & 1:
            return "T"
        return None

    def side_of(self, square: int) -> str | None:
        """``"attackers"``/``"defenders"`` for the piece on a square, None if it is empty."""
        piece = self.piece_at(square)
        if piece is None:
            return None
        return ATTACKERS if piece == "t" else DEFENDERS

    def pieces(self, side: str) -> list[int]:
        """Squares of every piece of ``side`` (the king included for the defenders)."""
        if side == ATTACKERS:
            return list(self.geo.iter_bits(self.att))
        squares = list(self.geo.iter_bits(self.dfn))
        if self.king >= 0:
            squares.append(self.king)
        return sorted(squares)

    # -- moves --------------------------------------------------------------------------
    def _mover(self, is_king: bool) -> core.Mover:
        return core.Mover(
            self.geo, self.rules, is_king, core.king_may_stop_on_throne(self.rules, self.king_left)
        )

    def destinations(self, square: int) -> list[int]:
        """Legal destination squares of the piece on ``square`` if its side is to move (else
        the squares it could reach were it that side's turn). Empty when the game is over."""
        side = self.side_of(square)
        if side is None or self._win:
            return []
        return core.piece_destinations(self.geo, self.occupied, square,
                                       self._mover(square == self.king))

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move (none once the game is decided by a move)."""
        if self._win:
            return []
        occ = self.occupied
        soldier = self._mover(False)
        out = []
        for s in self.pieces(self.turn):
            mover = self._mover(True) if s == self.king else soldier
            for t in core.piece_destinations(self.geo, occ, s, mover):
                out.append(Move(s, t))
        return out

    def has_legal_move(self) -> bool:
        """Whether the side to move has at least one legal move."""
        occ = self.occupied
        soldier = self._mover(False)
        for s in self.pieces(self.turn):
            mover = self._mover(True) if s == self.king else soldier
            if core.piece_destinations(self.geo, occ, s, mover):
                return True
        return False

    def illegal_code(self, move: Move) -> Illegal | None:
        """None if ``move`` is legal, else why not as data (:class:`Illegal`)."""
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
        """None if ``move`` is legal, else a plain-language reason (English)."""
        why = self.illegal_code(move)
        return None if why is None else why.text(self.size)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal for the side to move."""
        return self.illegal_code(move) is None

    def parse_move(self, text: str) -> tuple[Move, list[int] | None]:
        """Parse ``"g3-e3"`` or ``"g3-e3xe2"``: the move and the listed captures (None if no
        ``x`` part). Raises MoveError for malformed text (not for illegal moves); squares are
        strict (see :mod:`companion.squares`), and so is the text: no whitespace around it."""
        if not isinstance(text, str):
            raise MoveError(f"a move must be text like g3-e3, not {type(text).__name__}")
        parts = text.split("x")
        squares = parts[0].split("-")
        if len(squares) != 2:
            raise MoveError(f"malformed move {text!r}: expected FROM-TO like g3-e3")
        n = self.size
        try:
            frm, to = parse_square(squares[0], n), parse_square(squares[1], n)
            caps = [parse_square(c, n) for c in parts[1:]] if len(parts) > 1 else None
        except ValueError as exc:
            raise MoveError(f"malformed move {text!r}: {exc}") from None
        return Move(frm, to), caps

    def preview(self, move: Move) -> tuple[int, str | None]:
        """``(captured bitboard, result after the move)`` without keeping the move."""
        captured = self.push(move)
        outcome = self.outcome()
        self.pop()
        return captured, outcome.result if outcome else None

    # -- make / undo --------------------------------------------------------------------
    def push(self, move: Move) -> int:
        """Play a legal move (raises MoveError otherwise); returns the captured bitboard
        (the king's bit included when he is taken)."""
        why = self.illegal_code(move)
        if why is not None:
            what = move.text(self.size) if why.code != "off_board" else repr(move)
            raise MoveError(f"illegal move {what}: {why.text(self.size)}")
        return self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> int:
        """Play a move known to be legal (no check)."""
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
        self.capture_stack.append(captured)
        return captured

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self.move_stack:
            raise IndexError("no move to undo")
        (self.att, self.dfn, self.king, self.turn, self.king_left, self._win, self._winner,
         self.history) = self._undo.pop()
        self.capture_stack.pop()
        return self.move_stack.pop()

    # -- result -------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """How the game stands decided by the rules: None while it goes on."""
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

    def __str__(self) -> str:
        rows = []
        for r in range(self.size - 1, -1, -1):
            cells = []
            for f in range(self.size):
                s = r * self.size + f
                p = self.piece_at(s)
                if p is None:
                    p = "+" if (self.geo.corner >> s & 1 or s == self.geo.throne) else "."
                cells.append(p)
            rows.append(f"{r + 1:>2} " + " ".join(cells))
        rows.append("   " + " ".join(file_letter(f) for f in range(self.size)))
        return "\n".join(rows)
