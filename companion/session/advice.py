"""Advice from a second engine process: hints, and the computer's answer to a draw offer.

The computer player's own engine is never asked (a hint must not disturb its thinking): the
:class:`Advisor` keeps one more engine process (the built-in engine, full strength, started
with the first request and kept for the next), runs one analysis at a time and queues the rest.
Every call returns at once; the session polls it at each loop step.

A **hint** (``POST /api/hint``) is the engine's best move for the side to move. It is shown
(``hint`` in the state, LEDs ``hint_from``/``hint_to``) until the position changes, stored as
an event ``hint`` and counted per side with the game. An answer for a position that has changed
meanwhile is dropped.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion.rules import Board
from companion.session.actors import Action, Actor, ControlError, Role, check
from companion.session.tracking import copy_game

if TYPE_CHECKING:
    from concurrent.futures import Future

    from companion.engine import AnalysisLine, OtepHost
    from companion.session.core import SessionCore

log = logging.getLogger("companion.session")
MIN_SECONDS, MAX_SECONDS = 0.1, 30.0


@dataclass
class Job:
    """One question for the advisor: ``kind`` (``hint`` or ``draw``) about the position
    ``key`` (:func:`position_key`) for ``side``, asked ``by`` someone."""

    kind: str
    key: tuple
    side: str
    by: str
    seconds: float
    board: Board
    pending: Future[list[AnalysisLine]] | None = None
    data: dict = field(default_factory=dict)

    def lines(self) -> list[AnalysisLine]:
        """The answer (EngineError when the engine failed)."""
        assert self.pending is not None
        return self.pending.result(0)


class Advisor:
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


def position_key(s: SessionCore) -> tuple:
    """What a hint belongs to: the game, its ply count, its last move and its result."""
    played = s.game.played
    return (s.gid, len(played), played[-1].text if played else "", s.game.result)


def _board(s: SessionCore) -> Board:
    return copy_game(s.game, manual=False).board


# -- hints -------------------------------------------------------------------------------------
def request_hint(s: SessionCore, actor: Actor, seconds: object = None) -> tuple[int, dict]:
    """``POST /api/hint``: (202, thinking) or (200, the hint already shown)."""
    check(actor, Action.HINT)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(
            seconds, int | float) or not MIN_SECONDS <= seconds <= MAX_SECONDS):
        raise ControlError(400, "bad_request", f'"seconds" must be a number from {MIN_SECONDS:g}'
                                               f' to {MAX_SECONDS:g}')
    side = s.game.turn
    if actor.role is Role.PLAYER and actor.side != side:
        raise ControlError(409, "not_your_turn", f"it is the {side}' turn: a hint is for "
                                                 "the side to move")
    s._ready()
    if s.players[side].is_computer:
        raise ControlError(409, "no_hint", f"the computer plays the {side}: a hint is for a "
                                           "person's move")
    if s.move_to_make is not None:
        raise ControlError(409, "no_hint", f"the {side}' move is chosen already: make "
                                           f"{s.move_to_make['move']} on the board")
    key = position_key(s)
    if s.hint is not None and s.hint["key"] == key:
        return 200, {"status": "ready", "hint": public_hint(s.hint)}
    if s.hint_pending is None or s.hint_pending["key"] != key:
        secs = float(seconds) if seconds is not None else s.defaults.computer.hint_seconds
        s.advisor.submit(Job("hint", key, side, actor.label, secs, _board(s)))
        s.hint_pending = {"side": side, "by": actor.label, "since": round(s.wall(), 3),
                          "key": key}
        s.publish(force=True)
    return 202, {"status": "thinking", "side": side}


def public_hint(hint: dict | None) -> dict | None:
    return None if hint is None else {k: v for k, v in hint.items() if k != "key"}


def current_hint(s: SessionCore) -> dict | None:
    """The hint for the position on the board now (a stale one is dropped)."""
    if s.hint is not None and s.hint["key"] != position_key(s):
        s.hint = None
    if s.hint_pending is not None and s.hint_pending["key"] != position_key(s):
        s.hint_pending = None
    return s.hint


def advice_step(s: SessionCore) -> None:
    """Take the advisor's finished answers (called at every loop step; never blocks)."""
    while True:
        job = s.advisor.poll()
        if job is None:
            return
        if job.kind == "hint":
            _hint_done(s, job)
        elif job.kind == "draw":
            _draw_done(s, job)


def _hint_done(s: SessionCore, job: Job) -> None:
    from companion.engine import EngineError

    if s.hint_pending is not None and s.hint_pending["key"] == job.key:
        s.hint_pending = None
    if job.key != position_key(s):
        return  # the position changed meanwhile: the hint is of no use
    try:
        lines = job.lines()
    except EngineError as exc:
        s._note("hint_failed", job.by, side=job.side, message=str(exc))
        log.warning("game %d: no hint: %s", s.gid, exc)
        return
    if not lines or not lines[0].moves:
        s._note("hint_failed", job.by, side=job.side, message="the engine found no move")
        return
    move = lines[0].moves[0]
    frm, _, to = move.partition("-")
    score = round(lines[0].evaluation, 2)
    s.hint = {"side": job.side, "move": move, "from": frm, "to": to, "score": score,
              "by": job.by, "key": job.key}
    s.hints[job.side] = s.hints.get(job.side, 0) + 1
    data = {"side": job.side, "move": move, "score": score, "by": job.by,
            "ply": len(s.game.played) + 1}
    s.rows.append(("hint", data, s.wall()))
    s._note("hint", job.by, side=job.side, move=move, score=score)
    log.info("game %d: hint for the %s: %s (%+.2f)", s.gid, job.side, move, score)
    s._write()


# -- draw offers to the computer -----------------------------------------------------------------
def ask_draw_answer(s: SessionCore, computer: str) -> None:
    """The computer (``computer``'s side) was offered a draw: evaluate, then answer."""
    if s.advisor.waiting("draw"):
        return
    s.advisor.submit(Job("draw", position_key(s), computer, computer,
                         s.defaults.computer.draw_seconds, _board(s)))


def _draw_done(s: SessionCore, job: Job) -> None:
    from companion.engine import EngineError
    from companion.session.computer import computer_actor

    side = job.side
    if s.draw_offer is None or s.draw_offer == side or s.game.is_over():
        return  # withdrawn, lapsed or answered meanwhile
    cfg = s.defaults.computer
    score: float | None = None
    try:
        lines = job.lines()
        if lines and job.key == position_key(s):
            value = lines[0].evaluation  # for the side to move then
            score = round(value if job.board.turn == side else -value, 2)
    except EngineError as exc:
        log.warning("game %d: the computer could not judge the draw offer: %s", s.gid, exc)
    if score is None and job.key != position_key(s):
        ask_draw_answer(s, side)  # the position changed: judge it again
        return
    accept = cfg.draw and score is not None and score <= cfg.draw_threshold
    try:
        s.draw(computer_actor(side), "accept" if accept else "decline", side, score=score)
    except ControlError as exc:
        log.info("game %d: the computer's draw answer was not taken: %s", s.gid, exc.message)
