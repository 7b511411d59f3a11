"""Player links follow their player from game to game.

A player link (``/?player=TOKEN``) is made for one side of a game, or one seat of a match (the
seat's side changes when the sides swap for game 2). Beyond that game or match the link stands
for its **player**: the name that played its side (its seat) there. In a later game it plays
the side where a player of that name plays, if exactly one side does; when nobody of that name
plays, the link has ended (403 ``bad_link``: the page says so and that the owner has new ones).
The owner's *Phone links* offer such a following link again instead of a new token, so a friend
keeps one link for an evening's games.

The functions read a :class:`~companion.store_reads.StoreReader` (the read-only connection of a
web thread, or the loop's writer) and a :class:`Seating` (who plays what now: from the published
snapshot on a web thread, from the context on the loop thread); nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.session.match import side_of_seat
from companion.store_reads import StoreReader
from companion.store_rows import StoreError
from companion.store_types import LinkJSON

SIDES = ("attackers", "defenders")
#: How many of the latest links are looked through for one that follows its player.
RECENT_LINKS = 50


@dataclass(frozen=True)
class Seating:
    """Who plays what now: the game, the match and its game number, each side's player's
    name."""

    gid: int
    match_id: int | None
    match_number: int
    names: Mapping[str, str]

    @classmethod
    def of_state(cls, state: Mapping[str, Any], gid: int, match_id: int | None,
                 match_number: int) -> Seating:
        """From a published page state (``players``: side -> ``{"name", ...}``)."""
        players = state.get("players")
        names: dict[str, str] = {}
        if isinstance(players, Mapping):
            for side in SIDES:
                p = players.get(side)
                if isinstance(p, Mapping) and isinstance(p.get("name"), str):
                    names[side] = p["name"]
        return cls(gid, match_id, match_number, names)


def player_of(reader: StoreReader, link: LinkJSON) -> str | None:
    """The name of the player ``link`` was made for: the one of its seat of its match, or of
    its side of its game (None if the store has no such game or match)."""
    mid, seat, gid, side = link["match_id"], link["seat"], link["game_id"], link["side"]
    try:
        if mid is not None and seat is not None:
            players = reader.match(mid).players
            return players[seat] if 0 <= seat < len(players) else None
        if gid is not None and side in SIDES:
            return reader.game(gid).players()[side]["name"] or None
    except (StoreError, ValueError, TypeError, KeyError):
        return None
    return None


def side_now(link: LinkJSON, player: str | None, now: Seating) -> str | None:
    """The side ``link`` (made for ``player``) plays in the game ``now``, or None: its own
    game's side, its match seat's side, else the side where its player plays."""
    seat = link["seat"]
    if link["match_id"] is not None:
        if now.match_id == link["match_id"] and seat is not None:
            return side_of_seat(now.match_number, seat)
    elif link["game_id"] == now.gid:
        side = link["side"]
        return side if side in SIDES else None
    if not player:
        return None
    sides = [s for s in SIDES if now.names.get(s) == player]
    return sides[0] if len(sides) == 1 else None


def is_current(link: LinkJSON, now: Seating) -> bool:
    """Whether ``link`` was made for the game (or match) played now."""
    if link["match_id"] is not None:
        return link["match_id"] == now.match_id
    return link["game_id"] == now.gid


def following(reader: StoreReader, now: Seating, side: str) -> LinkJSON | None:
    """The latest link made in an earlier game (or match) whose player plays ``side`` now."""
    for link in reader.recent_links(RECENT_LINKS):
        if not is_current(link, now) and side_now(link, player_of(reader, link), now) == side:
            return link
    return None
