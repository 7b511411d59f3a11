"""Players: who makes each side's moves, and the seam the computer players plug into.

A player spec (``run --attackers SPEC``, the config's ``[players]``, the API)::

    board               a person at the board (the default)
    page                a person on a phone, through a player link
    computer[:LEVEL]    the built-in engine, LEVEL 1-10 (default 6, docs/engine.md)
    engine:COMMAND      an external engine speaking OTEP
    online              the opponent of a game on an online tafl server (hnefatafl.org)
    club:BOARD          the person at another board of the club (its name in the club)

The API gives the same as JSON (:func:`spec_from_json`), with ``seconds`` per move for the
computer players; an engine command from the network is only run when the config allows it.

``board`` and ``page`` players need nothing from the session but a place in the state; the
computer players implement :class:`MovePlayer` (:class:`EnginePlayer`, on the engine's OTEP
host): the session asks them for a move when their side is to move (``request``), polls them
without blocking (``poll``), shows the answer as the move to make, and cancels them on a
takeback or a new game.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, Required, TypedDict

from companion.rules.game import Game
from companion.session.results import PlayerJSON

if TYPE_CHECKING:
    from concurrent.futures import Future

    from companion.engine import EngineMove
    from companion.engine.otep_answers import Thinking


class Searching(TypedDict, total=False):
    """A computer player's :attr:`ComputerPlayer.thinking`: since when (monotonic) and what
    its engine last said of its search (depth, ``cp`` or ``mate``, nodes, seconds, line)."""

    since: Required[float]
    depth: int
    cp: int
    mate: int
    nodes: int
    seconds: float
    pv: list[str]


class PlayerKind(StrEnum):
    BOARD = "board"
    PAGE = "page"
    COMPUTER = "computer"
    ENGINE = "engine"
    ONLINE = "online"  # a player at a distance (companion.session.remote)
    CLUB = "club"


#: The kinds of player at a distance: their moves arrive through the session's inbox.
REMOTE_KINDS = frozenset({PlayerKind.ONLINE, PlayerKind.CLUB})
_PEER = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")  # as the club names its boards
_KINDS_TEXT = "board, page, computer[:LEVEL], engine:COMMAND, online or club:BOARD"


class PlayerError(ValueError):
    """A player spec that cannot be used; the message is one line for the user."""


_NAME_OK = re.compile(r"^[^\x00-\x1f\x7f]{1,40}$")
DEFAULT_LEVEL = 6  # the engine's default level (companion.engine.levels.DEFAULT_LEVEL)
ENGINE_SECONDS = 30.0  # an external engine without a clock or ``seconds``: silent after this
MAX_SECONDS = 600.0


@dataclass(frozen=True)
class PlayerSpec:
    """One side's player: kind, display name, computer level or engine command."""

    kind: PlayerKind = PlayerKind.BOARD
    name: str = ""
    level: int | None = None
    command: str | None = None
    seconds: float | None = None  # the computer players' time per move (None: their own)
    peer: str | None = None  # club: the other board's name in the club
    rating: float | None = None  # online: the opponent's rating on the server

    @classmethod
    def parse(cls, text: str, name: str = "", where: str = "player") -> PlayerSpec:
        """``board``, ``page``, ``computer``, ``computer:3``, ``engine:COMMAND``, ``online``
        or ``club:BOARD``."""
        if not isinstance(text, str) or not text.strip():
            raise PlayerError(f"{where} must be {_KINDS_TEXT}")
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
        if kind == "online" and not arg:
            return cls(PlayerKind.ONLINE, name)
        if kind == "club":
            if not _PEER.match(arg):
                raise PlayerError(f"{where} {text!r}: club:BOARD needs the other board's name "
                                  "in the club (1-32 small letters, digits, '_' or '-')")
            return cls(PlayerKind.CLUB, name, peer=arg)
        raise PlayerError(f"{where} {text!r}: expected {_KINDS_TEXT}")

    @property
    def spec(self) -> str:
        """The spec text this player was made from."""
        if self.kind is PlayerKind.COMPUTER:
            return f"computer:{self.level}"
        if self.kind is PlayerKind.ENGINE:
            return f"engine:{self.command}"
        if self.kind is PlayerKind.CLUB:
            return f"club:{self.peer}"
        return self.kind.value

    @property
    def moves_off_board(self) -> bool:
        """Whether this side's moves are chosen elsewhere and made at the board by hand."""
        return self.kind is not PlayerKind.BOARD

    @property
    def is_computer(self) -> bool:
        """Whether a computer (the built-in engine or an external one) plays this side."""
        return self.kind in (PlayerKind.COMPUTER, PlayerKind.ENGINE)

    @property
    def is_remote(self) -> bool:
        """Whether a player at a distance (online, another board of the club) plays this
        side."""
        return self.kind in REMOTE_KINDS

    def named(self, name: str) -> PlayerSpec:
        return replace(self, name=name)

    def to_json(self) -> PlayerJSON:
        out: PlayerJSON = {"name": self.name, "kind": self.kind.value}
        if self.level is not None:
            out["level"] = self.level
        if self.command is not None:
            out["command"] = self.command
        if self.seconds is not None:
            out["seconds"] = self.seconds
        if self.peer is not None:
            out["board"] = self.peer
        if self.rating is not None:
            out["rating"] = self.rating
        return out

    @classmethod
    def from_stored(cls, data: Mapping[str, Any], default_name: str) -> PlayerSpec:
        """A player as stored with a game (``to_json``); a board player when it cannot be
        read."""
        name = str(data.get("name", default_name))
        try:
            kind = PlayerKind(str(data.get("kind", "board")))
            seconds = data.get("seconds")
            seconds = float(seconds) if isinstance(seconds, int | float) else None
            if kind is PlayerKind.COMPUTER:
                return cls(kind, name, int(data.get("level") or DEFAULT_LEVEL), None, seconds)
            if kind is PlayerKind.ENGINE and data.get("command"):
                return cls(kind, name, None, str(data["command"]), seconds)
            if kind is PlayerKind.ENGINE:
                raise ValueError("an engine without a command")
            if kind in REMOTE_KINDS:
                peer, rating = data.get("board"), data.get("rating")
                return cls(kind, name, peer=str(peer) if isinstance(peer, str) else None,
                           rating=float(rating) if isinstance(rating, int | float) else None)
            return cls(kind, name)
        except (ValueError, TypeError):
            return cls(PlayerKind.BOARD, name)


MACHINE_NAMES = {PlayerKind.COMPUTER: "Computer", PlayerKind.ENGINE: "Engine"}


def _machine(kind: PlayerKind) -> bool:
    return kind in MACHINE_NAMES


def spec_from_json(value: Mapping[str, Any], base: PlayerSpec, where: str,
                   engine_allowed: Callable[[str], bool] = lambda command: False, *,
                   club_ok: bool = False) -> PlayerSpec:
    """A side's player from the API: ``{"name"?, "kind"?, "level"?, "seconds"?, "command"?}``
    on top of ``base`` (what is not given stays, but a side handed from a person to the computer
    or back without a name gets a name of its own: "Computer", "Engine", "Player 1"/"Player 2"
    by ``where``, the side). With ``club_ok`` (a new game) also ``{"kind": "club", "board":
    NAME}``: another board of the club. PlayerError (one line) for a bad field;
    :class:`EngineNotAllowed` for an engine command the config does not allow."""
    known = {"name", "kind", "level", "seconds", "command"} | ({"board"} if club_ok else set())
    unknown = sorted(str(k) for k in value if k not in known)
    if unknown:
        raise PlayerError(f"{where}: unknown field {unknown[0]!r} (known: "
                          f"{', '.join(sorted(known))})")
    kind_text = value.get("kind", base.kind.value)
    if club_ok and kind_text == PlayerKind.CLUB.value:
        return _club_spec(value, base, where)
    if "board" in value:
        raise PlayerError(f"{where}: board is for a player at another board of the club")
    if kind_text in [k.value for k in REMOTE_KINDS] and kind_text != base.kind.value:
        raise PlayerError(f"{where}: a player at a distance ({kind_text}) joins through the "
                          f"{kind_text} game's own start, not as a player setting")
    if kind_text not in [k.value for k in PlayerKind]:
        raise PlayerError(f"{where}: kind must be board, page, computer or engine, not "
                          f"{kind_text!r}")
    kind = PlayerKind(kind_text)
    if "name" in value:
        name = check_name(value["name"], f"{where} name")
    elif _machine(kind) != _machine(base.kind):
        # a person never inherits the computer's name nor the computer a person's (its games
        # would count in that person's results)
        name = MACHINE_NAMES[kind] if _machine(kind) else (
            "Player 1" if where == "attackers" else "Player 2")
    else:
        name = base.name
    same = kind is base.kind
    for key in ("level", "seconds", "command"):
        if key in value and not _applies(kind, key):
            raise PlayerError(f"{where}: {key} is for "
                              f"{'a computer' if key == 'level' else 'an engine'} player")
    seconds = value.get("seconds", base.seconds if same else None)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(
            seconds, int | float) or not math.isfinite(seconds)
            or not 0.1 <= seconds <= MAX_SECONDS):
        raise PlayerError(f"{where}: seconds must be a number from 0.1 to {MAX_SECONDS:g}, "
                          f"not {seconds!r}")
    if kind is PlayerKind.COMPUTER:
        level = value.get("level", base.level if same else DEFAULT_LEVEL)
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
            raise PlayerError(f"{where}: level must be a whole number from 1 to 10, not "
                              f"{level!r}")
        return PlayerSpec(kind, name, level, None, None if seconds is None else float(seconds))
    if kind is PlayerKind.ENGINE:
        command = value.get("command", base.command if same else None)
        if not isinstance(command, str) or not command.strip() or len(command) > 500 or any(
                c in command for c in "\x00\n\r"):
            raise PlayerError(f"{where}: an engine player needs its \"command\" (one line)")
        command = command.strip()
        if not (same and command == base.command) and not engine_allowed(command):
            raise EngineNotAllowed(f"{where}: the engine command {command!r} is not allowed "
                                   "from the page: list it in the config's [computer] engines")
        return PlayerSpec(kind, name, None, command, None if seconds is None else float(seconds))
    if kind in REMOTE_KINDS:
        return replace(base, name=name)
    return PlayerSpec(kind, name)


def _club_spec(value: Mapping[str, Any], base: PlayerSpec, where: str) -> PlayerSpec:
    """``{"kind": "club", "board": NAME, "name"?}``: the person at that board of the club."""
    board = value.get("board", base.peer if base.kind is PlayerKind.CLUB else None)
    if not isinstance(board, str) or not _PEER.match(board):
        raise PlayerError(f"{where}: a board of the club needs \"board\": its name in the club "
                          "(1-32 small letters, digits, '_' or '-')")
    for key in ("level", "seconds", "command"):
        if key in value:
            raise PlayerError(f"{where}: {key} is not for a player at another board")
    name = check_name(value["name"], f"{where} name") if "name" in value else board
    return PlayerSpec(PlayerKind.CLUB, name, peer=board)


def _applies(kind: PlayerKind, key: str) -> bool:
    if key == "level":
        return kind is PlayerKind.COMPUTER
    if key == "command":
        return kind is PlayerKind.ENGINE
    return kind in (PlayerKind.COMPUTER, PlayerKind.ENGINE)


class EngineNotAllowed(PlayerError):
    """An engine command the config does not allow from the network."""


def check_name(value: object, where: str = "name") -> str:
    """A player's display name: 1-40 printable characters."""
    if not isinstance(value, str) or not _NAME_OK.match(value.strip() or "\0"):
        raise PlayerError(f"{where} must be 1 to 40 printable characters")
    return value.strip()


@dataclass(frozen=True)
class ChosenMove:
    """What a computer player answered: a move (``"g3-e3"``), or a resignation; with the
    engine's evaluation for its own side when it gave one (``score`` hundredths of a soldier,
    ``mate`` plies to a forced result, negative: it is losing)."""

    move: str | None
    resigned: bool = False
    note: str = ""
    score: int | None = None
    mate: int | None = None


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

    @property
    def thinking(self) -> Searching | None:
        """While it thinks: ``{"since": monotonic time}`` plus its last reported search
        (``depth``, ``cp`` or ``mate``, ``pv``); None otherwise. Never blocks."""
        ...

    def close(self) -> None:
        ...


class EnginePlayer:
    """A computer player on the engine host (``companion.engine.OtepHost``): the built-in
    engine (``computer[:LEVEL]``, run as a child process) or any OTEP engine
    (``engine:COMMAND``). The search never runs in the session's thread."""

    def __init__(self, spec: PlayerSpec, seed: int = 0, grace: float = 3.0) -> None:
        from companion.engine import OtepHost, builtin_engine_command, get_level

        if spec.kind is PlayerKind.COMPUTER:
            level = spec.level or DEFAULT_LEVEL
            # the longest it may think: its level's cap, lowered by ``seconds``; the engine is
            # told the same (told ``seconds`` above the cap, it thought past the host's deadline
            # and every move failed: "did not answer within 25.0 s" at level 10 with 30 s)
            self.budget = min(get_level(level).seconds, spec.seconds or 1e9)
            argv = builtin_engine_command(level=level, seed=seed,
                                          seconds=self.budget if spec.seconds else None)
            name = f"computer {level}"
        elif spec.kind is PlayerKind.ENGINE and spec.command:
            argv, name = shlex.split(spec.command), spec.command
            self.budget = spec.seconds or ENGINE_SECONDS
        else:
            raise PlayerError(f"{spec.spec} is not a computer player")
        self.spec = spec
        self.host = OtepHost(argv, name=name, grace=grace)
        self._pending: Future[EngineMove] | None = None
        self._since = 0.0

    def request(self, game: Game, clock: dict[str, float] | None) -> None:
        seconds = self.budget
        times = None
        if clock is not None:
            times = (clock["attackers"], clock["defenders"])
            if self.spec.kind is PlayerKind.ENGINE and self.spec.seconds is None:
                seconds = max(clock[game.turn], 0.1)  # its clock is its limit
        self.host.thinking = None
        self._since = time.monotonic()
        self._pending = self.host.request_move(game.board, seconds=seconds, clock=times)

    @property
    def thinking(self) -> Searching | None:
        pending = self._pending
        if pending is None or pending.done():
            return None
        seen: Thinking = self.host.thinking or {}
        return Searching(since=self._since, **seen)

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
        return ChosenMove(answer.move, score=answer.score, mate=answer.mate)

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
