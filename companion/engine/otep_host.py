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
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from companion.rules import Board, Move, MoveError, format_otn
from companion.rules.ruleset import ATTACKERS, DEFENDERS

from .notation import simple_move
from .otep_process import EngineError, EngineProcess, ProcessOwner
from .otr import otr_for

T = TypeVar("T")


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
    short). The process starts with the first request (or :meth:`start`)."""

    def __init__(
        self, argv: Sequence[str], *, name: str | None = None, cwd: str | None = None,
        hello_timeout: float = 10.0, grace: float = 3.0,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        if not argv:
            raise ValueError("an engine command is needed")
        self.argv = list(argv)
        self.name = name or os.path.basename(self.argv[0])
        self.cwd = cwd
        self.hello_timeout = hello_timeout
        self.grace = grace
        self.on_status = on_status
        self.thinking: Thinking | None = None
        self._lock = threading.RLock()
        self._proc: EngineProcess | None = None
        self._pending: Future[Any] | None = None
        self._started = 0.0  # when the pending request was sent
        self._kind = ""  # "move" or "analysis"
        self._mirror: Board | None = None  # the game as the engine knows it
        self._known: list[tuple[int, int]] = []
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
                self._on_exit, self._fail))
            self._mirror = None
            self._known = []
        return self._proc

    @property
    def alive(self) -> bool:
        """Whether an engine process is running."""
        proc = self._proc
        return proc is not None and not proc.dead.is_set() and not proc.killed

    def cancel(self) -> None:
        """Stop whatever the engine is doing at once (it is killed; the next request starts a
        new one). A pending request ends with EngineError(kind="stopped")."""
        with self._lock:
            proc, pending = self._proc, self._pending
            self._pending = None
            self._proc = None
            self._mirror = None
            self._known = []
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
            if not proc.dead.wait(1.0):
                proc.kill()

        threading.Thread(target=reap, name="otep-reap", daemon=True).start()

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
            self._started = time.monotonic()
            self._kind = kind
            self._request_board = _copy_board(board)
            self._last_status = None
            for line in self._sync(board):
                proc.send(line)
            for line in lines:
                proc.send(line)
        pending.add_done_callback(self._on_done)
        timer = threading.Timer(deadline, self._deadline, args=(proc, pending, deadline))
        timer.daemon = True
        timer.start()

    def _sync(self, board: Board) -> list[str]:
        """Lines that bring the engine from what it knows to ``board``."""
        history = list(zip(board.move_stack, board.capture_stack, strict=True))
        moves = [(m.frm, m.to) for m, _ in history]
        out: list[str] = []
        mirror = self._mirror
        if mirror is not None and mirror.rules == board.rules and self._known == moves[
                : len(self._known)] and _start_of(mirror) == _start_of(board):
            todo = moves[len(self._known):]
        else:
            start_pos, start_turn = _start_of(board)
            mirror = Board(board.rules, start_pos, start_turn)
            out.append("rules " + otr_for(board.rules, start_pos, start_turn))
            self._known = []
            todo = moves
        for frm, to in todo:
            mirror.push_unchecked(_move(frm, to))
            out.append(f"opponent-move {board.name(frm)}-{board.name(to)} {mirror.otn()}")
            self._known.append((frm, to))
        self._mirror = mirror
        return out

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
        if not proc.hello.is_set():
            return  # the hello timer reports this one
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
                self._mirror = None
                self._known = []
        proc.kill()
        if pending is not None:
            _settle(pending, error=error)

    # -- what the engine says -----------------------------------------------------------------
    def _on_line(self, proc: EngineProcess, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "hello":
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
                                            seconds=time.monotonic() - self._started))
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
        words = text.split()
        if len(words) != 1:
            self._fail(proc, EngineError(
                "garbage", f"engine {self.name!r} sent an unreadable move: {text!r}"))
            return
        try:
            move, _ = board.parse_move(simple_move(words[0]))
        except MoveError:
            self._fail(proc, EngineError(
                "garbage", f"engine {self.name!r} sent an unreadable move: {words[0]!r}"))
            return
        reason = board.illegal_reason(move)
        if reason:
            self._fail(proc, EngineError(
                "illegal",
                f"engine {self.name!r} played an illegal move {words[0]}: {reason}",
            ))
            return
        captured = board.push(move)
        outcome = board.outcome()
        with self._lock:
            if self._pending is not pending:
                return
            self._pending = None
            if self._mirror is not None:
                self._mirror.push_unchecked(move)
                self._known.append((move.frm, move.to))
            status = self._last_status
        proc.send(f"move {board.otn()}")
        answer = EngineMove(
            f"{board.name(move.frm)}-{board.name(move.to)}",
            sorted(board.geo.names[s] for s in board.geo.iter_bits(captured)),
            outcome.result if outcome else "ongoing",
            seconds=time.monotonic() - self._started,
        )
        if status is not None:
            answer.score, answer.mate = status.get("cp"), status.get("mate")
            answer.depth, answer.pv = status.get("depth"), status.get("pv", [])
        _settle(pending, answer)

    def _on_analysis(self, proc: EngineProcess, pending: Future[list[AnalysisLine]],
                     board: Board, text: str) -> None:
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
                    self._fail(proc, EngineError(
                        "illegal",
                        f"engine {self.name!r} analysed an illegal move {moves[0]}: {reason}",
                    ))
                    return
                lines.append(AnalysisLine([simple_move(m) for m in moves], value))
        except (ValueError, IndexError, MoveError) as exc:
            self._fail(proc, EngineError(
                "garbage", f"engine {self.name!r} sent an unreadable analysis ({exc}): "
                f"{text[:120]!r}"))
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
                self._mirror = None
                self._known = []
        if pending is None or proc.killed:
            return
        code = proc.exit_code
        how = f"exited with status {code}" if code is not None and code >= 0 else (
            f"was killed by signal {-code}" if code is not None else "closed its output")
        tail = f": {' | '.join(proc.stderr_tail)}" if proc.stderr_tail else ""
        _settle(pending, error=EngineError("crash", f"engine {self.name!r} {how}{tail}"))


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


def _move(frm: int, to: int) -> Move:

    return Move(frm, to)


def _start_of(board: Board) -> tuple[str, str]:
    """The position and side to move the board's move stack starts from."""
    if not board.move_stack:
        return board.otn(), board.turn
    att, dfn, king, turn = board._undo[0][:4]  # the state before the first move
    return format_otn(att, dfn, king, board.size), turn


def _copy_board(board: Board) -> Board:
    """An independent copy of ``board`` with its whole history (``board`` is not touched)."""
    if not board.move_stack:
        return Board(board.rules, board.otn(), board.turn, board.king_left)
    att, dfn, king, turn, king_left = board._undo[0][:5]
    copy = Board(board.rules, format_otn(att, dfn, king, board.size), turn, king_left)
    for m in board.move_stack:
        copy.push_unchecked(m)
    return copy


def other_side(side: str) -> str:
    """The opponent of ``side``."""
    return DEFENDERS if side == ATTACKERS else ATTACKERS
