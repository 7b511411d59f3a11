"""The engine as one object: a rule set, a level and a seed; choose a move, or analyse.

This is the in-process API (used by the OTEP engine command, the benchmarks and tests). The
daemon never searches in its own process: it drives ``tafl-companion engine`` through
:mod:`companion.engine.otep_host`.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from companion.rules import Board, RuleSet

from .evaluate import Weights
from .levels import DEFAULT_LEVEL, Level, get_level
from .native import NativeSearcher
from .network import Network, NetworkError, shipped_network
from .position import Position, move_text
from .search import MATE_BOUND, WIN, Info, Limits, Searcher
from .timing import Budget


@dataclass
class Choice:
    """A chosen move: ``move`` (``"g3-e3"``), its ``score`` for the side to move (hundredths of a
    soldier; ``mate`` plies to a forced result when there is one, negative when lost), the
    principal variation and the search figures."""

    move: str
    score: int
    mate: int | None
    depth: int
    nodes: int
    seconds: float
    pv: list[str]


log = logging.getLogger(__name__)
SHIPPED: Literal["shipped"] = "shipped"


def shipped_or_none(rules: RuleSet) -> Network | None:
    """The network shipped for ``rules``; None where there is none, or (logged) where its file
    cannot be used: the engine then plays its hand-made evaluation rather than not at all."""
    try:
        return shipped_network(rules.id, rules.size ** 2)
    except NetworkError as exc:
        log.warning("the learned network is not used: %s", exc)
        return None


def make_searcher(
    rules: RuleSet, weights: Weights | None = None, tt_entries: int = 250_000,
    native: bool | None = None, network: Network | Literal["shipped"] | None = SHIPPED,
) -> Searcher | NativeSearcher:
    """The native core's searcher where it is available and plays ``rules`` (``native=None``:
    whenever it can; ``True``: it must, ValueError otherwise), else the pure-Python one. Both
    play the same moves at a fixed depth, but for the learned network (``network``: the one
    shipped for the rule set, where there is one, by default), which only the native core
    plays; the native one is 20-40 times faster."""
    if native is not False:
        from . import native as nat

        why = nat.supported(rules, weights) or (None if nat.available()[0]
                                                 else nat.available()[1])
        if why is None:  # a compact table: twice the entries in less memory than Python's
            net = shipped_or_none(rules) if network == SHIPPED else network
            return nat.NativeSearcher(rules, weights, tt_entries=tt_entries * 2,
                                      network=net if isinstance(net, Network) else None)
        if native:
            raise ValueError(f"the native core cannot play {rules.id}: {why}")
    return Searcher(rules, weights, tt_entries=tt_entries)


def mate_plies(score: int) -> int | None:
    """Plies to a forced end (positive: a win for the side to move), None otherwise."""
    if score >= MATE_BOUND:
        return WIN - score
    if score <= -MATE_BOUND:
        return -(WIN + score)
    return None


class Engine:
    """A computer player of one rule set at one level."""

    def __init__(
        self, rules: RuleSet, level: int | Level = DEFAULT_LEVEL, seed: int = 0,
        weights: Weights | None = None, tt_entries: int = 250_000, native: bool | None = None,
        network: Network | Literal["shipped"] | None = SHIPPED,
    ) -> None:
        self.rules = rules
        self.level = level if isinstance(level, Level) else get_level(level)
        self.seed = seed
        self.searcher = make_searcher(rules, weights, tt_entries, native, network)

    def new_game(self) -> None:
        """Forget the previous game (transposition table, history)."""
        self.searcher.new_game()

    def limits(
        self, seconds: float | None, stop: threading.Event | None, budget: Budget | None = None
    ) -> Limits:
        """The level's limits within a time budget: ``budget`` (a clock's or a time per
        move's), or ``seconds`` as a hard limit. A level that stops at a depth or a node
        count keeps its limit and its time cap; the time-based levels (9, 10) think for the
        budget given."""
        lv = self.level
        if budget is None and seconds is not None:
            budget = Budget(seconds, seconds)
        if budget is None:
            budget = Budget(lv.seconds, lv.seconds)
        elif lv.nodes is not None or lv.depth is not None:
            budget = budget.capped(lv.seconds)
        hard = max(budget.hard, 0.02)
        soft = budget.soft if budget.soft < hard else None
        return Limits(depth=lv.depth, nodes=lv.nodes, seconds=hard, stop=stop, soft=soft)

    def choose(
        self, board: Board | Position, seconds: float | None = None,
        stop: threading.Event | None = None, on_info: Callable[[Info], None] | None = None,
        budget: Budget | None = None,
    ) -> Choice:
        """The level's move in ``board`` (which must not be decided) within ``budget`` (or
        ``seconds``, a hard limit; see :meth:`limits`); ``stop`` ends the search at once."""
        pos = board if isinstance(board, Position) else Position.from_board(board)
        if pos.outcome() is not None:
            raise ValueError("the game is over: there is no move to choose")
        lv = self.level
        rng = random.Random(self.seed * 1_000_003 ^ pos.key)
        res = self.searcher.search(
            pos, self.limits(seconds, stop, budget), on_info=on_info, rng=rng, noise=lv.noise
        )
        move, score = res.move, res.score
        if lv.blunder and res.root_scores and rng.random() < lv.blunder:
            safe = [m for m, s in res.root_scores.items() if s > -MATE_BOUND] or list(
                res.root_scores)
            move = rng.choice(sorted(safe))
            score = res.root_scores[move]
        assert move is not None
        geo = pos.geo
        pv = [move_text(geo, m) for m in (res.pv if res.pv and res.pv[0] == move else [move])]
        return Choice(move_text(geo, move), score, mate_plies(score), res.depth, res.nodes,
                      res.seconds, pv)

    def analyze(
        self, board: Board | Position, count: int, seconds: float,
        stop: threading.Event | None = None, on_info: Callable[[Info], None] | None = None,
    ) -> list[tuple[list[str], int]]:
        """The ``count`` best moves (at full strength, for ``seconds``), each with its line and
        score for the side to move, best first."""
        pos = board if isinstance(board, Position) else Position.from_board(board)
        if pos.outcome() is not None:
            return []
        limits = Limits(seconds=max(seconds, 0.02), stop=stop, multipv=max(1, count))
        res = self.searcher.search(pos, limits, on_info=on_info)
        geo = pos.geo
        ranked = sorted(res.root_scores.items(), key=lambda kv: -kv[1])[: max(1, count)]
        if not ranked and res.move is not None:
            ranked = [(res.move, res.score)]
        out = []
        for m, s in ranked:
            line = res.pv if res.pv and res.pv[0] == m else self.searcher.principal_variation(
                pos, m)
            out.append(([move_text(geo, x) for x in line], s))
        return out
