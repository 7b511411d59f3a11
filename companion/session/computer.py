"""The computer at the board: its policy, what it decides, what the page sees while it thinks,
and how a takeback against it works.

The computer players (:class:`~companion.session.players.MovePlayer`: the built-in engine or an
external OTEP engine, each a child process) sit in a
:class:`~companion.session.seats.ComputerSeat`: asked for a move when their side is to move and
polled without blocking at every loop step; the answer is a :data:`Decision` the session
applies: the move to make at the board, a resignation, or a failure shown on the page. While
one thinks, ``thinking`` in the page state shows its depth, score and best move, sampled at most
twice a second.

Policy (config ``[computer]``, :class:`ComputerConfig`):

* it **resigns** a hopeless position: when ``resign_moves`` of its own moves in a row were
  scored at or below ``-resign_threshold`` soldiers, or it sees a forced loss;
* it **answers a draw offer** by its evaluation of the position (:mod:`companion.session.
  advice`): it accepts when it stands no better than ``draw_threshold`` soldiers;
* a **takeback** against it undoes the person's last move and its reply (:func:`takeback_plies`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from companion.rules.game import Game
from companion.session.actors import Actor, Role
from companion.session.players import PlayerKind, PlayerSpec, Searching

log = logging.getLogger("companion.session")
SIDES = ("attackers", "defenders")


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
    # every finished or imported game analysed in the background (the daemon's default is on;
    # off here, so that sessions made in code never start an engine unasked)
    analyse_finished: bool = False
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


def soldiers(cp: int | None, mate: int | None) -> float | None:
    """An engine score as soldiers for its side (a forced result: ±1000 minus the plies)."""
    if mate is not None:
        return float(1000 - mate if mate > 0 else -1000 - mate)
    return None if cp is None else round(cp / 100.0, 2)


def thinking_json(side: str, by: str, since: float, seen: Searching | None) -> Thinking:
    out: Thinking = {"side": side, "by": by, "since": round(since, 3)}
    if seen:
        if "depth" in seen:
            out["depth"] = seen["depth"]
        if seen.get("mate") is not None:
            out["mate"] = seen["mate"]
            out["score"] = soldiers(None, seen["mate"])
        elif seen.get("cp") is not None:
            out["score"] = soldiers(seen["cp"], None)
        pv = [m for m in seen.get("pv") or [] if isinstance(m, str)]
        if pv:
            out["best"] = pv[0]
            out["pv"] = pv[:8]
    return out
