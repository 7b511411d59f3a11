"""The coach of one side, at the session: looks at each move of the coached side's person and
warns at once of a move that loses (docs/coach.md, "The coach").

The judging is :mod:`companion.coach.look`'s; here is when it is asked and what becomes of its
answer. At every loop step (:meth:`Coaching.watch`) a new position is noticed:

- the coached side to move, played by a person: the advisor's engine looks at it in advance
  (a *before* look: what the best move is worth), while the person thinks;
- the coached side's person just moved: the rules check at once whether the opponent now wins
  with one move (a warning there and then); otherwise the engine looks at the position after
  the move (an *after* look, queued behind the before look), and :meth:`Coaching.done` judges
  the two when its answer comes.

The engine is the advisor's second process (:class:`~companion.session.advice.AdviceEngine`,
one question at a time, shared with hints and draw answers); its answers arrive through the
advisor's poll. A warning belongs to the position after the move: it is shown while that
position stands and cleared by any change (a takeback, the opponent's move, a new game). An
answer for a position that has changed meanwhile is dropped. The coach never chooses a move for
anyone: its lines are only shown as words and lights.

The coach is not stored with the game: a new game takes it from ``POST /api/new`` (``coach``;
left out: the game before's carries over), a match's game 2 coaches the same person (the other
side), and after a restart the config's ``[coach]`` applies. A side played by the computer, an
engine or a player at a distance is not coached.

Evaluation on request (:meth:`Coaching.evaluate`, ``POST /api/eval``) and analysis mode
(:meth:`Coaching.analyse`: every position of a game of two people) use the same engine and
show a score, never a move to make. The coach's judging lives in :mod:`companion.coach`
(Rules and Engine only); the session imports it as it imports the engine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TypedDict

from companion.coach.config import CoachConfig
from companion.coach.look import CoachWarning, Look, WarningJSON, at_once, judge
from companion.rules.game import Game
from companion.session.advice import AdviceEngine, Job, PositionKey

log = logging.getLogger("companion.session")
#: before looks kept (positions the coached side was to move in), newest last
KEPT_LOOKS = 8


class CoachJSON(TypedDict):
    """``coach`` of the page state (docs/http-api.md)."""

    side: str
    strictness: str
    seconds: float
    warning: WarningJSON | None
    looking: bool


class EvalJSON(TypedDict):
    """``evaluation`` of the page state: the engine's score of the position now, asked for
    (``POST /api/eval``): in soldiers for ``side`` (the side to move; forced results
    ±(1000 - plies)), None while it looks; ``best`` its best move, never a move to make."""

    side: str
    score: float | None
    best: str | None
    line: list[str]
    ply: int
    by: str
    analysis: bool  # analysis mode is on (every position is evaluated)
    error: str | None  # why the engine could not (it crashed, fell silent): asking again tries


class EvalAnswer(TypedDict):
    """The answer of ``POST /api/eval``: ``ready`` (with the evaluation) or ``thinking``."""

    status: str
    evaluation: EvalJSON


@dataclass(frozen=True)
class _Evaluation:
    """The evaluation asked for: its position, who asked, the look (None while it looks) or
    why there is none."""

    key: PositionKey
    by: str
    look: Look | None = None
    error: str | None = None


@dataclass(frozen=True)
class _Asked:
    """An after look asked for: the position before the move (its key and board) and the
    move."""

    before_key: PositionKey
    before: Game
    move: str


def key_before(key: PositionKey, game: Game) -> PositionKey:
    """The key of the position before the last move of ``game`` (whose key is ``key``)."""
    played = game.played
    return (key[0], len(played) - 1, played[-2].text if len(played) > 1 else "", "ongoing")


class Coaching:
    """The coach's looks and its warning (see the module docstring)."""

    def __init__(self, engine: AdviceEngine, config: CoachConfig | None = None) -> None:
        self.engine = engine
        self.config = config or CoachConfig()
        self._seen: PositionKey | None = None
        self._warning: tuple[PositionKey, CoachWarning, int] | None = None
        self._looks: dict[PositionKey, Look | None] = {}
        self._asked: dict[PositionKey, _Asked] = {}
        self._before_asked: set[PositionKey] = set()
        self._eval: _Evaluation | None = None
        # analysis mode: every position of a game of two people evaluated (until turned off)
        self.analysing = False

    def new_game(self, config: CoachConfig) -> None:
        """A new (or restored) game, coached as ``config`` says; nothing looked at yet (the
        advisor's queue is cleared with the game)."""
        self.config = config
        self._seen = self._warning = self._eval = None
        self._looks.clear()
        self._asked.clear()
        self._before_asked.clear()

    def watch(self, key: PositionKey, game: Game, person: bool, two_people: bool = False,
              seconds: float = 1.0) -> CoachWarning | None:
        """Notice a new position (every loop step; ``person``: a person plays the coached
        side): ask the looks it needs; the warning when the rules alone find one. In analysis
        mode (:meth:`analyse`) and a game of ``two_people`` the position is evaluated too, for
        ``seconds``, after the coach's looks."""
        if key == self._seen:
            return None
        self._seen = key
        warning = self._watch(key, game, person)
        if self.analysing and two_people and not game.is_over():
            self.evaluate(key, game, "analysis", seconds)
        return warning

    def analyse(self, on: bool) -> None:
        """Analysis mode on or off: every new position evaluated while two people play."""
        self.analysing = on

    def _watch(self, key: PositionKey, game: Game, person: bool) -> CoachWarning | None:
        side = self.config.side
        if side is None or not person or game.is_over():
            return None
        played = game.played
        if played and played[-1].side == side:
            before = game.copy(manual=False)
            before.undo()
            move = played[-1].move.text(game.board.size)
            warning = at_once(before.board, move)
            if warning is not None:
                self._warning = (key, warning, len(played))
                return warning
            before_key = key_before(key, game)
            self._look_before(before_key, before)
            self.engine.submit(Job("look", key, side, "coach", self.config.seconds,
                                   game.board.copy()))
            self._asked[key] = _Asked(before_key, before, move)
        elif game.turn == side:
            self._look_before(key, game)
        return None

    def _look_before(self, key: PositionKey, game: Game) -> None:
        if key in self._looks or key in self._before_asked:
            return
        self._before_asked.add(key)
        self.engine.submit(Job("look", key, str(game.turn), "coach", self.config.seconds,
                               game.board.copy()))

    def done(self, job: Job, key: PositionKey) -> CoachWarning | None:
        """An engine's look finished (``key``: the position now): the warning it makes, if
        the position is still the one it was asked for."""
        from companion.engine import EngineError

        error = None
        try:
            look: Look | None = Look.of(job.lines())
        except EngineError as exc:
            log.warning("the engine's look (%s) failed: %s", job.by, exc)
            look, error = None, str(exc)
        if look is None and error is None:
            error = "the engine's answer had no line"
        ev = self._eval
        if job.by != "coach":  # an evaluation asked for
            if ev is not None and ev.key == job.key:
                self._eval = _Evaluation(job.key, ev.by, look, error)
            return None
        asked = self._asked.pop(job.key, None)
        if asked is None:  # a before look
            self._before_asked.discard(job.key)
            self._looks[job.key] = look
            while len(self._looks) > KEPT_LOOKS:
                del self._looks[next(iter(self._looks))]
            return None
        self._looks[job.key] = look  # (an evaluation asked for there is known at once)
        if ev is not None and ev.key == job.key and ev.look is None and ev.error is None:
            self._eval = _Evaluation(job.key, ev.by, look, error)
        if job.key != key or self.config.side is None:
            return None  # the position changed meanwhile: of no use now
        warning = judge(asked.before.board, asked.move, look,
                        self._looks.get(asked.before_key), self.config.strictness)
        if warning is not None:
            self._warning = (key, warning, key[1])
        return warning

    def evaluate(self, key: PositionKey, game: Game, by: str,
                 seconds: float) -> tuple[int, EvalAnswer]:
        """The engine's score of the position ``key`` (``game`` now), asked ``by`` someone:
        (200, the evaluation) when it is known (a look the coach made there serves), else
        (202, thinking) while the advisor's engine looks for ``seconds``."""
        ev = self._eval
        if ev is None or ev.key != key or ev.error is not None:  # (a failed one: try again)
            look = self._looks.get(key)
            self._eval = ev = _Evaluation(key, by, look)
            if look is None and key not in self._asked:  # (an after look serves it too)
                self.engine.submit(Job("look", key, str(game.turn), "eval", seconds,
                                       game.board.copy()))
        ready = ev.look is not None
        out = self.eval_json(key, str(game.turn))
        assert out is not None
        return (200 if ready else 202), {"status": "ready" if ready else "thinking",
                                         "evaluation": out}

    def eval_json(self, key: PositionKey, side: str) -> EvalJSON | None:
        """``evaluation`` of the page state for the position ``key`` (``side`` to move)."""
        ev = self._eval
        if ev is None or ev.key != key:
            self._eval = None
            return None
        look = ev.look
        return {"side": side, "score": look.score if look else None,
                "best": look.line[0] if look and look.line else None,
                "line": list(look.line) if look else [], "ply": key[1], "by": ev.by,
                "analysis": self.analysing, "error": ev.error}

    def current(self, key: PositionKey) -> CoachWarning | None:
        """The warning for the position ``key`` (one for another position is dropped)."""
        if self._warning is not None and self._warning[0] != key:
            self._warning = None
        return self._warning[1] if self._warning else None

    def to_json(self, key: PositionKey) -> CoachJSON | None:
        """``coach`` of the page state (None: no side coached)."""
        cfg = self.config
        if cfg.side is None:
            return None
        warning = self.current(key)
        return {"side": cfg.side, "strictness": str(cfg.strictness), "seconds": cfg.seconds,
                "warning": warning.to_json(key[1]) if warning is not None else None,
                "looking": key in self._asked}
