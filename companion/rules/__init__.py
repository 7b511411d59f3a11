"""The rules of tafl as a library, in the manner of python-chess: pure, standard library only.

One :class:`Board` type (a position with its side to move, legal moves, make/undo and the
outcome), rule sets as values (:class:`RuleSet`, the named :data:`PRESETS`), moves and squares
as ints at the core and as text at the edges (:class:`Move`, :class:`SquareSet`), OpenTafl
notation for positions, and :class:`Game` for a game's record. Nothing here reads or writes
files: the record formats (:mod:`.records`, :mod:`.otg`) take and give text. docs/rules.md is
the reference.

>>> from companion.rules import Board, Move, PRESETS
>>> board = Board(PRESETS["brandubh"])
>>> board
Board('brandubh', '/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/', 'attackers')
>>> board == board.copy()
True
>>> move = board.legal_moves()[0]
>>> str(move), board.push(move)
('d1-e1', SquareSet.from_squares([], 7))
>>> Move.parse("d6-c6", 7) in board.legal_moves()     # an attacker: the defenders' turn now
False
>>> Move.parse("d5-c5", board)                        # with a board: checked there
Move.parse('d5-c5', 7)
"""

from .board import Board, Illegal, Move, MoveError, Position, other
from .game import Game, PlayedMove
from .move import SquareSet
from .otn import PositionError, format_otn, parse_otn
from .outcome import REASON_TEXT, Outcome, Termination
from .perft import perft
from .ruleset import ATTACKERS, DEFENDERS, PRESETS, RuleSet, Side, get_variant

__all__ = [
    "ATTACKERS", "DEFENDERS", "PRESETS", "Board", "Game", "Illegal", "Move", "MoveError",
    "Outcome", "PlayedMove", "Position", "PositionError", "REASON_TEXT", "RuleSet", "Side",
    "SquareSet", "Termination", "format_otn", "get_variant", "other", "parse_otn", "perft",
]
