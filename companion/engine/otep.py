"""``tafl-companion engine``: the engine speaking OTEP (the OpenTafl Engine Protocol) on stdio.

It behaves as OpenTafl's hosts expect (``docs/engine.md``):

- ``hello`` at once; commands are read from the first moment (OpenTafl sends ``rules`` before
  it has seen ``hello``);
- ``rules <OTR>`` sets up the game (``name:`` preset ids, ``start:`` the current position,
  ``atkf:`` the side to move); ``opponent-move <move> <position>`` plays the move and then
  trusts the position record (captures are computed; on any disagreement the engine
  resynchronises to the record); ``move <position>`` acknowledges its own move the same way,
  ``error <code>`` takes it back;
- ``clock <att-ms>[*] <def-ms>[*] <ot-s> <att-ot> <def-ot>`` sets the time used by the next
  ``play``; ``play attackers|defenders`` answers ``move <from>-<to>`` within the level's (or the
  clock's) time, with ``status`` lines (depth, score, nodes, principal variation) while thinking;
- ``position <OTN>``, ``side attackers|defenders`` and ``analyze <n> <seconds>`` (answered by
  ``analysis <n> <line> <eval> ...``) serve hints and game analysis;
- ``finish <code>`` ends the game; ``goodbye`` (or the end of input) exits. Any command that
  changes the game while a search runs (``goodbye``, ``finish``, ``rules``, ``position``, …, or
  ``stop``) stops the search at once and its move is not sent.

Only protocol lines go to stdout; logs go to stderr. Unknown commands are ignored.

``status`` lines: ``status depth D score S nodes N time T pv m1 m2 ...`` where ``S`` is
``cp <hundredths of a soldier>`` or ``mate <plies>`` (negative: the engine is lost), from the
engine's side's point of view. ``analysis`` evaluations are in soldiers (``+1.25``); forced
results are ``±1000`` minus the plies to them.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import TextIO

from companion.rules import Board, MoveError, RuleSet
from companion.rules.otn import PositionError
from companion.rules.ruleset import ATTACKERS, DEFENDERS

from .levels import DEFAULT_LEVEL, FULL_STRENGTH, get_level
from .notation import simple_move
from .otr import RulesError, parse_otr
from .player import Engine, mate_plies
from .position import Position
from .search import Info
from .timing import Budget, from_clock, per_move

INTERRUPTING = {
    "goodbye", "finish", "rules", "position", "side", "opponent-move", "play", "analyze",
    "stop", "error",
}


@dataclass(frozen=True)
class OtepClock:
    """The last OTEP ``clock``: seconds left per side (``*_overtime``: of the current overtime
    period), the period's length and the periods left per side."""

    attackers: float
    attackers_overtime: bool
    defenders: float
    defenders_overtime: bool
    period: float
    attackers_periods: int
    defenders_periods: int


def score_words(score: int) -> str:
    """``cp 125`` or ``mate -3`` (plies)."""
    mate = mate_plies(score)
    return f"mate {mate}" if mate is not None else f"cp {score}"


def analysis_eval(score: int) -> str:
    """An ``analysis`` evaluation: soldiers, forced results as ±(1000 - plies)."""
    mate = mate_plies(score)
    if mate is not None:
        return f"{1000 - mate:.0f}" if mate > 0 else f"{-1000 - mate:.0f}"
    return f"{score / 100:+.2f}"


class OtepEngine:
    """The protocol state machine; :meth:`run` reads ``inp`` until ``goodbye`` or its end."""

    def __init__(
        self, inp: TextIO, out: TextIO, level: int | None = None, seed: int = 0,
        movetime: float | None = None, log: TextIO | None = None,
    ) -> None:
        self.inp, self.out, self.log_to = inp, out, log
        # None: full strength for the time a clock or --time gives (the default level without)
        self.level = get_level(level) if level is not None else None
        self.seed = seed
        self.movetime = movetime
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.interrupt = threading.Event()
        self.out_lock = threading.Lock()
        self.board: Board | None = None
        self.engines: dict[tuple[RuleSet, int], Engine] = {}
        self.clock: OtepClock | None = None
        self.running = True

    # -- i/o ----------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self.out_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def log(self, text: str) -> None:
        if self.log_to is not None:
            self.log_to.write(f"engine: {text}\n")
            self.log_to.flush()

    def _reader(self) -> None:
        try:
            for raw in self.inp:
                line = raw.strip()
                if not line:
                    continue
                if line.split(" ", 1)[0] in INTERRUPTING:
                    self.interrupt.set()
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.interrupt.set()
        self.lines.put(None)

    def run(self) -> int:
        """Say hello, then serve commands until ``goodbye`` or the end of input."""
        threading.Thread(target=self._reader, name="otep-reader", daemon=True).start()
        self.send("hello")
        while self.running:
            line = self.lines.get()
            if line is None:
                break
            if self.lines.empty():
                self.interrupt.clear()
            self.run_line(line)
        return 0

    def run_line(self, line: str) -> None:
        """Serve one command; a bad one is answered with ``status error: ...``."""
        try:
            self.handle(line)
        except (RulesError, MoveError, PositionError, ValueError) as exc:
            self.log(f"{line.split(' ', 1)[0]}: {exc}")
            self.send(f"status error: {exc}")

    # -- commands -----------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        handler = getattr(self, "cmd_" + word.replace("-", "_"), None)
        if handler is None:
            return  # unknown commands are ignored (OTEP)
        handler(rest.strip())

    def engine_for(self, rules: RuleSet, timed: bool = False) -> Engine:
        """The engine of ``rules`` at the level chosen, or (no level chosen) at full strength
        when the move is ``timed`` and at the default level when it is not."""
        level = self.level or get_level(FULL_STRENGTH if timed else DEFAULT_LEVEL)
        engine = self.engines.get((rules, level.number))
        if engine is None:
            engine = self.engines[rules, level.number] = Engine(rules, level, self.seed)
        return engine

    def need_board(self) -> Board:
        if self.board is None:
            raise RulesError("no rules yet: send 'rules <OTR>' first")
        return self.board

    def cmd_hello(self, rest: str) -> None:
        pass  # OpenTafl's host echoes our hello

    def cmd_rules(self, rest: str) -> None:
        rules, position, turn = parse_otr(rest)
        self.board = Board(rules, position, turn)
        for (played, _), engine in self.engines.items():
            if played == rules:
                engine.new_game()
        self.clock = None
        self.log(f"rules {rules.id}, {turn} to move")

    def cmd_position(self, rest: str) -> None:
        board = self.need_board()
        self.board = Board(board.rules, rest.split()[0], board.turn)

    def cmd_side(self, rest: str) -> None:
        board = self.need_board()
        side = rest.split()[0] if rest else ""
        if side not in (ATTACKERS, DEFENDERS):
            raise RulesError(f"side must be attackers or defenders, not {side!r}")
        if board.turn != side:
            self.board = Board(board.rules, board.otn(), side)

    def _resync(self, position: str | None, turn: str) -> None:
        """Trust the host's position record when ours differs (history is then lost)."""
        board = self.need_board()
        if position and position != board.otn():
            self.log("position differs from the host's record: resynchronised")
            self.board = Board(board.rules, position, turn)
        elif board.turn != turn and board.outcome() is None:
            self.board = Board(board.rules, board.otn(), turn)

    def _play_text(self, board: Board, text: str) -> bool:
        try:
            move, _ = board.parse_move(simple_move(text))
            board.push(move)
            return True
        except (MoveError, ValueError) as exc:
            self.log(f"cannot play {text!r}: {exc}")
            return False

    def cmd_opponent_move(self, rest: str) -> None:
        board = self.need_board()
        parts = rest.split()
        if not parts:
            raise RulesError("opponent-move needs a move")
        mover = board.turn
        moves = parts[0].split("|")
        position = parts[1] if len(parts) > 1 else None
        if len(moves) == 1 and self._play_text(board, moves[0]):
            self._resync(position, board.turn)
        elif position is not None:
            # the host says the opponent moved: its record, with the turn passed on
            self._resync(position, DEFENDERS if mover == ATTACKERS else ATTACKERS)
        else:
            # neither a move nor a record to follow: the game stays as it was (the side to
            # move never changes without a move)
            raise RulesError(f"opponent-move: cannot play {parts[0]!r} and no position given")

    def cmd_move(self, rest: str) -> None:
        board = self.need_board()
        if rest:
            self._resync(rest.split()[0], board.turn)

    def cmd_error(self, rest: str) -> None:
        board = self.need_board()
        code = rest.split()[0] if rest else "?"
        self.log(f"the host rejected our move (error {code})")
        if code in ("1", "2", "3", "4", "5", "6") and board.move_stack:
            board.pop()

    def cmd_clock(self, rest: str) -> None:
        parts = rest.split()
        if len(parts) < 2:
            return

        def ms(word: str) -> tuple[float, bool]:
            over = word.endswith("*")
            return float(word.rstrip("*")) / 1000.0, over

        try:
            (att, att_ot), (dfn, dfn_ot) = ms(parts[0]), ms(parts[1])
            ot = float(parts[2]) if len(parts) > 2 else 0.0
            att_n = int(parts[3]) if len(parts) > 3 else 0
            dfn_n = int(parts[4]) if len(parts) > 4 else 0
        except ValueError:
            raise RulesError(f"clock: not numbers: {rest!r}") from None
        self.clock = OtepClock(att, att_ot, dfn, dfn_ot, ot, att_n, dfn_n)

    def budget(self, side: str) -> Budget | None:
        """The time for the next move of ``side``: the time per move (``--time``) and the
        clock's budget (:mod:`.timing`), the lower of the two; None when neither is given."""
        out = per_move(self.movetime) if self.movetime is not None else None
        c = self.clock
        if c is not None:
            if side == ATTACKERS:
                on_clock = from_clock(c.attackers, c.attackers_overtime, c.period,
                                      c.attackers_periods)
            else:
                on_clock = from_clock(c.defenders, c.defenders_overtime, c.period,
                                      c.defenders_periods)
            out = on_clock if out is None else on_clock.capped(out.hard)
        return out

    def cmd_play(self, rest: str) -> None:
        board = self.need_board()
        side = rest.split()[0] if rest else board.turn
        if side not in (ATTACKERS, DEFENDERS):
            raise RulesError(f"play: side must be attackers or defenders, not {side!r}")
        if board.turn != side:
            self.log(f"asked to play {side} with {board.turn} to move: the host's side taken")
            self._resync(None, side)
            board = self.need_board()
        if board.outcome() is not None:
            self.send("error 0 the game is over: no move to play")
            return
        budget = self.budget(side)
        engine = self.engine_for(board.rules, timed=budget is not None)
        pos = Position.from_board(board)
        started = time.monotonic()
        last = [0.0]

        def info(i: Info) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.2 or i.depth <= 1:
                last[0] = now
                self.send(self.status_line(i))

        choice = engine.choose(pos, stop=self.interrupt, on_info=info, budget=budget)
        if self.interrupt.is_set():
            self.log("search stopped by a new command; its move is not sent")
            return
        self.send(
            f"status depth {choice.depth} score {score_words(choice.score)} nodes "
            f"{choice.nodes} time {time.monotonic() - started:.2f} pv {' '.join(choice.pv)}"
        )
        move, _ = board.parse_move(choice.move)
        board.push(move)
        self.send(f"move {choice.move}")

    @staticmethod
    def status_line(i: Info) -> str:
        return (f"status depth {i.depth} score {score_words(i.score)} nodes {i.nodes} time "
                f"{i.seconds:.2f} pv {' '.join(i.texts[:12])}")

    def cmd_analyze(self, rest: str) -> None:
        board = self.need_board()
        parts = rest.split()
        try:
            count = int(parts[0]) if parts else 1
            seconds = float(parts[1]) if len(parts) > 1 else 5.0
        except ValueError:
            raise RulesError(f"analyze: expected <number> <seconds>, not {rest!r}") from None
        if board.outcome() is not None:
            self.send("analysis 0")
            return
        lines = self.engine_for(board.rules, timed=True).analyze(
            board, max(count, 1), max(seconds, 0.05), stop=self.interrupt,
            on_info=lambda i: self.send(self.status_line(i)),
        )
        if self.interrupt.is_set():
            return
        words = [f"analysis {len(lines)}"]
        for line, score in lines:
            words.append("|".join(line))
            words.append(analysis_eval(score))
        self.send(" ".join(words))

    def cmd_finish(self, rest: str) -> None:
        self.log(f"finish {rest}")

    def cmd_goodbye(self, rest: str) -> None:
        self.running = False

    def cmd_stop(self, rest: str) -> None:
        pass  # the reader already interrupted the search


def cmd_engine(args: argparse.Namespace) -> int:
    """``tafl-companion engine``: OTEP on stdin/stdout."""
    if args.time is not None and args.time <= 0:
        raise ValueError(f"--time must be positive, not {args.time}")
    engine = OtepEngine(sys.stdin, sys.stdout, args.level, args.seed, args.time, sys.stderr)
    return engine.run()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``engine`` command to the command line."""
    p = sub.add_parser("engine", help="the built-in engine speaking OTEP on stdin/stdout")
    p.add_argument("--level", type=_level, default=None,
                   help="playing level 1-10 (default: full strength for the time a clock or "
                   f"--time gives, level {DEFAULT_LEVEL} without)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weak levels' choices")
    p.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help="time per move (default: the level's)")
    p.add_argument("--otep", action="store_true",
                   help="accepted and ignored (OpenTafl's .ini passes an argument)")
    p.set_defaults(func=cmd_engine)


def _level(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"level must be 1 to 10, not {text!r}") from None
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError(f"level must be 1 to 10, not {value}")
    return value
