"""Who asks: the owner, the player of one side, or a spectator; and what each may do.

Permissions (docs/session.md):

* **spectator** (no credentials): reads everything, changes nothing;
* **player** (a player link of one side): moves for his side (``/api/move``), offers, accepts or
  declines a draw, resigns and asks for a hint for his side; nothing else;
* **owner** (the PIN, or the owner's session token): everything, for both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict


class Role(StrEnum):
    OWNER = "owner"
    PLAYER = "player"
    SPECTATOR = "spectator"


class Action(StrEnum):
    """What a control does; the permission check is by action."""

    MOVE = "move"          # choose the side's move off the board
    DRAW = "draw"          # offer / accept / decline
    RESIGN = "resign"
    TAKEBACK = "takeback"
    NEW_GAME = "new_game"
    NEXT_GAME = "next_game"
    SWAP = "swap"
    PLAYERS = "players"    # names and kinds
    LINKS = "links"        # issue player links
    CLOCK = "clock"        # pause / resume
    CLICK = "click"        # the simulated board
    HINT = "hint"          # ask the engine for a move (a player: for his side, on his turn)
    ANALYSE = "analyse"    # analyse a stored game
    IMPORT = "import"      # store games read from a file


#: What a player may do (for his own side only).
PLAYER_ACTIONS = frozenset({Action.MOVE, Action.DRAW, Action.RESIGN, Action.HINT})


@dataclass(frozen=True)
class Actor:
    """The one asking: ``role``, the ``side`` a player plays (None for owner and spectator),
    and a short ``name`` for the session's event log (``owner``, ``page:attackers``...)."""

    role: Role
    side: str | None = None
    name: str = ""

    @property
    def label(self) -> str:
        """``by`` in the session's events: ``owner``, ``attackers`` (a player) or ``spectator``."""
        if self.role is Role.PLAYER and self.side:
            return self.side
        if self.role is Role.OWNER and self.name in AT_A_SIDE and self.side:
            return self.side  # the computer, or the player at a distance, playing that side
        if self.role is Role.OWNER and self.name in ("board", "computer"):
            return self.name
        return self.role.value

    def to_json(self) -> ActorJSON:
        return {"role": self.role.value, "side": self.side}


class ActorJSON(TypedDict):
    """Who asks: the role and, for a player, the side."""

    role: str
    side: str | None


class ErrorJSON(TypedDict):
    """A refused control's answer: the English message and its stable code."""

    error: str
    code: str


OWNER = Actor(Role.OWNER, name="owner")
SPECTATOR = Actor(Role.SPECTATOR, name="spectator")
BOARD = Actor(Role.OWNER, name="board")  # what the hands at the board do (takeback by hand)


#: Actors named by what plays a side (their events carry ``by`` = the side).
AT_A_SIDE = ("computer", "online", "club")


def player(side: str) -> Actor:
    return Actor(Role.PLAYER, side, f"player:{side}")


def at_a_distance(side: str, kind: str) -> Actor:
    """The player at a distance (``kind`` online or club) playing ``side``: its decisions are
    the other end's word, taken with the owner's rights for that side."""
    return Actor(Role.OWNER, side, kind)


class ControlError(Exception):
    """A control that cannot be done: ``status`` is the HTTP status, ``code`` a stable id
    (``forbidden``, ``not_your_side``, ``game_over``, ``storage``, ``bad_move`` ...)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def to_json(self) -> ErrorJSON:
        return {"error": self.message, "code": self.code}


def check(actor: Actor, action: Action, side: str | None = None) -> None:
    """ControlError unless ``actor`` may do ``action`` (for ``side``, when it concerns one)."""
    if actor.role is Role.OWNER:
        return
    if actor.role is Role.SPECTATOR:
        raise ControlError(403, "forbidden", "spectators cannot act: the controls need the PIN "
                                             "or a player link")
    if action not in PLAYER_ACTIONS:
        what = action.value.replace("_", " ")
        raise ControlError(403, "forbidden", f"a player link cannot {what}: only the owner can")
    if side is not None and side != actor.side:
        raise ControlError(403, "not_your_side",
                           f"this player link plays the {actor.side}, not the {side}")
