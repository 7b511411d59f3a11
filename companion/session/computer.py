"""The computer at the board: the computer players' seats, their turns, what the page sees while
one thinks, when it resigns, and how a takeback against it works.

The computer players (:class:`~companion.session.players.MovePlayer`: the built-in engine or an
external OTEP engine, each a child process) are asked for a move when their side is to move and
polled without blocking at every loop step (:meth:`Computers.step`); the answer is a
:data:`Decision` the session applies: the move to make at the board, a resignation, or a
failure shown on the page. While one thinks, ``thinking`` in the page state shows its depth,
score and best move, sampled at most twice a second.

Policy (config ``[computer]``, :class:`ComputerConfig`):

* it **resigns** a hopeless position: when ``resign_moves`` of its own moves in a row were
  scored at or below ``-resign_threshold`` soldiers, or it sees a forced loss;
* it **answers a draw offer** by its evaluation of the position (:mod:`companion.session.
  advice`): it accepts when it stands no better than ``draw_threshold`` soldiers;
* a **takeback** against it undoes the person's last move and its reply (:func:`takeback_plies`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from companion.rules.game import Game
from companion.session.actors import Actor, Role
from companion.session.players import (
    MovePlayer,
    PlayerError,
    PlayerKind,
    PlayerSpec,
    open_move_player,
)

log = logging.getLogger("companion.session")
SIDES = ("attackers", "defenders")

THINKING_EVERY = 0.5  # seconds between two samples of the engine's thinking
RETRY_S = 5.0  # a failed computer player is asked again after this
HAND_TAKEBACK_HOLD = 3.0  # after its move is taken back by hand, the computer waits this long


@dataclass(frozen=True)
class ComputerConfig:
    """The config's ``[computer]`` table (docs/session.md)."""

    resign: bool = True
    resign_threshold: float = 8.0  # soldiers
    resign_moves: int = 2
    draw: bool = True  # answer draw offers by evaluation (False: always decline)
    draw_threshold: float = 0.0  # accepts when it stands no better than this (soldiers)
    hint_seconds: float = 1.0
    draw_seconds: float = 1.0
    analysis_seconds: float = 1.0
    engines: tuple[str, ...] = ()  # engine commands the owner may choose on the page
    any_engine: bool = False  # any command from the page (only on a trusted network)


class Thinking(TypedDict, total=False):
    """``thinking`` in the page state while a computer chooses its move."""

    side: str
    by: str
    since: float
    depth: int
    score: float | None
    mate: int
    best: str
    pv: list[str]


class PlayerFailure(TypedDict):
    """``player_error`` in the page state: the computer player of a side failed."""

    side: str
    message: str


@dataclass(frozen=True)
class Chose:
    """The computer of ``side`` chose ``move`` (``"g3-e3"``); ``score`` in soldiers for it."""

    side: str
    move: str
    by: str
    score: float | None


@dataclass(frozen=True)
class Resigns:
    side: str
    why: str


@dataclass(frozen=True)
class Failed:
    side: str
    message: str


Decision = Chose | Resigns | Failed


def computer_actor(side: str) -> Actor:
    """The computer playing ``side``: it acts with the owner's rights, and its events carry
    ``by`` = its side."""
    return Actor(Role.OWNER, side, "computer")


def computer_sides(players: Mapping[str, PlayerSpec]) -> set[str]:
    return {side for side in SIDES if players[side].is_computer}


def takeback_plies(game: Game, players: Mapping[str, PlayerSpec]) -> int:
    """How many plies a takeback undoes: against the computer, the computer's replies on top
    and the person's last move (0: the person has no move to take back); else one."""
    played = game.played
    computers = computer_sides(players)
    if len(computers) != 1:
        return 1 if played else 0
    computer = next(iter(computers))
    n = 0
    while n < len(played) and played[-1 - n].side == computer:
        n += 1
    return n + 1 if n < len(played) else 0


def engine_allowed(cfg: ComputerConfig, players: Mapping[str, PlayerSpec], command: str) -> bool:
    """Whether the owner may start ``command`` from the page: listed in ``[computer]
    engines``, given on the command line or in ``[players]``, or ``any_engine``."""
    if cfg.any_engine:
        return True
    configured = {p.command for p in players.values()
                  if p.kind is PlayerKind.ENGINE and p.command}
    return command.strip() in {c.strip() for c in cfg.engines} | configured


class Computers:
    """The computer players' seats: their processes, what was asked of them, their thinking,
    failures and hopeless moves in a row (see the module docstring)."""

    def __init__(self, open_player: Callable[[PlayerSpec, str, int], MovePlayer] = (
            lambda spec, side, seed: open_move_player(spec, side, seed))) -> None:
        self._open = open_player
        self.players: dict[str, tuple[PlayerSpec, MovePlayer]] = {}
        self._asked: tuple[str, int] | None = None  # (side, ply) of the pending request
        self._asked_wall = 0.0
        self._thinking_at = -1e9
        self._retry_at = 0.0
        self.thinking: Thinking | None = None
        self.error: PlayerFailure | None = None
        self._hopeless: dict[str, int] = {}

    def player(self, side: str) -> MovePlayer | None:
        entry = self.players.get(side)
        return entry[1] if entry else None

    def sync(self, specs: Mapping[str, PlayerSpec], seed: int) -> None:
        """Start the computer players of these sides, stop those no longer playing."""
        for side in SIDES:
            spec = specs[side]
            have = self.players.get(side)
            if have is not None and (have[0] != spec or not spec.is_computer):
                have[1].close()
                del self.players[side]
                have = None
            if have is None and spec.is_computer:
                self.players[side] = (spec, self._open(spec, side, seed))
        self._asked = None
        self.thinking = None

    def cancel(self) -> bool:
        """Stop any thinking at once (a takeback, a new game, the end of the game); True when a
        computer was thinking."""
        was = self.thinking is not None
        for _, player in self.players.values():
            player.cancel()
        self._asked = None
        self.thinking = None
        return was

    def forget_hopeless(self) -> None:
        self._hopeless = {}

    def ask_again(self) -> None:
        """Its answer could not be taken (the store failed): it is asked afresh."""
        self._asked = None

    def hold_after_hand_takeback(self, side: str, now: float) -> None:
        """The hands at the board took back the computer's move: it waits a moment before
        choosing again, so the person can take back his own move too."""
        if side in self.players:
            self._retry_at = max(self._retry_at, now + HAND_TAKEBACK_HOLD)
        self._hopeless = {}

    def close(self) -> None:
        for _, player in self.players.values():
            player.close()
        self.players.clear()

    # -- its turn -----------------------------------------------------------------------------
    def step(self, game: Game, now: float, wall: float, cfg: ComputerConfig, *,
             may_ask: bool, waiting: bool, clock: Callable[[], dict[str, float] | None]
             ) -> Decision | None:
        """Ask the computer for its move when it is its turn (``may_ask``: the store writes;
        ``waiting``: a move to make waits at the board), poll it, and say what it decided."""
        side, ply = game.turn, len(game.played)
        if self._asked is not None and self._asked != (side, ply):
            # the position changed while it thought (its move was made by hand meanwhile): the
            # search is for a position that is gone; it is asked afresh on its turn
            asked = self.players.get(self._asked[0])
            if asked is not None:
                asked[1].cancel()
            self._asked = None
            self.thinking = None
        entry = self.players.get(side)
        if entry is None or game.is_over() or waiting:
            self.thinking = None
            return None
        spec, player = entry
        if self._asked != (side, ply):
            if now < self._retry_at or not may_ask:
                return None
            player.request(game, clock())
            self._asked, self._asked_wall, self._thinking_at = (side, ply), wall, now
            self.thinking = {"side": side, "by": spec.kind.value, "since": round(wall, 3)}
            return None
        try:
            answer = player.poll()
        except PlayerError as exc:
            self._asked = None
            self.thinking = None
            self._retry_at = now + RETRY_S
            self.error = {"side": side, "message": str(exc)}
            log.warning("the %s' player failed: %s (asking again in %g s)", side, exc, RETRY_S)
            return Failed(side, str(exc))
        if answer is None:
            if now - self._thinking_at >= THINKING_EVERY:
                self._thinking_at = now
                self.thinking = _thinking(side, spec.kind.value, self._asked_wall,
                                          player.thinking)
            return None
        self.thinking = None
        self.error = None
        if answer.resigned or answer.move is None:
            return Resigns(side, answer.note or "it resigns")
        if self._is_hopeless(side, answer.score, answer.mate, cfg):
            return Resigns(side, f"a hopeless position (score {answer.score}, mate "
                                 f"{answer.mate})")
        score = (_soldiers(answer.score, answer.mate)
                 if answer.score is not None or answer.mate is not None else None)
        return Chose(side, answer.move, spec.kind.value, score)

    def _is_hopeless(self, side: str, cp: int | None, mate: int | None,
                     cfg: ComputerConfig) -> bool:
        """Count the computer's hopeless answers in a row; True when it should resign now."""
        lost = (mate is not None and mate < 0) or (
            cp is not None and cp <= -cfg.resign_threshold * 100)
        self._hopeless[side] = self._hopeless.get(side, 0) + 1 if lost else 0
        return cfg.resign and self._hopeless[side] >= max(1, cfg.resign_moves)


def _soldiers(cp: int | None, mate: int | None) -> float | None:
    """An engine score as soldiers for its side (a forced result: ±1000 minus the plies)."""
    if mate is not None:
        return float(1000 - mate if mate > 0 else -1000 - mate)
    return None if cp is None else round(cp / 100.0, 2)


def _thinking(side: str, by: str, since: float, seen: dict[str, Any] | None) -> Thinking:
    out: Thinking = {"side": side, "by": by, "since": round(since, 3)}
    if seen:
        if "depth" in seen:
            out["depth"] = seen["depth"]
        if seen.get("mate") is not None:
            out["mate"] = seen["mate"]
            out["score"] = _soldiers(None, seen["mate"])
        elif seen.get("cp") is not None:
            out["score"] = _soldiers(seen["cp"], None)
        pv = [m for m in seen.get("pv") or [] if isinstance(m, str)]
        if pv:
            out["best"] = pv[0]
            out["pv"] = pv[:8]
    return out
