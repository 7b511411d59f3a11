"""A puzzle played at the board (docs/coach.md): started as a game from the puzzle's position
(the tracker guides the set-up piece by piece, as for any position of one's own), then judged
move by move by the coach's :class:`~companion.coach.puzzle_attempt.Attempt`; the computer's
answers (the solution's defence, or the refutation of a wrong move) become the move to make at
the board, shown with the LEDs. A finished attempt is stored with both ratings (Elo,
:mod:`companion.coach.puzzle_rating`).

After a restart the puzzle goes on: a game played against the puzzle (its other side's player
is :data:`OPPONENT`) from a puzzle's position is the attempt again, its moves judged afresh (an
attempt already stored is not stored twice).

The part owns ``ctx.puzzle`` (what the state shows) and nothing else of the context's.
"""

from __future__ import annotations

import logging
from typing import TypedDict

from companion.coach import puzzle_rating
from companion.coach.puzzle_attempt import Attempt, Verdict
from companion.coach.puzzles import (
    DEFAULT_RATING,
    Puzzle,
    PuzzleCatalogue,
    PuzzlePlayer,
    find_shipped,
    puzzle_id,
    shipped,
)
from companion.rules import PRESETS
from companion.rules.board import Position
from companion.session import state
from companion.session.actors import Action, Actor, ControlError, check
from companion.session.context import Context
from companion.session.decisions import Decisions
from companion.session.game_moves import move_of
from companion.session.game_setup import GameSetup
from companion.session.games import Games
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.settings import GameSettings
from companion.session.state_document import PuzzleLast, PuzzleState
from companion.session.storage import STORE_ERRORS
from companion.store import StoreReader
from companion.store_rows import PuzzleAttemptRow

log = logging.getLogger("companion.session")
OPPONENT = "Puzzle"
SIDES = ("attackers", "defenders")


class PuzzleStarted(TypedDict):
    game: int
    puzzle: str


def find(reader: StoreReader, pid: str) -> Puzzle | None:
    """A shipped puzzle, or one read from a file and stored."""
    found = find_shipped(pid)
    if found is not None:
        return found
    for stored in reader.stored_puzzles():
        if stored.id == pid:
            return Puzzle.from_json(stored.data)
    return None


def catalogue(reader: StoreReader, variant: str) -> PuzzleCatalogue:
    """The puzzles of ``variant`` (shipped, then stored), easiest first, with the ratings the
    attempts gave them, and the player's rating and progress (any thread: ``reader`` is
    read-only)."""
    progress = reader.puzzle_progress()
    puzzles = list(shipped(variant)) + [Puzzle.from_json(s.data)
                                        for s in reader.stored_puzzles(variant)]
    listed = []
    for p in puzzles:
        standing = progress.puzzles.get(p.id)
        listed.append(p.listing(round(standing.rating) if standing else None))
    listed.sort(key=lambda x: (x["rating"], x["id"]))
    player: PuzzlePlayer = {"rating": progress.rating, "attempts": progress.attempts,
                            "solved": progress.solved}
    return {"variant": variant, "puzzles": listed, "player": player}


class PuzzleRun:
    """The puzzle being played (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions, games: Games,
                 setup: GameSetup) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self.games = games
        self.setup = setup
        self.attempt: Attempt | None = None
        self.gid = 0
        self.started = 0.0
        self.recorded = False
        self.ratings: tuple[float, float] | None = None  # the player's and the puzzle's, after
        self.looked = -1  # the game last looked at for a puzzle to resume
        self.quiet = False  # the moves judged again after a restart are not announced again

    def start(self, actor: Actor, pid: object) -> PuzzleStarted:
        """Start puzzle ``pid`` (owner): a new game from its position, the solver at the
        board, the puzzle's answers as moves to make."""
        check(actor, Action.NEW_GAME)
        ctx = self.ctx
        if not isinstance(pid, str) or not pid or len(pid) > 80:
            raise ControlError(400, "bad_request", '"id" must be a puzzle\'s id')
        puzzle = find(ctx.store, pid)
        if puzzle is None or puzzle.variant not in PRESETS:
            raise ControlError(404, "not_found", f"no puzzle {pid!r}")
        rules = PRESETS[puzzle.variant]
        if ctx.caps.clickable is None and rules.size != ctx.board.size:
            raise ControlError(409, "board_size", f"{rules.name} is played on {rules.size}x"
                                                  f"{rules.size}; this board is "
                                                  f"{ctx.board.size}x{ctx.board.size}")
        self.setup.ready()
        solver = ctx.players[puzzle.side]
        name = solver.name if solver.kind is PlayerKind.BOARD and solver.name != OPPONENT \
            else "Player 1"
        other = SIDES[1 - SIDES.index(puzzle.side)]
        players = {puzzle.side: PlayerSpec(PlayerKind.BOARD, name),
                   other: PlayerSpec(PlayerKind.BOARD, OPPONENT)}
        self.games.start(GameSettings.make(puzzle.variant, {}), None, players, None, actor,
                         start=Position(puzzle.position, puzzle.side), place=False)
        self.attempt = Attempt(puzzle)
        self.gid, self.started, self.recorded, self.ratings = ctx.gid, ctx.wall(), False, None
        ctx.announcer.note("puzzle", actor.label, puzzle=puzzle.id, status="started")
        log.info("game %d: puzzle %s (%s, %s in %d)", ctx.gid, puzzle.id, puzzle.side,
                 puzzle.goal, puzzle.moves)
        self._show()
        state.publish(ctx, force=True)
        return {"game": ctx.gid, "puzzle": puzzle.id}

    def step(self) -> None:
        """Judge the moves made since the last step; make the answer the move to make (loop
        thread, every step)."""
        ctx = self.ctx
        if self.attempt is not None and ctx.gid != self.gid:  # another game: the puzzle is left
            self.attempt = None
            self._show()
        if self.attempt is None and self.looked != ctx.gid:
            self.looked = ctx.gid
            self._resume()
        a = self.attempt
        if a is None:
            return
        game = ctx.game
        if len(game.played) < a.judged and not self.recorded:
            self.attempt = a = Attempt(a.puzzle)  # taken back: tried afresh
        for verdict in a.follow(game):
            if not self.quiet:
                self._said(verdict)
        self.quiet = False
        if a.over and not self.recorded and a.status in ("solved", "failed"):
            self._record(a)
        if (a.expected is not None and len(game.played) == a.judged and not game.is_over()
                and game.turn != a.puzzle.side and ctx.move_to_make is None):
            frm, _, to = a.expected.split("x")[0].partition("-")
            try:
                self.decisions.choose(move_of(game, frm, to), "puzzle", "puzzle")
            except (ControlError, ValueError) as exc:
                log.warning("game %d: the puzzle's answer %s not taken: %s", ctx.gid,
                            a.expected, exc)
        self._show()

    def _resume(self) -> None:
        """The current game is a puzzle's (a restart): its attempt again."""
        ctx = self.ctx
        game = ctx.game
        side = str(game.start_turn)
        other = SIDES[1 - SIDES.index(side)] if side in SIDES else ""
        if not other or ctx.players[other].name != OPPONENT:
            return
        try:
            puzzle = find(ctx.store, puzzle_id(game.rules.id, game.start_position, side))
            recorded = ctx.store.puzzle_attempted(ctx.gid)
        except STORE_ERRORS as exc:
            log.warning("game %d: the puzzle not resumed: %s", ctx.gid, exc)
            return
        if puzzle is None:
            return
        self.attempt = Attempt(puzzle)
        self.gid, self.started, self.recorded, self.ratings = ctx.gid, ctx.wall(), recorded, None
        self.quiet = True
        log.info("game %d: puzzle %s resumed", ctx.gid, puzzle.id)

    def _said(self, v: Verdict) -> None:
        ctx = self.ctx
        data: dict[str, object] = {"puzzle": self.attempt.puzzle.id if self.attempt else "",
                                   "status": v.kind, "move": v.move}
        if v.answer:
            data["answer"] = v.answer
        if v.why:
            data["why"] = v.why
        ctx.announcer.note("puzzle", "puzzle", **data)
        log.info("game %d: puzzle move %s: %s", ctx.gid, v.move, v.kind)

    def _record(self, a: Attempt) -> None:
        """Store the finished attempt with both ratings after it."""
        ctx = self.ctx
        self.recorded = True
        try:
            progress = ctx.store.puzzle_progress()
            player = progress.rating if progress.rating is not None \
                else puzzle_rating.PLAYER_START
            standing = progress.puzzles.get(a.puzzle.id)
            rating = standing.rating if standing else float(a.puzzle.rating or DEFAULT_RATING)
            solved = a.status == "solved"
            after = puzzle_rating.update(player, rating, solved)
            ctx.store.puzzle_attempt(PuzzleAttemptRow(
                a.puzzle.id, self.gid, self.started, ctx.wall(), solved,
                tuple(p.text for p in ctx.game.played), player, after[0], rating, after[1]))
            self.ratings = after
        except STORE_ERRORS as exc:
            log.warning("game %d: the puzzle's attempt not stored: %s", ctx.gid, exc)

    def _show(self) -> None:
        """``puzzle`` of the state."""
        a = self.attempt
        if a is None:
            self.ctx.puzzle = None
            return
        p = a.puzzle
        last: PuzzleLast | None = None
        if a.last is not None:
            v = a.last
            last = {"move": v.move, "kind": v.kind, "answer": v.answer, "why": v.why,
                    "solution": v.solution}
        status = a.status
        shown: PuzzleState = {
            **p.listing(), "status": status,
            "setup": self.ctx.tracker.state == "setup", "played": len(a.verdicts),
            "last": last, "comment": p.comment,
            "player_rating": self.ratings[0] if self.ratings else None,
            "puzzle_rating": self.ratings[1] if self.ratings else None}
        self.ctx.puzzle = shown
