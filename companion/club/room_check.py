"""The room's checks of a board's public state: every field the room page draws.

A board's state comes from the broker; even signed, a board's bug (or a member's mischief) must
not stop the page: a size of 1000 once made the page draw a million squares, ``"corners": 5``
made the drawing throw before the real boards. So :func:`check_state` checks each field the
page uses (and refuses the state, with a reason, when one is wrong):

- ``game`` a number, ``variant`` a known one; ``size``, ``throne`` and ``corners`` must be the
  variant's own (they are drawn from it), ``variant_name`` a short text;
- ``turn``, ``result`` (and ``reason``, ``reason_text``) of their vocabularies;
- ``position`` an OTN position of the variant's size, ``moves`` a list of move texts;
- ``last`` and ``move_to_make`` squares of the board; ``players`` names and kinds of both sides;
- ``clock`` finite times of both sides, the running side, the wall time of the reading;
- ``remote`` (a board-to-board game): its kind, the agreed game's ``ref`` and the other board.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from companion.club.topics import StateJSON
from companion.rules import PRESETS
from companion.rules.geometry import geometry_for
from companion.rules.otn import parse_otn

SIDES = ("attackers", "defenders")
RESULTS = ("ongoing", "attackers", "defenders", "draw")
_WORD = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
MAX_CLOCK_S = 10**7


class BadState(ValueError):
    """A board state that cannot be shown."""


def _text(doc: Mapping[str, Any], key: str, limit: int, optional: bool = True) -> None:
    value = doc.get(key)
    if value is None and optional:
        return
    if not isinstance(value, str) or len(value) > limit:
        raise BadState(f"{key} must be a text of at most {limit} characters")


def _number(value: object, what: str, lo: float = 0.0, hi: float = 2.0**53) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value) or not lo <= value <= hi:
        raise BadState(f"{what} must be a number {lo:g}..{hi:g}")
    return float(value)


def _side(value: object, what: str, optional: bool = False) -> None:
    if value is None and optional:
        return
    if value not in SIDES:
        raise BadState(f"{what} must be attackers or defenders")


def _square(value: object, names: frozenset[str], what: str) -> None:
    if not isinstance(value, str) or value not in names:
        raise BadState(f"{what} must be a square of the board")


def _geometry(variant: str) -> tuple[int, str | None, list[str], frozenset[str]]:
    rules = PRESETS[variant]
    geo = geometry_for(rules)
    throne = geo.names[geo.throne] if geo.throne >= 0 else None
    return (rules.size, throne, [geo.names[s] for s in geo.iter_bits(geo.corner)],
            frozenset(geo.names))


def check_state(doc: Mapping[str, Any]) -> StateJSON:
    """A board's public state, every field the page draws checked (BadState otherwise)."""
    _number(doc.get("game"), "game")
    if isinstance(doc.get("game"), float):
        raise BadState("game must be a whole number")
    variant = doc.get("variant")
    if not isinstance(variant, str) or variant not in PRESETS:
        raise BadState(f"unknown variant {str(variant)[:40]!r}")
    size, throne, corners, names = _geometry(variant)
    if doc.get("size", size) != size:
        raise BadState(f"size must be {size} for {variant}")
    if doc.get("throne", throne) != throne:
        raise BadState(f"throne must be {throne} for {variant}")
    given = doc.get("corners", corners)
    if (not isinstance(given, list) or len(given) > 16
            or sorted(str(c) for c in given) != sorted(corners)):
        raise BadState(f"corners must be {corners} for {variant}")
    _text(doc, "variant_name", 80)
    moves = doc.get("moves")
    if not isinstance(moves, list) or len(moves) > 2000 or not all(
            isinstance(m, str) and len(m) < 40 for m in moves):
        raise BadState("moves must be a list of move texts")
    position = doc.get("position")
    if not isinstance(position, str) or len(position) > 800:
        raise BadState("position must be an OTN text")
    try:
        parse_otn(position, size)
    except ValueError as exc:
        raise BadState(f"position: {exc}"[:160]) from None
    if doc.get("result") not in RESULTS:
        raise BadState("result must be ongoing, attackers, defenders or draw")
    _side(doc.get("turn"), "turn")
    reason = doc.get("reason")
    if reason is not None and (not isinstance(reason, str) or not _WORD.match(reason)):
        raise BadState("reason must be a word such as time or resign")
    _text(doc, "reason_text", 200)
    _number(doc.get("published", 0), "published")
    _check_last(doc.get("last"), names)
    _check_players(doc.get("players"))
    _check_clock(doc.get("clock"))
    _check_move_to_make(doc.get("move_to_make"), names)
    _check_remote(doc.get("remote"))
    return {**doc, "size": size, "throne": throne, "corners": corners}


def _check_last(last: object, names: frozenset[str]) -> None:
    if last is None:
        return
    if not isinstance(last, Mapping):
        raise BadState("last must be the last move")
    _square(last.get("from"), names, "last.from")
    _square(last.get("to"), names, "last.to")
    _text(last, "text", 40, optional=False)


def _check_players(players: object) -> None:
    if players is None:
        return
    if not isinstance(players, Mapping) or not set(players) <= set(SIDES):
        raise BadState("players must give attackers and defenders")
    for side, p in players.items():
        if not isinstance(p, Mapping):
            raise BadState(f"players.{side} must be an object")
        _text(p, "name", 80)
        _text(p, "kind", 20)
        board = p.get("board")
        if board is not None and (not isinstance(board, str) or not _NAME.match(board)):
            raise BadState(f"players.{side}.board must be a board's name")
        for key in ("level", "rating"):
            if p.get(key) is not None:
                _number(p[key], f"players.{side}.{key}", -1e5, 1e5)


def _check_clock(clock: object) -> None:
    if clock is None:
        return
    if not isinstance(clock, Mapping):
        raise BadState("clock must be an object")
    for side in SIDES:
        _number(clock.get(side), f"clock.{side}", 0, MAX_CLOCK_S)
    _side(clock.get("running"), "clock.running", optional=True)
    _number(clock.get("at", 0), "clock.at")


def _check_move_to_make(mtm: object, names: frozenset[str]) -> None:
    if mtm is None:
        return
    if not isinstance(mtm, Mapping):
        raise BadState("move_to_make must be an object")
    _square(mtm.get("from"), names, "move_to_make.from")
    _square(mtm.get("to"), names, "move_to_make.to")
    _text(mtm, "move", 40)
    _text(mtm, "by", 20)
    _side(mtm.get("side"), "move_to_make.side", optional=True)


def _check_remote(remote: object) -> None:
    if remote is None:
        return
    if not isinstance(remote, Mapping):
        raise BadState("remote must be an object")
    _text(remote, "kind", 20)
    _text(remote, "ref", 120)
    _side(remote.get("local_side"), "remote.local_side", optional=True)
    peer = remote.get("peer")
    if peer is not None and (not isinstance(peer, str) or not _NAME.match(peer)):
        raise BadState("remote.peer must be a board's name")
