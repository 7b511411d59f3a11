"""The club's topics on the broker and the checks every payload passes (docs/club.md).

Every board writes only under its own prefix ``tafl/{club}/{board}/`` (the broker's ACL can
enforce it)::

    tafl/{club}/{board}/state         retained, QoS 1: the board's public game state (the
                                      ``/api/state`` fields of the game: no PIN, token, link)
    tafl/{club}/{board}/moves         QoS 1: every accepted move, takeback, game start and end
                                      in order, each with the board's ``src`` and ``seq``
    tafl/{club}/{board}/status        retained: ``{"online": true|false}`` (the will says false)
    tafl/{club}/{board}/play/{peer}   retained, QoS 1: this board's side of a board-to-board game
                                      with ``peer`` (proposal, agreed terms, moves, controls)

Anything read from the broker is hostile until checked: :func:`decode` refuses a payload over
:data:`MAX_PAYLOAD` bytes, text that is not UTF-8 JSON, JSON that is not an object, and numbers
JSON does not have (NaN, Infinity).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, TypedDict

ROOT = "tafl"
MAX_PAYLOAD = 64 * 1024
STATE, MOVES, STATUS, PLAY = "state", "moves", "status", "play"

#: ``/api/state`` fields that go to the broker (everything else stays on the board: LEDs,
#: guidance, events, hints, storage, links, the owner's details)
PUBLIC_FIELDS = ("game", "variant", "variant_name", "size", "first", "turn", "moves", "result",
                 "reason", "reason_text", "position", "last", "captures", "players", "clock",
                 "match", "throne", "corners", "settings", "draw_offer", "move_to_make",
                 "times", "accepted_at")
#: player fields that may go out (not an engine's command line)
PUBLIC_PLAYER_FIELDS = ("name", "kind", "level", "rating", "board")


class PayloadError(ValueError):
    """A broker message that cannot be used; the message says why (for the log)."""


def prefix(club: str, board: str) -> str:
    return f"{ROOT}/{club}/{board}"


def state_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/{board}/{STATE}"


def moves_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/{board}/{MOVES}"


def status_topic(club: str, board: str) -> str:
    return f"{ROOT}/{club}/{board}/{STATUS}"


def play_topic(club: str, board: str, peer: str) -> str:
    return f"{ROOT}/{club}/{board}/{PLAY}/{peer}"


def split(topic: str, club: str) -> tuple[str, str, tuple[str, ...]] | None:
    """``(board, kind, rest)`` of a topic of ``club``, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != ROOT or parts[1] != club:
        return None
    return parts[2], parts[3], tuple(parts[4:])


def _no_constant(name: str) -> float:
    raise PayloadError(f"{name} is not a JSON number")


class MovesMessage(TypedDict, total=False):
    """A message of a board's ``moves`` topic (without its ``src`` and ``seq``): a game's
    ``start`` (variant, first side, settings, players), a ``move``, a ``takeback`` to ``ply``,
    its ``end``; ``wall`` when it was queued."""

    kind: str
    game: int | None
    variant: str | None
    first: str
    settings: dict[str, object] | None  # the state's settings (variant, options, rules)
    players: dict[str, dict[str, object]] | None  # side -> the public fields of its player
    ply: int
    move: str
    side: str
    result: str
    reason: str | None
    wall: float


#: A board's ``/api/state`` as another part of the club reads it: parsed JSON (from the
#: publisher's snapshot text or a broker message), read key by key where it is used.
StateJSON = dict[str, Any]  # JSON edge: another board's state, parsed, read key by key


def decode(payload: bytes) -> dict[str, Any]:  # JSON edge: a broker message, checked after
    """A checked JSON object from a broker message (PayloadError otherwise)."""
    if len(payload) > MAX_PAYLOAD:
        raise PayloadError(f"payload of {len(payload)} bytes is over the limit of "
                           f"{MAX_PAYLOAD} bytes")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise PayloadError("payload is not UTF-8 text") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise PayloadError(f"payload is not JSON: {str(exc)[:80]}") from None
    if not isinstance(doc, dict):
        raise PayloadError("payload is not a JSON object")
    return doc


def encode(doc: Mapping[str, Any]) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def public_state(state: Mapping[str, Any]) -> StateJSON:
    """The part of a board's ``/api/state`` that may go to the broker."""
    out = {k: state[k] for k in PUBLIC_FIELDS if k in state}
    players = state.get("players")
    if isinstance(players, Mapping):
        out["players"] = {side: {k: p[k] for k in PUBLIC_PLAYER_FIELDS if k in p}
                          for side, p in players.items() if isinstance(p, Mapping)}
    mtm = state.get("move_to_make")
    if isinstance(mtm, Mapping):
        out["move_to_make"] = {k: mtm[k] for k in ("move", "from", "to", "by", "side")
                               if k in mtm}
    remote = state.get("remote")
    if isinstance(remote, Mapping) and remote.get("kind") == "club":
        # a board-to-board game: the agreed game and the other board (the room shows the
        # game once, with both boards' players)
        out["remote"] = {"kind": "club", "ref": remote.get("ref"),
                         "peer": remote.get("opponent"), "local_side": remote.get("local_side")}
    board = state.get("board")
    if isinstance(board, Mapping):
        out["board"] = {k: board[k] for k in ("kind", "connected") if k in board}
    return out


def int_field(doc: Mapping[str, Any], key: str, lo: int = 0, hi: int = 2**53) -> int:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise PayloadError(f"{key} must be a whole number {lo}..{hi}, not {value!r}"[:120])
    return value


def str_field(doc: Mapping[str, Any], key: str, limit: int = 200,
              optional: bool = False) -> str | None:
    value = doc.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise PayloadError(f"{key} must be a text of at most {limit} characters")
    return value


def float_field(doc: Mapping[str, Any], key: str, optional: bool = False) -> float | None:
    value = doc.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value):
        raise PayloadError(f"{key} must be a number")
    return float(value)
