"""Finding puzzles in positions of real games, verified by the engine (``tools/build_puzzles.py``
runs it over the corpus; docs/coach.md says how).

For a position, the side to move is the solver:

1. **probe**: an ordinary search (the engine's pruning on) under a node budget; a score of a
   forced win in ``k`` plies with ``(k + 1) // 2`` moves of the solver at most
   :data:`MAX_MOVES` makes it a candidate;
2. **verify**: at every move of the solver, a search with every pruning off (no null move, no
   late-move reductions, no frontier pruning: a full-width alpha-beta with its quiescence) to the
   depth of the win left, every root move scored exactly (multi-PV). The solver's move must win
   in the moves left, and (but for his last move, where any move that reaches the goal is taken)
   be the only move that does (a slower win does not reach the goal in the puzzle's moves); the
   defence is the engine's best answer (the longest resistance). For every wrong move the
   engine's answer is kept: the refutation the board shows when that move is played;
3. the line is played with the rules core, which must end the game with the solver's win
   (escape, capture of the king, or another win);
4. **difficulty**: the solver's moves, the engine's nodes needed to verify the first move, and
   the plausible alternatives (wrong first moves the engine scores within
   :data:`PLAUSIBLE` of the best wrong one) give the starting rating (:func:`rating_of`).

A verification over its node budget drops the candidate (it is counted).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from companion.engine.budget import Limits
from companion.engine.deepening import Result
from companion.engine.position import Position, move_text, parse_move
from companion.engine.scores import MATE_BOUND, WIN
from companion.rules.game import Game
from companion.rules.ruleset import RuleSet

from .puzzles import Puzzle, goal_of, puzzle_id

MAX_MOVES = 5
#: The probe's node budget (an ordinary search).
PROBE_NODES = 15_000
#: The verification's node budget per move of the solver (the pruning off).
VERIFY_NODES = 4_000_000
#: A wrong first move this close to the best wrong one (hundredths of a soldier) is plausible.
PLAUSIBLE = 150

Search = Callable[[Position, Limits], Result]


class Engine:
    """The engine's search for one rule set: the native core where it has one, else the
    pure-Python searcher; ``exact`` turns every pruning off."""

    def __init__(self, rules: RuleSet, exact: bool) -> None:
        from companion.engine import native
        from companion.engine.search import Searcher

        self.rules = rules
        self.searcher: Searcher | native.NativeSearcher
        if native.available()[0] and native.supported(rules) is None:
            self.searcher = native.NativeSearcher(rules, tt_entries=1_000_000)
        else:
            self.searcher = Searcher(rules)
        if exact:
            s = self.searcher
            s.null_move = s.lmr = False
            s.lmp = s.futility = ()
        self.nodes = 0

    def search(self, pos: Position, limits: Limits) -> Result:
        self.searcher.new_game()
        result = self.searcher.search(pos, limits)
        self.nodes += result.nodes
        return result

    def answer(self, pos: Position, first: int) -> int | None:
        """The engine's answer to ``first`` from the last search's table, if it kept one."""
        pv = self.searcher.principal_variation(pos, first)
        return pv[1] if len(pv) > 1 else None


@dataclass
class Figures:
    """What a run of the maker counted."""

    scanned: int = 0
    candidates: int = 0
    kept: int = 0
    not_unique: int = 0
    over_budget: int = 0
    refused: int = 0
    nodes: int = 0
    by_moves: dict[int, int] = field(default_factory=dict)


def plies_to_win(score: int) -> int | None:
    """The plies of a forced win for the side to move (None for any other score)."""
    return WIN - score if score >= MATE_BOUND else None


def rating_of(moves: int, nodes: int, plausible: int) -> int:
    """The starting rating: 800 for a win in one, 250 more for each further move, more the
    more nodes the engine needed, and more for each plausible wrong move (at most 10)."""
    r = 800 + 250 * (moves - 1) + 40 * math.log2(1 + nodes / 2000) + 20 * min(plausible, 10)
    return int(round(min(max(r, 600), 2800) / 10) * 10)


class Maker:
    """Examines positions of one rule set (see the module docstring)."""

    def __init__(self, rules: RuleSet, variant: str, max_moves: int = MAX_MOVES,
                 probe_nodes: int = PROBE_NODES, verify_nodes: int = VERIFY_NODES) -> None:
        self.rules = rules
        self.variant = variant
        self.max_moves = max_moves
        self.probe_nodes = probe_nodes
        self.verify_nodes = verify_nodes
        self.probe = Engine(rules, exact=False)
        self.exact = Engine(rules, exact=True)
        self.figures = Figures()

    def examine(self, game: Game, source: str = "") -> Puzzle | None:
        """The puzzle in ``game``'s position (the side to move solves it), or None."""
        f = self.figures
        f.scanned += 1
        if game.is_over():
            return None
        pos = Position.from_board(game.board)
        probe = self.probe.search(pos, Limits(depth=2 * self.max_moves - 1,
                                              nodes=self.probe_nodes))
        f.nodes += probe.nodes
        k = plies_to_win(probe.score)
        if k is None or (k + 1) // 2 > self.max_moves:
            return None
        f.candidates += 1
        found = self._verify(game, (k + 1) // 2)
        if found is None:
            return None
        f.kept += 1
        f.by_moves[found.moves] = f.by_moves.get(found.moves, 0) + 1
        return replace(found, source=source)

    def _verify(self, start: Game, moves: int) -> Puzzle | None:
        f = self.figures
        game = start.copy()
        geo = game.board.geo
        line: list[str] = []
        refutations: list[dict[str, list[str]]] = []
        first_nodes, plausible = 0, 0
        for i in range(moves):
            left = moves - i
            depth = 2 * left - 1
            pos = Position.from_board(game.board)
            before = self.exact.nodes
            r = self.exact.search(pos, Limits(depth=depth, nodes=self.verify_nodes, multipv=2))
            f.nodes += r.nodes
            if r.depth < depth or r.move is None:
                f.over_budget += 1
                return None
            k = plies_to_win(r.score)
            if k is None or k > depth:
                f.refused += 1  # the full-width search does not confirm the probe's win
                return None
            # the moves that reach the goal in the moves left (a slower win does not)
            wins = [m for m, s in r.root_scores.items() if s >= WIN - depth]
            if len(wins) > 1 and (left > 1 or i == 0):
                f.not_unique += 1
                return None
            best = r.move
            wrong = {m: s for m, s in r.root_scores.items() if m not in wins}
            if i == 0:
                first_nodes = self.exact.nodes - before
                if wrong:
                    top = max(wrong.values())
                    plausible = sum(1 for s in wrong.values() if s >= top - PLAUSIBLE)
            refutations.append(self._refute(pos, wrong))
            game.play_text(move_text(geo, best))
            line.append(game.played[-1].text)
            if game.is_over():
                break
            pos = Position.from_board(game.board)
            d = self.exact.search(pos, Limits(depth=2 * (left - 1), nodes=self.verify_nodes))
            f.nodes += d.nodes
            if d.move is None:
                f.refused += 1
                return None
            game.play_text(move_text(geo, d.move))
            line.append(game.played[-1].text)
        goal = goal_of(game)
        if goal is None or game.result != start.turn:
            f.refused += 1
            return None
        played = (len(line) + 1) // 2
        position = start.board.otn()
        side = str(start.turn)
        return Puzzle(id=puzzle_id(self.variant, position, side), variant=self.variant,
                      position=position, side=side, goal=goal, moves=played,
                      rating=rating_of(played, first_nodes, plausible), line=tuple(line),
                      refutations=tuple(refutations), nodes=first_nodes,
                      alternatives=plausible)

    def _refute(self, pos: Position, wrong: dict[int, int]) -> dict[str, list[str]]:
        """The engine's answer to each wrong move (from the verification's table, or a short
        search of its own), grouped by answer."""
        geo = pos.geo
        out: dict[str, list[str]] = {}
        missing = []
        for m in wrong:
            reply = self.exact.answer(pos, m)
            if reply is None:
                missing.append(m)
            else:
                out.setdefault(move_text(geo, reply), []).append(move_text(geo, m))
        for m in missing:
            pos.make(m)
            if pos.result is None:
                r = self.probe.search(pos, Limits(depth=3, nodes=20_000))
                self.figures.nodes += r.nodes
                if r.move is not None:
                    out.setdefault(move_text(geo, r.move), []).append(move_text(geo, m))
            pos.unmake()
        for moves in out.values():
            moves.sort()
        return out


def check_line(puzzle: Puzzle) -> str | None:
    """What is wrong with ``puzzle``'s solution by the rules core (None: its line is legal and
    ends with the solver reaching the goal)."""
    game = puzzle.game()
    for i, text in enumerate(puzzle.line):
        try:
            game.play_text(text)
        except ValueError as exc:
            return f"move {i + 1} ({text}): {exc}"
        if game.is_over() and i != len(puzzle.line) - 1:
            return f"the game ends at move {i + 1}, before the line does"
    if game.result != puzzle.side:
        return f"the line ends with {game.result}, not the solver's win"
    if goal_of(game) != puzzle.goal:
        return f"the line's end is {goal_of(game)}, not {puzzle.goal}"
    if (len(puzzle.line) + 1) // 2 != puzzle.moves:
        return f"{puzzle.moves} moves said, {(len(puzzle.line) + 1) // 2} in the line"
    return None


__all__ = ["Engine", "Figures", "Maker", "check_line", "parse_move", "plies_to_win",
           "rating_of"]
