"""The advisor: hints, and the computer's answer to a draw offer, from a second engine process.

The computer player's own engine is never asked (a hint must not disturb its thinking): the
advisor keeps one more engine process (the built-in engine, full strength, started with the
first request and kept for the next), runs one analysis at a time and queues the rest. Every
call returns at once; the session polls it at each loop step (:meth:`Advisor.poll`) and applies
what it answers (:data:`Advice`).

A **hint** (``POST /api/hint``) is the engine's best move for the side to move. It is shown
(``hint`` in the state, LEDs ``hint_from``/``hint_to``) until the position changes, stored as
an event ``hint`` and counted per side with the game. An answer for a position that has changed
meanwhile is dropped. Positions are told apart by a :data:`PositionKey` (the game, its ply
count, its last move and its result).
"""

from __future__ import annotations

import logging
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from companion.rules import Board
from companion.session.results import HintAnswer, ShownHint

if TYPE_CHECKING:
    from companion.engine import AnalysisLine, OtepHost

log = logging.getLogger("companion.session")
MIN_SECONDS, MAX_SECONDS = 0.1, 30.0
SIDES = ("attackers", "defenders")

#: What a hint or a draw answer belongs to: (game, plies played, last move, result).
PositionKey = tuple[int, int, str, str]

class PendingHint(TypedDict):
    """The hint being looked for (``hint_pending`` in the page state)."""

    side: str
    by: str
    since: float


class HintRow(TypedDict):
    """The ``hint`` event stored with the game (docs/events.md)."""

    side: str
    move: str
    score: float
    by: str
    ply: int


@dataclass
class Job:
    """One question for the engine: ``kind`` (``hint``, ``draw`` or the coach's ``look``)
    about the position ``key`` for ``side``, asked ``by`` someone."""

    kind: str
    key: PositionKey
    side: str
    by: str
    seconds: float
    board: Board
    pending: Future[list[AnalysisLine]] | None = None

    def lines(self) -> list[AnalysisLine]:
        """The answer (EngineError when the engine failed)."""
        assert self.pending is not None
        return self.pending.result(0)


@dataclass(frozen=True)
class HintReady:
    """A hint for the position now: shown, counted, stored (``row``: the event's data)."""

    hint: ShownHint
    row: HintRow


@dataclass(frozen=True)
class HintFailed:
    side: str
    by: str
    message: str


@dataclass(frozen=True)
class DrawAnswer:
    """The computer of ``side`` judged a draw offer: its ``score`` (None: it could not), or
    ``again`` when the position changed meanwhile and it is to judge afresh."""

    side: str
    score: float | None
    again: bool = False


@dataclass(frozen=True)
class LookDone:
    """The coach's look at a position finished (``companion.session.coaching`` judges it)."""

    job: Job


Advice = HintReady | HintFailed | DrawAnswer | LookDone


class AdviceEngine:
    """A second engine process for hints and draw answers; one question at a time."""

    def __init__(self, argv: list[str] | None = None, name: str = "advisor") -> None:
        self.argv = argv
        self.name = name
        self._host: OtepHost | None = None
        self.queue: deque[Job] = deque()
        self.current: Job | None = None

    def submit(self, job: Job) -> None:
        self.queue.append(job)
        self._next()

    def _ensure(self) -> OtepHost:
        from companion.engine import OtepHost, builtin_engine_command

        if self._host is None:
            self._host = OtepHost(self.argv or builtin_engine_command(level=10),
                                  name=self.name)
        return self._host

    def warm(self) -> None:
        """Start the engine process now (a game against the computer began), so the first
        hint does not wait for Python to start (seconds on a Pi Zero)."""
        from companion.engine import EngineError

        host = self._ensure()
        if not host.alive:
            try:
                host.start()
            except EngineError as exc:
                log.warning("the hint engine cannot start: %s", exc)

    def _next(self) -> None:
        if self.current is not None or not self.queue:
            return
        job = self.queue.popleft()
        job.pending = self._ensure().analyze(job.board, 1, job.seconds)
        self.current = job

    def poll(self) -> Job | None:
        """A finished job (its answer or error ready), or None."""
        job = self.current
        if job is None or job.pending is None or not job.pending.done():
            return None
        self.current = None
        self._next()
        return job

    def waiting(self, kind: str) -> list[Job]:
        return [j for j in ([self.current] if self.current else []) + list(self.queue)
                if j.kind == kind]

    def clear(self) -> None:
        """Forget every question (a new game): the engine stops at once."""
        self.queue.clear()
        if self.current is not None and self._host is not None:
            self._host.cancel()
        self.current = None

    def close(self) -> None:
        self.queue.clear()
        self.current = None
        if self._host is not None:
            self._host.close()
            self._host = None


class Advisor:
    """Hints (the one shown, the one being looked for, the count per side) and draw answers,
    on the :class:`AdviceEngine` (see the module docstring)."""

    def __init__(self, engine: AdviceEngine | None = None) -> None:
        self.engine = engine or AdviceEngine()
        self._hint: tuple[PositionKey, ShownHint] | None = None
        self._pending: tuple[PositionKey, PendingHint] | None = None
        self.counts: dict[str, int] = {side: 0 for side in SIDES}

    def new_game(self, counts: dict[str, int] | None = None) -> None:
        """A new (or restored) game: no hint shown, the counts of that game."""
        self._hint = self._pending = None
        self.counts = dict(counts) if counts else {side: 0 for side in SIDES}
        self.engine.clear()

    def game_ended(self) -> None:
        self._pending = None

    def current(self, key: PositionKey) -> ShownHint | None:
        """The hint for the position ``key`` (one for another position is dropped)."""
        if self._hint is not None and self._hint[0] != key:
            self._hint = None
        if self._pending is not None and self._pending[0] != key:
            self._pending = None
        return None if self._hint is None else self._hint[1]

    def to_json(self, key: PositionKey) -> tuple[ShownHint | None, PendingHint | None]:
        """``hint`` and ``hint_pending`` of the page state."""
        shown = self.current(key)
        return shown, None if self._pending is None else self._pending[1]

    def request(self, key: PositionKey, side: str, by: str, seconds: float, board: Board,
                wall: float) -> tuple[int, HintAnswer]:
        """A hint for ``side`` to move in ``key``: (200, the hint shown) or (202, thinking)."""
        if self._hint is not None and self._hint[0] == key:
            return 200, {"status": "ready", "hint": self._hint[1]}
        if self._pending is None or self._pending[0] != key:
            self.engine.submit(Job("hint", key, side, by, seconds, board))
            self._pending = key, {"side": side, "by": by, "since": round(wall, 3)}
        return 202, {"status": "thinking", "side": side}

    def ask_draw(self, key: PositionKey, side: str, seconds: float, board: Board) -> None:
        """The computer of ``side`` was offered a draw: evaluate (one question at a time)."""
        if not self.engine.waiting("draw"):
            self.engine.submit(Job("draw", key, side, side, seconds, board))

    def poll(self, key: PositionKey, ply: int) -> list[Advice]:
        """The engine's finished answers for the position ``key`` now (``ply``: the plies
        played); never blocks."""
        out: list[Advice] = []
        while (job := self.engine.poll()) is not None:
            if job.kind == "look":
                out.append(LookDone(job))
                continue
            advice = self._hint_done(job, key, ply) if job.kind == "hint" else (
                self._draw_done(job, key))
            if advice is not None:
                out.append(advice)
        return out

    def _hint_done(self, job: Job, key: PositionKey, ply: int) -> Advice | None:
        from companion.engine import EngineError

        if self._pending is not None and self._pending[0] == job.key:
            self._pending = None
        if job.key != key:
            return None  # the position changed meanwhile: the hint is of no use
        try:
            lines = job.lines()
        except EngineError as exc:
            return HintFailed(job.side, job.by, str(exc))
        if not lines or not lines[0].moves:
            return HintFailed(job.side, job.by, "the engine found no move")
        move = lines[0].moves[0]
        frm, _, to = move.partition("-")
        score = round(lines[0].evaluation, 2)
        hint: ShownHint = {"side": job.side, "move": move, "from": frm, "to": to,
                           "score": score, "by": job.by}
        self._hint = job.key, hint
        self.counts[job.side] = self.counts.get(job.side, 0) + 1
        return HintReady(hint, {"side": job.side, "move": move, "score": score, "by": job.by,
                                "ply": ply + 1})

    @staticmethod
    def _draw_done(job: Job, key: PositionKey) -> Advice:
        from companion.engine import EngineError

        score: float | None = None
        try:
            lines = job.lines()
            if lines and job.key == key:
                value = lines[0].evaluation  # for the side to move then
                score = round(value if job.board.turn == job.side else -value, 2)
        except EngineError as exc:
            log.warning("the computer could not judge the draw offer: %s", exc)
        return DrawAnswer(job.side, score, again=score is None and job.key != key)

    def close(self) -> None:
        self.engine.close()
