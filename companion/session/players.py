"""Players: who makes each side's moves, and the seam the computer players plug into.

A player spec (``run --attackers SPEC``, the config's ``[players]``, the API)::

    board               a person at the board (the default)
    page                a person on a phone, through a player link
    computer[:LEVEL]    the built-in engine, LEVEL 1-10 (default 5)
    engine:COMMAND      an external engine speaking OTEP

``board`` and ``page`` players need nothing from the session but a place in the state; the
computer players implement :class:`MovePlayer`: the session asks them for a move when their side
is to move (``request``), polls them without blocking (``poll``), and tells them what happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from companion.rules.game import Game


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


class MovePlayer(Protocol):
    """A player that chooses moves itself (the computer, an external engine). Never blocks the
    caller: :meth:`request` starts thinking, :meth:`poll` returns the move once it is ready."""

    def request(self, game: Game, clock: dict | None) -> None:
        """Start choosing a move for the side to move of ``game``."""
        ...

    def poll(self) -> str | None:
        """The chosen move (``"g3-e3"``) once ready, else None; raises PlayerError on a
        failure (crash, silence, an illegal move) with a one-line message."""
        ...

    def cancel(self) -> None:
        """Stop thinking (a takeback, a new game)."""
        ...

    def close(self) -> None:
        ...


def open_move_player(spec: PlayerSpec, side: str) -> MovePlayer:
    """The MovePlayer for a computer or engine spec. The engine host is not wired into the
    session yet: PlayerError with one clear line until it is."""
    raise PlayerError(
        f"--{side} {spec.spec}: playing the computer is not available in this version yet "
        "(use board or page)")
