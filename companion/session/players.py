"""Players: who makes each side's moves, and the seam the computer players plug into.

A player spec (``run --attackers SPEC``, the config's ``[players]``, the API)::

    board               a person at the board (the default)
    page                a person on a phone, through a player link
    computer[:LEVEL]    the built-in engine, LEVEL 1-10 (default 5)
    engine:COMMAND      an external engine speaking OTEP

``board`` and ``page`` players need nothing from the session but a place in the state; the
computer players implement :class:`MovePlayer` (:class:`EnginePlayer`, on the engine's OTEP
host): the session asks them for a move when their side is to move (``request``), polls them
without blocking (``poll``), shows the answer as the move to make, and cancels them on a
takeback or a new game.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from companion.rules.game import Game

if TYPE_CHECKING:
    from companion.engine import EngineMove, Pending


class PlayerKind(StrEnum):
    BOARD = "board"
    PAGE = "page"
    COMPUTER = "computer"
    ENGINE = "engine"


class PlayerError(ValueError):
    """A player spec that cannot be used; the message is one line for the user."""


_NAME_OK = re.compile(r"^[^\x00-\x1f\x7f]{1,40}$")
DEFAULT_LEVEL = 5


@dataclass(frozen=True)
class PlayerSpec:
    """One side's player: kind, display name, computer level or engine command."""

    kind: PlayerKind = PlayerKind.BOARD
    name: str = ""
    level: int | None = None
    command: str | None = None

    @classmethod
    def parse(cls, text: str, name: str = "", where: str = "player") -> PlayerSpec:
        """``board``, ``page``, ``computer``, ``computer:3`` or ``engine:COMMAND``."""
        if not isinstance(text, str) or not text.strip():
            raise PlayerError(f"{where} must be board, page, computer[:LEVEL] or "
                              "engine:COMMAND")
        text = text.strip()
        kind, _, arg = text.partition(":")
        if kind == "board" and not arg:
            return cls(PlayerKind.BOARD, name)
        if kind == "page" and not arg:
            return cls(PlayerKind.PAGE, name)
        if kind == "computer":
            if not arg:
                return cls(PlayerKind.COMPUTER, name, DEFAULT_LEVEL)
            if not arg.isascii() or not arg.isdigit() or not 1 <= int(arg) <= 10:
                raise PlayerError(f"{where} {text!r}: the computer's level is 1 to 10")
            return cls(PlayerKind.COMPUTER, name, int(arg))
        if kind == "engine":
            if not arg.strip():
                raise PlayerError(f"{where} {text!r}: engine:COMMAND needs the engine's command")
            return cls(PlayerKind.ENGINE, name, command=arg.strip())
        raise PlayerError(f"{where} {text!r}: expected board, page, computer[:LEVEL] or "
                          "engine:COMMAND")

    @property
    def spec(self) -> str:
        """The spec text this player was made from."""
        if self.kind is PlayerKind.COMPUTER:
            return f"computer:{self.level}"
        if self.kind is PlayerKind.ENGINE:
            return f"engine:{self.command}"
        return self.kind.value

    @property
    def moves_off_board(self) -> bool:
        """Whether this side's moves are chosen elsewhere and made at the board by hand."""
        return self.kind is not PlayerKind.BOARD

    def named(self, name: str) -> PlayerSpec:
        return PlayerSpec(self.kind, name, self.level, self.command)

    def to_json(self) -> dict:
        out: dict = {"name": self.name, "kind": self.kind.value}
        if self.level is not None:
            out["level"] = self.level
        if self.command is not None:
            out["command"] = self.command
        return out


def check_name(value: object, where: str = "name") -> str:
    """A player's display name: 1-40 printable characters."""
    if not isinstance(value, str) or not _NAME_OK.match(value.strip() or "\0"):
        raise PlayerError(f"{where} must be 1 to 40 printable characters")
    return value.strip()


@dataclass(frozen=True)
class ChosenMove:
    """What a computer player answered: a move (``"g3-e3"``), or a resignation."""

    move: str | None
    resigned: bool = False
    note: str = ""


class MovePlayer(Protocol):
    """A player that chooses moves itself (the computer, an external engine). Never blocks the
    caller: :meth:`request` starts thinking, :meth:`poll` returns the answer once it is ready."""

    def request(self, game: Game, clock: dict[str, float] | None) -> None:
        """Start choosing a move for the side to move of ``game`` (``clock``: seconds left per
        side, or None without a clock)."""
        ...

    def poll(self) -> ChosenMove | None:
        """The answer once ready, else None; PlayerError (one line, for the page) when the
        player failed: crashed, silent, garbage, an illegal move."""
        ...

    def cancel(self) -> None:
        """Stop thinking at once (a takeback, a new game)."""
        ...

    def close(self) -> None:
        ...


class EnginePlayer:
    """A computer player on the engine host (``companion.engine.OtepHost``): the built-in
    engine (``computer[:LEVEL]``, run as a child process) or any OTEP engine
    (``engine:COMMAND``). The search never runs in the session's thread."""

    def __init__(self, spec: PlayerSpec, seed: int = 0) -> None:
        from companion.engine import OtepHost, builtin_engine_command

        if spec.kind is PlayerKind.COMPUTER:
            argv = builtin_engine_command(level=spec.level or DEFAULT_LEVEL, seed=seed)
            name = f"computer {spec.level}"
        elif spec.kind is PlayerKind.ENGINE and spec.command:
            argv, name = shlex.split(spec.command), spec.command
        else:
            raise PlayerError(f"{spec.spec} is not a computer player")
        self.spec = spec
        self.host = OtepHost(argv, name=name)
        self._pending: Pending[EngineMove] | None = None

    def request(self, game: Game, clock: dict[str, float] | None) -> None:
        seconds = None
        times = None
        if clock is not None:
            mine = clock[game.turn]
            seconds = max(0.2, min(mine / 30.0, mine / 4.0))
            times = (clock["attackers"], clock["defenders"])
        self._pending = self.host.request_move(game.board, seconds=seconds, clock=times)

    def poll(self) -> ChosenMove | None:
        from companion.engine import EngineError

        pending = self._pending
        if pending is None or not pending.done():
            return None
        self._pending = None
        try:
            answer = pending.result(0)
        except EngineError as exc:
            raise PlayerError(str(exc)) from None
        if answer.resigned or answer.move is None:
            return ChosenMove(None, True, answer.message)
        return ChosenMove(answer.move)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def close(self) -> None:
        self.cancel()
        self.host.close()


def check_move_player(spec: PlayerSpec, side: str) -> None:
    """PlayerError (one line) when a computer player cannot be started: an engine command that
    does not parse or does not exist. Board and page players pass."""
    if spec.kind is PlayerKind.ENGINE:
        try:
            argv = shlex.split(spec.command or "")
        except ValueError as exc:
            raise PlayerError(f"--{side} {spec.spec}: {exc}") from None
        if not argv:
            raise PlayerError(f"--{side} {spec.spec}: the engine command is empty")
        if shutil.which(argv[0]) is None and not os.path.exists(argv[0]):
            raise PlayerError(f"--{side} {spec.spec}: no such engine command {argv[0]!r}")


def open_move_player(spec: PlayerSpec, side: str, seed: int = 0) -> MovePlayer:
    """The MovePlayer for a computer or engine spec; PlayerError with one clear line when it
    cannot be used (no such engine command)."""
    check_move_player(spec, side)
    try:
        return EnginePlayer(spec, seed)
    except (ValueError, OSError) as exc:
        raise PlayerError(f"--{side} {spec.spec}: {exc}") from None
