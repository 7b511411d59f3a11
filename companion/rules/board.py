"""The Board: one tafl position with its side to move, legal moves, make/undo and outcome."""

from __future__ import annotations

from dataclasses import dataclass

from ..squares import file_letter
from . import core
from .geometry import Geometry, geometry_for
from .otn import PositionError, format_otn, parse_otn
from .outcome import REASON_TEXT, Outcome, Termination  # noqa: F401  (re-exported)
from .ruleset import ATTACKERS, DEFENDERS, RuleSet


class MoveError(ValueError):
    """A move that is malformed or not legal in the position; the message says why."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move from square index ``frm`` to square index ``to``."""

    frm: int
    to: int




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
}


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
        self.king_left = king_left
        self.move_stack: list[Move] = []
        self.capture_stack: list[int] = []
        self._undo: list[tuple] = []
        self._win: Termination | None = None
        self._winner: str | None = None
        self.history: list[tuple] = [self._key()]
        if self.king < 0:
            self._win, self._winner = core.KING_CAPTURED, ATTACKERS

    # -- inspection ---------------------------------------------------------------------
    def _key(self) -> tuple:
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

    def square(self, name: str | int) -> int:
        """Square index of a name (ints pass through, range-checked)."""
        if isinstance(name, int):
            if not 0 <= name < self.geo.count:
                raise ValueError(f"square index {name} is off the board")
            return name
        return self.geo.square(name)

    def name(self, square: int) -> str:
        """Name of a square index."""
        return self.geo.names[square]

    def piece_at(self, square: str | int) -> str | None:
        """``"t"`` (attacker), ``"T"`` (defender), ``"K"`` (king) or None."""
        s = self.square(square)
        if s == self.king:
            return "K"
        if self.att >> s & 1:
            return "t"
        if self.dfn >> s & 1:
            return "T"
        return None

    def side_of(self, square: str | int) -> str | None:
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

    def destinations(self, square: str | int) -> list[int]:
        """Legal destination squares of the piece on ``square`` if its side is to move (else
        the squares it could reach were it that side's turn). Empty when the game is over."""
        s = self.square(square)
        side = self.side_of(s)
        if side is None or self._win:
            return []
        return core.piece_destinations(self.geo, self.occupied, s, self._mover(s == self.king))

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

    def illegal_code(self, move: Move) -> tuple[str, dict[str, str]] | None:
        """None if ``move`` is legal, else why not as data: a stable code (a key of
        :data:`ILLEGAL_TEXT`) and the squares/sides its wording needs."""
        if self._win:
            return "game_over", {}
        geo, frm, to = self.geo, move.frm, move.to
        side = self.side_of(frm)
        if side is None:
            return "no_piece", {"square": self.name(frm)}
        if side != self.turn:
            return "not_your_turn", {"turn": self.turn, "side": side}
        if frm == to:
            return "did_not_move", {}
        if self.occupied >> to & 1:
            return "occupied", {"square": self.name(to)}
        ff, fr, tf, tr = frm % geo.n, frm // geo.n, to % geo.n, to // geo.n
        if ff != tf and fr != tr:
            return "diagonal", {}
        if to in self.destinations(frm):
            return None
        is_king = frm == self.king
        for ray in geo.rays[frm]:
            if to not in ray:
                continue
            for s in ray[: ray.index(to)]:
                if self.occupied >> s & 1:
                    return "jump", {"square": self.name(s)}
                if geo.corner >> s & 1:
                    return "corner_pass", {"square": self.name(s)}
                if s == geo.throne:
                    return "throne_pass", {"square": self.name(s)}
        if geo.corner >> to & 1 and not is_king:
            return "corner_stop", {"square": self.name(to)}
        if to == geo.throne:
            if is_king:
                return "throne_return", {"square": self.name(to)}
            return "throne_stop", {"square": self.name(to)}
        return "not_legal", {}

    def illegal_reason(self, move: Move) -> str | None:
        """None if ``move`` is legal, else a plain-language reason (English)."""
        why = self.illegal_code(move)
        return None if why is None else ILLEGAL_TEXT[why[0]].format(**why[1])

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal for the side to move."""
        return self.illegal_reason(move) is None

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
        try:
            frm, to = self.geo.square(squares[0]), self.geo.square(squares[1])
            caps = [self.geo.square(c) for c in parts[1:]] if len(parts) > 1 else None
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
        reason = self.illegal_reason(move)
        if reason:
            raise MoveError(f"illegal move {self.name(move.frm)}-{self.name(move.to)}: {reason}")
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
            if frm == geo.throne:
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
        if not self.has_legal_move():
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
