"""The computer at the board: its players' turns, what the page sees while it thinks, when it
resigns, and how a takeback against it works.

The computer players (:class:`~companion.session.players.MovePlayer`: the built-in engine or an
external OTEP engine, each a child process) are asked for a move when their side is to move and
polled without blocking at every loop step; the answer becomes the move to make at the board.
While one thinks, ``thinking`` in the page state shows its depth, score and best move, sampled
at most twice a second (the engine's own status lines can come much faster).

Policy (config ``[computer]``, :class:`ComputerConfig`):

* it **resigns** a hopeless position: when ``resign_moves`` of its own moves in a row were
  scored at or below ``-resign_threshold`` soldiers, or it sees a forced loss, it resigns
  instead of playing its move (event ``resign``, ``by`` its side);
* it **answers a draw offer** by its evaluation of the position (an analysis on the second
  engine process, :mod:`companion.session.advice`): it accepts when it stands no better than
  ``draw_threshold`` soldiers;
* a **takeback** against it undoes the person's last move and its reply (:func:`takeback_plies`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.session import choice
from companion.session.actors import Actor, Role
from companion.session.players import PlayerError, PlayerKind, open_move_player

if TYPE_CHECKING:
    from companion.session.core import SessionCore

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


def computer_actor(side: str) -> Actor:
    """The computer playing ``side``: it acts with the owner's rights, and its events carry
    ``by`` = its side."""
    return Actor(Role.OWNER, side, "computer")


def computer_sides(s: SessionCore) -> set[str]:
    return {side for side in SIDES if s.players[side].is_computer}


# -- the players' processes ------------------------------------------------------------------
def sync_move_players(s: SessionCore) -> None:
    """Start the computer players of the current sides, stop those no longer playing."""
    for side in SIDES:
        spec = s.players[side]
        have = s.move_players.get(side)
        if have is not None and (have[0] != spec or not spec.is_computer):
            have[1].close()
            del s.move_players[side]
            have = None
        if have is None and spec.is_computer:
            s.move_players[side] = (spec, open_move_player(spec, side, seed=s.gid))
    s._asked = None
    s.thinking = None
    if len(computer_sides(s)) == 1:  # a person plays the computer: hints come quickly
        s.advisor.warm()


def cancel_move_players(s: SessionCore) -> bool:
    """Stop any thinking at once (a takeback, a new game, the end of the game); True when a
    computer was thinking."""
    was = s.thinking is not None
    for _, player in s.move_players.values():
        player.cancel()
    s._asked = None
    s.thinking = None
    return was


# -- its turn ---------------------------------------------------------------------------------
def computer_turn(s: SessionCore, now: float) -> None:
    """Ask the computer for its move when it is its turn; show its answer as the move to make
    at the board (or resign a hopeless position)."""
    side = s.game.turn
    ply = len(s.game.played)
    if s._asked is not None and s._asked != (side, ply):
        # the position changed while it thought (its move was made by hand meanwhile): the
        # search is for a position that is gone, so it stops; it is asked afresh on its turn
        asked = s.move_players.get(s._asked[0])
        if asked is not None:
            asked[1].cancel()
        s._asked = None
        s.thinking = None
    entry = s.move_players.get(side)
    if entry is None or s.game.is_over() or s.move_to_make is not None:
        if s.thinking is not None:
            s.thinking = None
        return
    spec, player = entry
    if s._asked != (side, ply):
        if now < s._retry_player_at or not s.storage["ok"]:
            return
        clock = None
        if s.clock is not None:
            t = s.board_time()
            clock = {sd: s.clock.left(sd, t) for sd in SIDES}
        player.request(s.game, clock)
        s._asked = (side, ply)
        s._asked_wall = s.wall()
        s.thinking = {"side": side, "by": spec.kind.value, "since": round(s._asked_wall, 3)}
        s._thinking_at = now
        return
    try:
        answer = player.poll()
    except PlayerError as exc:
        s._asked = None
        s.thinking = None
        s._retry_player_at = now + RETRY_S
        s.player_error = {"side": side, "message": str(exc)}
        s._note("player_error", side, message=str(exc), computer=True)
        log.warning("the %s' player failed: %s (asking again in %g s)", side, exc, RETRY_S)
        return
    if answer is None:
        if now - s._thinking_at >= THINKING_EVERY:
            s._thinking_at = now
            s.thinking = _thinking(side, spec.kind.value, s._asked_wall, player.thinking)
        return
    s.thinking = None
    s.player_error = None
    if answer.resigned:
        log.info("game %d: the computer (%s) resigns: %s", s.gid, side, answer.note)
        s.resign(computer_actor(side), side)
        return
    if _hopeless(s, side, answer.score, answer.mate):
        log.info("game %d: the computer (%s) resigns a hopeless position (score %s, mate %s)",
                 s.gid, side, answer.score, answer.mate)
        s.resign(computer_actor(side), side)
        return
    assert answer.move is not None
    frm, _, to = answer.move.partition("-")
    board = s.game.board
    parsed, _ = board.parse_move(answer.move)
    caps, _ = board.preview(parsed)
    choice.choose(s, {"move": answer.move, "from": frm, "to": to, "by": spec.kind.value,
                      "side": side, "captures": sorted(
                          board.geo.names[q] for q in board.geo.iter_bits(caps))})
    assert s.move_to_make is not None
    if answer.score is not None or answer.mate is not None:
        s.move_to_make["score"] = _soldiers(answer.score, answer.mate)
    s.rows.append(("move_to_make", dict(s.move_to_make), s.wall()))
    s._note("move_to_make", spec.kind.value, move=answer.move, side=side)
    s._expect_current()
    s._write()  # stored with the game: after a crash it is shown again, not chosen afresh


def _soldiers(cp: int | None, mate: int | None) -> float | None:
    """An engine score as soldiers for its side (a forced result: ±1000 minus the plies)."""
    if mate is not None:
        return float(1000 - mate if mate > 0 else -1000 - mate)
    return None if cp is None else round(cp / 100.0, 2)


def _thinking(side: str, by: str, since: float, seen: dict | None) -> dict:
    out: dict = {"side": side, "by": by, "since": round(since, 3)}
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


def _hopeless(s: SessionCore, side: str, cp: int | None, mate: int | None) -> bool:
    """Count the computer's hopeless answers in a row; True when it should resign now."""
    cfg = s.defaults.computer
    lost = (mate is not None and mate < 0) or (
        cp is not None and cp <= -cfg.resign_threshold * 100)
    s.hopeless[side] = s.hopeless.get(side, 0) + 1 if lost else 0
    return cfg.resign and s.hopeless[side] >= max(1, cfg.resign_moves)


# -- takebacks --------------------------------------------------------------------------------
def takeback_plies(s: SessionCore) -> int:
    """How many plies a takeback undoes: against the computer, the computer's replies on top
    and the person's last move (0: the person has no move to take back); else one."""
    played = s.game.played
    computers = computer_sides(s)
    if len(computers) != 1:
        return 1 if played else 0
    computer = next(iter(computers))
    n = 0
    while n < len(played) and played[-1 - n].side == computer:
        n += 1
    return n + 1 if n < len(played) else 0


def hold_after_hand_takeback(s: SessionCore, side: str, now: float) -> None:
    """The hands at the board took back the computer's move: it waits a moment before
    choosing again, so the person can take back his own move too."""
    if side in s.move_players:
        s._retry_player_at = max(s._retry_player_at, now + HAND_TAKEBACK_HOLD)
    s.hopeless = {}


def check_engine_allowed(s: SessionCore, command: str) -> bool:
    """Whether the owner may start ``command`` from the page: listed in ``[computer]
    engines``, given on the command line or in ``[players]``, or ``any_engine``."""
    cfg = s.defaults.computer
    if cfg.any_engine:
        return True
    configured = {p.command for p in s.defaults.players.values()
                  if p.kind is PlayerKind.ENGINE and p.command}
    return command.strip() in {c.strip() for c in cfg.engines} | configured
