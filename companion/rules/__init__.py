"""The rules core: pure, no I/O. One Board type, rule sets as values, OTN positions."""

from .board import Board, Move, MoveError, Outcome, other
from .otn import PositionError, format_otn, parse_otn
from .perft import perft
from .ruleset import ATTACKERS, DEFENDERS, PRESETS, RuleSet, get_variant

__all__ = [
    "ATTACKERS", "DEFENDERS", "PRESETS", "Board", "Move", "MoveError", "Outcome",
    "PositionError", "RuleSet", "format_otn", "get_variant", "other", "parse_otn", "perft",
]
