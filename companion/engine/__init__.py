"""The computer opponent: a pure-Python tafl engine, OTEP both ways, and game analysis.

The daemon never searches in its own process. It runs an OTEP engine as a child process — the
built-in one is ``tafl-companion engine`` (:func:`builtin_engine_command`), an external one any
command — and drives it through :class:`OtepHost`, whose calls never block. See docs/engine.md.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from .levels import DEFAULT_LEVEL, LEVELS, Level, get_level

if TYPE_CHECKING:
    from .analysis import GameReview, PlyReview, analyse_game
    from .otep_host import AnalysisLine, EngineClock, EngineMove, OtepHost, Thinking
    from .otep_process import EngineError
    from .otr import RulesError, otr_for, parse_otr
    from .player import Choice, Engine

#: Where each name lives: imported when first used (PEP 562), so that the engine process
#: (``python -m companion.engine``, ``tafl-companion engine``) loads neither the host side
#: (otep_host, otep_process) nor the game analysis it does not use.
_LAZY = {
    "GameReview": "analysis", "PlyReview": "analysis", "analyse_game": "analysis",
    "AnalysisLine": "otep_host", "EngineClock": "otep_host", "EngineMove": "otep_host",
    "OtepHost": "otep_host", "Thinking": "otep_host", "EngineError": "otep_process",
    "RulesError": "otr", "otr_for": "otr", "parse_otr": "otr", "Choice": "player",
    "Engine": "player",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
