"""What the host and an OTEP engine say to each other, as values: the clock sent with a request
(:class:`EngineClock`), the answers read back and checked against the rules
(:func:`read_move` into an :class:`EngineMove`, :func:`read_analysis` into
:class:`AnalysisLine` s) and the engine's thinking (:func:`parse_status`). An answer that cannot
be read, or names an illegal move, raises :class:`~companion.engine.otep_process.EngineError`
(``"garbage"``, ``"illegal"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from companion.rules import Board, Move, MoveError
from companion.rules.ruleset import ATTACKERS

from .notation import simple_move
from .otep_process import EngineError


@dataclass
class EngineMove:
    """An engine's answer to ``play``: ``move`` (``"g3-e3"``, checked against the rules) with
    the ``captures`` it makes and the ``result`` after it (``ongoing``/``attackers``/
    ``defenders``/``draw``), or ``resigned`` (then ``move`` is None). ``score`` (hundredths of a
    soldier) / ``mate`` (plies, negative: losing) are the engine's last reported evaluation for its
    own side, when it reports one; ``seconds`` is how long it took."""

    move: str | None
    captures: list[str] = field(default_factory=list)
    result: str = "ongoing"
    resigned: bool = False
    message: str = ""
    score: int | None = None
    mate: int | None = None
    depth: int | None = None
    pv: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class EngineClock:
    """A game clock as OTEP's ``clock`` carries it: seconds left per side — main time, or
    (``*_overtime``) what is left of the current overtime period of ``period`` seconds — and
    the overtime periods left per side."""

    attackers: float
    defenders: float
    attackers_overtime: bool = False
    defenders_overtime: bool = False
    period: float = 0.0
    attackers_periods: int = 0
    defenders_periods: int = 0

    def line(self) -> str:
        """The OTEP ``clock`` command."""
        def ms(seconds: float, over: bool) -> str:
            return f"{max(int(seconds * 1000), 0)}{'*' if over else ''}"

        return (f"clock {ms(self.attackers, self.attackers_overtime)} "
                f"{ms(self.defenders, self.defenders_overtime)} {self.period:g} "
                f"{self.attackers_periods} {self.defenders_periods}")

    def available(self, side: str) -> float:
        """The most ``side`` can spend on its move: what is left, and a period after main time."""
        att = side == ATTACKERS
        left = self.attackers if att else self.defenders
        over = self.attackers_overtime if att else self.defenders_overtime
        periods = self.attackers_periods if att else self.defenders_periods
        return max(left, 0.0) + (self.period if not over and periods > 0 else 0.0)


@dataclass
class AnalysisLine:
    """One line of an ``analysis`` answer: the moves (the first checked legal) and the
    engine's evaluation in soldiers for the side to move (forced results ±1000 minus plies)."""

    moves: list[str]
    evaluation: float


class Thinking(TypedDict, total=False):
    """What an engine's ``status depth ...`` line says: depth, score (``cp`` in hundredths of
    a soldier, or ``mate`` in plies, negative when losing), nodes, seconds and the line."""

    depth: int
    cp: int
    mate: int
    nodes: int
    seconds: float
    pv: list[str]


def parse_status(text: str) -> Thinking | None:
    """``{"depth", "cp" or "mate", "nodes", "seconds", "pv"}`` from this project's status lines
    (``depth 7 score cp 125 nodes 1234 time 0.50 pv a1-a2 ...``); None for other texts."""
    words = text.split()
    if len(words) < 4 or words[0] != "depth" or words[2] != "score":
        return None
    out: Thinking = {}
    try:
        out["depth"] = int(words[1])
        i = 3
        kind, value = words[i], int(words[i + 1])
        if kind == "cp":
            out["cp"] = value
        else:
            out["mate"] = value
        i += 2
        while i < len(words):
            key = words[i]
            if key == "pv":
                out["pv"] = words[i + 1:]
                break
            if key == "nodes":
                out["nodes"] = int(words[i + 1])
            elif key == "time":
                out["seconds"] = float(words[i + 1])
            i += 2
    except (ValueError, IndexError):
        return None
    return out


def read_move(name: str, board: Board, text: str) -> Move:
    """The move of the engine ``name``'s ``move <text>`` answer in ``board``, checked legal."""
    words = text.split()
    if len(words) != 1:
        raise EngineError("garbage", f"engine {name!r} sent an unreadable move: {text!r}")
    try:
        move, _ = board.parse_move(simple_move(words[0]))
    except MoveError:
        raise EngineError(
            "garbage", f"engine {name!r} sent an unreadable move: {words[0]!r}") from None
    reason = board.illegal_reason(move)
    if reason:
        raise EngineError(
            "illegal", f"engine {name!r} played an illegal move {words[0]}: {reason}")
    return move


def read_analysis(name: str, board: Board, text: str) -> list[AnalysisLine]:
    """The lines of the engine ``name``'s ``analysis <text>`` answer in ``board``, the first
    move of each checked legal."""
    words = text.split()
    lines: list[AnalysisLine] = []
    try:
        count = int(words[0])
        pairs = words[1:]
        if len(pairs) % 2 or count < 0:
            raise ValueError("odd number of fields")
        for i in range(0, len(pairs), 2):
            moves = [m for m in pairs[i].split("|") if m]
            value = float(pairs[i + 1])
            if not moves:
                raise ValueError("an empty line")
            move, _ = board.parse_move(simple_move(moves[0]))
            reason = board.illegal_reason(move)
            if reason:
                raise EngineError(
                    "illegal", f"engine {name!r} analysed an illegal move {moves[0]}: {reason}")
            lines.append(AnalysisLine([simple_move(m) for m in moves], value))
    except (ValueError, IndexError, MoveError) as exc:
        raise EngineError(
            "garbage", f"engine {name!r} sent an unreadable analysis ({exc}): "
            f"{text[:120]!r}") from None
    return lines
