"""The host side of OTEP: drive any OTEP engine process (ours or an external one) without
ever blocking the caller.

Every call returns at once. Requests (:meth:`OtepHost.request_move`, :meth:`OtepHost.analyze`)
return a :class:`concurrent.futures.Future`, completed from the host's own threads: a reader
(stdout), a drain (stderr, kept for error messages), a writer (stdin; lines wait until the
engine's ``hello``) and a timer per request; cancelling it stops the engine at once. Whatever
goes wrong ends the request with an :class:`EngineError` whose message says what happened:

- the engine does not start, or exits (``kind="crash"``: exit status and its last stderr lines);
- no ``hello`` within ``hello_timeout`` or no answer within the deadline (``"silence"``; the
  engine is then killed);
- an answer that cannot be read (``"garbage"``: e.g. ``move banana``);
- an illegal move (``"illegal"``: the move and the rules' reason).

``error -1 <text>`` from an engine is a resignation (:attr:`EngineMove.resigned`); ``status``
lines reach ``on_status`` (and :attr:`OtepHost.thinking`, parsed when they are this project's
``status depth .. score ..`` lines). Other lines are ignored, as OTEP says, but the last few
are quoted when the engine falls silent.

The host keeps its own copy of the game the engine knows. Before each request it brings the
engine up to date: the moves played since (``opponent-move <move> <position>``), or, when the
game went another way (a takeback, a new game), ``rules`` with the game's start and the moves
replayed. :meth:`cancel` (a takeback, a new game, quitting) kills the engine at once; the next
request starts a fresh process. The engine's process group is killed, so an engine started
through a shell script goes too.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any, TypeVar

from companion.rules import Board
from companion.rules.ruleset import ATTACKERS, DEFENDERS

from .otep_answers import AnalysisLine as AnalysisLine
from .otep_answers import EngineClock as EngineClock
from .otep_answers import EngineMove as EngineMove
from .otep_answers import Thinking as Thinking
from .otep_answers import parse_status as parse_status
from .otep_answers import read_analysis, read_move
from .otep_mirror import GameMirror, copy_board
from .otep_process import EngineError as EngineError
from .otep_process import EngineProcess, ProcessOwner, Schedule, thread_timer

T = TypeVar("T")


def _settle(future: Future[T], value: T | None = None,
            error: BaseException | None = None) -> bool:
    """Complete ``future`` unless it is done already (finished, or cancelled by its caller)."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]
    except InvalidStateError:
        return False
    return True


class OtepHost:
    """Drives one OTEP engine command, e.g. ``["tafl-companion", "engine", "--level", "6"]``.

    ``on_status(text)`` receives the engine's ``status`` texts (on a host thread: keep it
    short). The process starts with the first request (or :meth:`start`). ``schedule`` and
    ``clock`` are the host's timers and the clock they and the answers' ``seconds`` read (a
    fake clock's in the tests)."""

    def __init__(
        self, argv: Sequence[str], *, name: str | None = None, cwd: str | None = None,
        hello_timeout: float = 10.0, grace: float = 3.0,
        on_status: Callable[[str], None] | None = None,
        schedule: Schedule = thread_timer, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not argv:
            raise ValueError("an engine command is needed")
        self.argv = list(argv)
        self.name = name or os.path.basename(self.argv[0])
        self.cwd = cwd
        self.hello_timeout = hello_timeout
        self.grace = grace
        self.on_status = on_status
        self.schedule, self.clock = schedule, clock
        self.thinking: Thinking | None = None
        self._lock = threading.RLock()
        self._proc: EngineProcess | None = None
        self._pending: Future[Any] | None = None
        self._started = 0.0  # when the engine had the pending request (_arm)
        self._kind = ""  # "move" or "analysis"
        self._game = GameMirror()  # the game as the engine knows it
        self._request_board: Board | None = None
        self._last_status: Thinking | None = None
        self.closed = False

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the engine process now (otherwise the first request does). Raises
        EngineError when the command cannot be started at all."""
        with self._lock:
            self._ensure()

    def _ensure(self) -> EngineProcess:
        if self.closed:
            raise EngineError("stopped", f"engine {self.name!r} was closed")
        if self._proc is None or self._proc.dead.is_set() or self._proc.killed:
            self._proc = EngineProcess(ProcessOwner(
                self.argv, self.name, self.cwd, self.hello_timeout, self._on_line,
                self._on_exit, self._fail, self.schedule, self.clock))
            self._game.forget()
        return self._proc

    @property
    def alive(self) -> bool:
        """Whether an engine process is running."""
        proc = self._proc
        return proc is not None and not proc.dead.is_set() and not proc.killed

    @property
    def ready(self) -> bool:
        """Whether the running engine has said ``hello``."""
        proc = self._proc
        return proc is not None and proc.hello.is_set()

    def cancel(self) -> None:
        """Stop whatever the engine is doing at once (it is killed; the next request starts a
        new one). A pending request ends with EngineError(kind="stopped")."""
        with self._lock:
            proc, pending = self._proc, self._pending
            self._pending = None
            self._proc = None
            self._game.forget()
        if proc is not None:
            proc.kill()
        if pending is not None:
            _settle(pending, error=EngineError("stopped", f"engine {self.name!r} was stopped"))

    def close(self) -> None:
        """Say ``goodbye`` and let the engine exit; it is killed if it has not within a second.
        Returns at once."""
        with self._lock:
            self.closed = True
            proc, pending = self._proc, self._pending
            self._pending = None
            self._proc = None
        if pending is not None:
            _settle(pending, error=EngineError("stopped", f"engine {self.name!r} was closed"))
        if proc is None:
            return
        proc.send("goodbye")

        def reap() -> None:
            if not proc.dead.is_set():
                proc.kill()

        self.schedule(1.0, reap)

    # -- requests -----------------------------------------------------------------------------
    def request_move(
        self, board: Board, seconds: float | None = None,
        clock: tuple[float, float] | EngineClock | None = None, deadline: float | None = None,
    ) -> Future[EngineMove]:
        """Ask for a move in ``board`` (its side to move; the game's history since its start is
        sent so repetitions count). ``clock``: an :class:`EngineClock`, or the main time left
        for (attackers, defenders), sent as OTEP ``clock``. The request fails with
        EngineError("silence") when no move comes within ``deadline`` seconds (default: 1.1 ×
        ``seconds`` or what the clock allows, + ``grace``)."""
        if board.outcome() is not None:
            raise ValueError("the game is over: there is no move to ask for")
        pending: Future[EngineMove] = Future()
        if isinstance(clock, tuple):
            clock = EngineClock(clock[0], clock[1])
        if deadline is None:
            budget = seconds if seconds is not None else 30.0
            if clock is not None:
                budget = min(budget, clock.available(board.turn))
            deadline = budget * 1.1 + self.grace
        lines = []
        if clock is not None:
            lines.append(clock.line())
        lines.append(f"play {board.turn}")
        self._submit(pending, "move", board, lines, deadline)
        return pending

    def analyze(self, board: Board, count: int = 1, seconds: float = 2.0,
                deadline: float | None = None) -> Future[list[AnalysisLine]]:
        """Ask for the ``count`` best lines in ``board`` after thinking ``seconds``."""
        pending: Future[list[AnalysisLine]] = Future()
        if board.outcome() is not None:
            pending.set_result([])
            return pending
        if deadline is None:
            deadline = seconds * 1.1 + self.grace
        # OpenTafl sends whole seconds; below one second a decimal (our engine reads it)
        secs = f"{round(seconds)}" if seconds >= 1 else f"{max(seconds, 0.05):.2f}"
        self._submit(pending, "analysis", board, [f"analyze {max(1, count)} {secs}"], deadline)
        return pending

    def _submit(self, pending: Future[Any], kind: str, board: Board, lines: list[str],
                deadline: float) -> None:
        with self._lock:
            if self._pending is not None and not self._pending.done():
                self.cancel()  # one request at a time: a new one replaces the old
            try:
                proc = self._ensure()
            except EngineError as exc:
                _settle(pending, error=exc)
                return
            self._pending = pending
            self._kind = kind
            self._request_board = copy_board(board)
            self._last_status = None
            for line in self._game.sync(board):
                proc.send(line)
            for line in lines:
                proc.send(line)
        pending.add_done_callback(self._on_done)
        self._when_ready(proc, lambda: self._arm(proc, pending, deadline))

    def _when_ready(self, proc: EngineProcess, then: Callable[[], None]) -> None:
        """Run ``then`` once ``proc`` has said hello (at once if it has). An engine that is
        still starting has not seen the request: its time begins at its hello (counted from the
        request, a start that took 3 s of a busy machine's time left a 1 s look 0.1 s). One
        that never says hello is the hello timer's to report."""
        with self._lock:
            if not proc.hello.is_set():
                proc.on_hello.append(then)
                return
        then()

    def _arm(self, proc: EngineProcess, pending: Future[Any], deadline: float) -> None:
        with self._lock:
            if self._pending is pending:
                self._started = self.clock()  # the engine has the request from now
        self.schedule(deadline, lambda: self._deadline(proc, pending, deadline))

    def _on_done(self, pending: Future[Any]) -> None:
        """A request cancelled by its caller stops the engine at once."""
        if pending.cancelled():
            with self._lock:
                current = self._pending is pending
            if current:
                self.cancel()

    def _deadline(self, proc: EngineProcess, pending: Future[Any], deadline: float) -> None:
        if pending.done():
            return
        with self._lock:
            current = self._pending is pending
        if not current:
            return
        self._fail(proc, EngineError(
            "silence",
            f"engine {self.name!r} did not answer within {deadline:.1f} s{proc.junk_note()}",
        ))

    def _fail(self, proc: EngineProcess, error: EngineError) -> None:
        with self._lock:
            pending = self._pending if self._proc is proc else None
            if pending is not None:
                self._pending = None
            if self._proc is proc:
                self._proc = None
                self._game.forget()
        proc.kill()
        if pending is not None:
            _settle(pending, error=error)

    # -- what the engine says -----------------------------------------------------------------
    def _on_line(self, proc: EngineProcess, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "hello":
            # the waiting deadlines are armed before the hello shows (``ready``), and under the
            # lock _when_ready checks it with: no waiter is left behind
            with self._lock:
                waiting, proc.on_hello = proc.on_hello, []
                for then in waiting:
                    then()
                proc.hello.set()
            return
        if word == "status":
            self._on_status(rest)
            return
        with self._lock:
            if self._proc is not proc:
                return
            pending, kind, board = self._pending, self._kind, self._request_board
        if word == "move" and kind == "move" and pending is not None and board is not None:
            self._on_move(proc, pending, board, rest)
        elif word == "analysis" and kind == "analysis" and pending is not None and board:
            self._on_analysis(proc, pending, board, rest)
        elif word == "error":
            code, _, text = rest.partition(" ")
            if code == "-1" and kind == "move" and pending is not None:
                with self._lock:
                    self._pending = None
                _settle(pending, EngineMove(None, resigned=True, message=text.strip(),
                                            seconds=self.clock() - self._started))
            elif self.on_status is not None and text:
                self.on_status(text.strip())
        elif word in ("rules", "position", "side", "clock", "simple-moves"):
            pass  # requests for information: everything is sent with each request anyway
        else:
            proc.junk_tail.append(line[:120])

    def _on_status(self, text: str) -> None:
        parsed = parse_status(text)
        if parsed is not None:
            self.thinking = parsed
            with self._lock:
                self._last_status = parsed
        if self.on_status is not None:
            with contextlib.suppress(Exception):
                self.on_status(text)

    def _on_move(self, proc: EngineProcess, pending: Future[EngineMove], board: Board,
                 text: str) -> None:
        try:
            move = read_move(self.name, board, text)
        except EngineError as exc:
            self._fail(proc, exc)
            return
        captured = board.push(move)
        outcome = board.outcome()
        with self._lock:
            if self._pending is not pending:
                return
            self._pending = None
            self._game.engine_played(move)
            status = self._last_status
        proc.send(f"move {board.otn()}")
        answer = EngineMove(
            f"{board.name(move.frm)}-{board.name(move.to)}",
            sorted(board.geo.names[s] for s in captured),
            outcome.result if outcome else "ongoing",
            seconds=self.clock() - self._started,
        )
        if status is not None:
            answer.score, answer.mate = status.get("cp"), status.get("mate")
            answer.depth, answer.pv = status.get("depth"), status.get("pv", [])
        _settle(pending, answer)

    def _on_analysis(self, proc: EngineProcess, pending: Future[list[AnalysisLine]],
                     board: Board, text: str) -> None:
        try:
            lines = read_analysis(self.name, board, text)
        except EngineError as exc:
            self._fail(proc, exc)
            return
        with self._lock:
            if self._pending is not pending:
                return
            self._pending = None
        _settle(pending, lines)

    def _on_exit(self, proc: EngineProcess) -> None:
        with self._lock:
            mine = self._proc is proc
            pending = self._pending if mine else None
            if mine:
                self._pending = None
                self._proc = None
                self._game.forget()
        if pending is None or proc.killed:
            return
        code = proc.exit_code
        how = f"exited with status {code}" if code is not None and code >= 0 else (
            f"was killed by signal {-code}" if code is not None else "closed its output")
        tail = f": {' | '.join(proc.stderr_tail)}" if proc.stderr_tail else ""
        _settle(pending, error=EngineError("crash", f"engine {self.name!r} {how}{tail}"))


def other_side(side: str) -> str:
    """The opponent of ``side``."""
    return DEFENDERS if side == ATTACKERS else ATTACKERS
