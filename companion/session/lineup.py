"""Who plays which side: the controls that swap sides, name the players and choose their kinds,
and the player links (one per side, or per seat of a match).

Swapping sides or changing players never rewrites a finished game: after a game it applies to
the next one. In a match the sides swap by themselves for game 2.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping

from companion.session import links
from companion.session.actors import Action, Actor, ControlError, check
from companion.session.computer import engine_allowed
from companion.session.context import SIDES, Context
from companion.session.decisions import Decisions, storage_error
from companion.session.games import Games
from companion.session.players import (
    EngineNotAllowed,
    PlayerError,
    PlayerSpec,
    check_move_player,
    spec_from_json,
)
from companion.session.record import Change
from companion.session.results import LinksResult, PlayerLink, PlayersResult, SwapResult
from companion.session.storage import STORE_ERRORS
from companion.store import StoreError

BAD_PLAYERS = "players: {attackers|defenders: {name?, kind?}}"


def player_from(ctx: Context, value: Mapping[str, object], base: PlayerSpec, side: str,
                new_game: bool = False) -> PlayerSpec:
    """A side's player from the API (owner only; an engine command must be allowed; a board
    of the club only for a new game: proposed to it)."""
    try:
        spec = spec_from_json(value, base, side, lambda command: engine_allowed(
            ctx.defaults.computer, ctx.defaults.players, command), club_ok=new_game)
        check_move_player(spec, side)
        return spec
    except EngineNotAllowed as exc:
        raise ControlError(403, "engine_not_allowed", str(exc)) from None
    except PlayerError as exc:
        raise ControlError(400, "bad_players", str(exc).removeprefix("--")) from None


class Lineup:
    """The players of the game and of the next one (see the module docstring); ``ready``
    checks that they may change now (the store writes, no game at a distance goes on)."""

    def __init__(self, ctx: Context, decisions: Decisions, games: Games,
                 ready: Callable[[], None]) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self.games = games
        self._ready = ready

    def swap(self, actor: Actor) -> SwapResult:
        """The two players change sides; a finished game is never rewritten (the swap then
        applies to the next game)."""
        check(actor, Action.SWAP)
        ctx = self.ctx
        self._ready()
        if ctx.match is not None and not ctx.match.finished:
            raise ControlError(409, "match", "in a match the sides swap by themselves for "
                                             "game 2")
        current = ctx.next_players or ctx.players
        swapped = {"attackers": current["defenders"], "defenders": current["attackers"]}
        over = ctx.game.is_over()
        if over:
            ctx.record.apply(Change(next_players=swapped))
            ctx.outbox.add("swap", {"next_game": True, "by": actor.label})
        else:
            self._store_players(swapped, actor)
        ctx.announcer.note("swap", actor.label, next_game=over)
        self.decisions.after_control()
        return {"players": {s: p.name for s, p in swapped.items()},
                "applies_to": "next_game" if over else "this_game"}

    def set_players(self, actor: Actor, request: Mapping[str, object]) -> PlayersResult:
        """Names and kinds per side: ``{"attackers": {"name": .., "kind": "page"}, ...}``."""
        check(actor, Action.PLAYERS)
        ctx = self.ctx
        self._ready()
        base = ctx.next_players or ctx.players
        players = dict(base)
        for side, value in request.items():
            if side not in SIDES or not isinstance(value, Mapping):
                raise ControlError(400, "bad_players", BAD_PLAYERS)
            players[side] = player_from(ctx, value, base[side], side)
        if ctx.game.is_over():
            ctx.record.apply(Change(next_players=players))
        else:
            self._store_players(players, actor)
        ctx.announcer.note("players", actor.label)
        self.decisions.after_control()
        return {"players": {s: p.to_json() for s, p in players.items()}}

    def _store_players(self, players: dict[str, PlayerSpec], actor: Actor) -> None:
        ctx = self.ctx
        data = {s: p.to_json() for s, p in players.items()}
        try:
            ctx.store.set_players(ctx.gid, data, events=[
                ("players", {"by": actor.label, **data}, ctx.wall())])
        except StoreError as exc:
            raise ControlError(409, "finished", str(exc)) from None
        except STORE_ERRORS:
            raise storage_error() from None
        m = ctx.move_to_make
        drop = m is not None and players[m["side"]].named("") != ctx.players[m["side"]].named("")
        ctx.record.apply(Change(players=players, next_players=None))
        self.games.sync_players()
        if drop:  # its side is now played by someone else: the chosen move is not theirs
            self.decisions.withdraw_move_to_make()
            self.decisions.expect_current()
            self.decisions.write()

    # -- player links ----------------------------------------------------------------------
    def player_links(self, actor: Actor) -> LinksResult:
        """One link per side of the current game (per seat of the current match)."""
        check(actor, Action.LINKS)
        ctx = self.ctx
        self.decisions.ready(playing=False)
        m = ctx.match
        out: dict[str, PlayerLink] = {}
        try:
            known = (ctx.store.links_for(match_id=m.id) if m is not None
                     else ctx.store.links_for(game_id=ctx.gid))
            for side in SIDES:
                seat = m.seat(m.number, side) if m is not None else None
                link = next((k for k in known if (k["seat"] == seat if m is not None
                                                  else k["side"] == side)), None)
                if link is None:  # the link its player had in an earlier game follows him
                    link = links.following(ctx.store, self._seating(), side)
                if link is None:
                    token = secrets.token_urlsafe(24)
                    if m is not None:
                        ctx.store.add_link(token, match_id=m.id, seat=seat)
                    else:
                        ctx.store.add_link(token, game_id=ctx.gid, side=side)
                else:
                    token = link["token"]
                out[side] = {"token": token, "path": f"/?player={token}",
                             "player": ctx.players[side].name}
        except STORE_ERRORS:
            raise storage_error() from None
        return {"links": out, "match": m.id if m else None, "game": ctx.gid}

    def _seating(self) -> links.Seating:
        ctx = self.ctx
        return links.Seating(ctx.gid, ctx.match.id if ctx.match else None,
                             ctx.match.number if ctx.match else 0,
                             {s: p.name for s, p in ctx.players.items()})
