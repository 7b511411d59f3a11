"""The computer opponent: a pure-Python tafl engine, OTEP both ways, and game analysis.

The daemon never searches in its own process. It runs an OTEP engine as a child process — the
built-in one is ``tafl-companion engine`` (:func:`builtin_engine_command`), an external one any
command — and drives it through :class:`OtepHost`, whose calls never block. See docs/engine.md.
"""

from __future__ import annotations

import sys

from .analysis import GameReview, PlyReview, analyse_game
from .levels import DEFAULT_LEVEL, LEVELS, Level, get_level
from .otep_host import AnalysisLine, EngineClock, EngineMove, OtepHost, Thinking
from .otep_process import EngineError
from .otr import RulesError, otr_for, parse_otr
from .player import Choice, Engine


def builtin_engine_command(
    level: int = DEFAULT_LEVEL, seed: int = 0, seconds: float | None = None
) -> list[str]:
    """The command line of the built-in engine at ``level`` (1-10), for :class:`OtepHost`.
    ``seconds`` is a time per move (default: the level's)."""
    get_level(level)
    argv = [sys.executable, "-m", "companion.engine", "--level", str(level), "--seed",
            str(seed)]
    if seconds is not None:
        argv += ["--time", f"{seconds:g}"]
    return argv


__all__ = [
    "DEFAULT_LEVEL", "LEVELS", "AnalysisLine", "Choice", "Engine", "EngineClock", "EngineError",
    "EngineMove",
    "GameReview", "Level", "OtepHost", "PlyReview", "Thinking", "RulesError", "analyse_game",
    "builtin_engine_command", "get_level", "otr_for", "parse_otr",
]
