"""The rules core: pure, no I/O. One Board type, rule sets as values, OTN positions."""

from .board import Board, Illegal, Move, MoveError, Position, other
from .game import Game, PlayedMove
from .hnefatafl_org import SERVER_RULESETS
from .otn import PositionError, format_otn, parse_otn
from .outcome import REASON_TEXT, Outcome, Termination
from .perft import perft
from .ruleset import ATTACKERS, DEFENDERS, PRESETS, RuleSet, get_variant

# the hnefatafl.org server's rule sets are presets too (its online games are stored under them)
PRESETS.update(SERVER_RULESETS)

__all__ = [
    "ATTACKERS", "DEFENDERS", "PRESETS", "Board", "Game", "Illegal", "Move", "MoveError",
    "Outcome", "PlayedMove", "Position", "PositionError", "REASON_TEXT", "RuleSet",
    "Termination", "format_otn", "get_variant", "other", "parse_otn", "perft",
]
