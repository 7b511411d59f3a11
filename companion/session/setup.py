"""The controls that set games up: a new game or match, the match's next game, who plays (swap,
names and kinds), player links, and the computer's help (hints, analyses of stored games).

Swapping sides or changing players never rewrites a finished game: after a game it applies to
the next one. In a match the sides swap by themselves for game 2. While a game at a distance
goes on, none of these (nor hints) is allowed: the game is the other end's too.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from companion.rules.board import Position
from companion.rules.otn import PositionError
from companion.rules.ruleset import RuleSet
from companion.rules.start import check_start
from companion.session import links, state
from companion.session.actors import Action, Actor, ControlError, Role, check
from companion.session.clock import TimeControl, TimeControlError
from companion.session.computer import engine_allowed
from companion.session.context import SIDES, Context
from companion.session.decisions import Decisions, storage_error
from companion.session.games import Games
from companion.session.match import MatchError, check_tie_break
from companion.session.moves import copy_game
from companion.session.outbox import STORE_ERRORS
from companion.session.players import (
    EngineNotAllowed,
    PlayerError,
    PlayerKind,
    PlayerSpec,
    check_move_player,
    spec_from_json,
)
from companion.session.remote import RemoteKind
from companion.session.settings import GameSettings, SettingsError
from companion.session.state import position_key
from companion.store import StoreError

# the fields of POST /api/new (and /api/match); anything else is refused, not ignored
NEW_GAME_FIELDS = frozenset({"variant", "options", "time_control", "players", "tie_break", "match",
                             "position", "turn"})
BAD_PLAYERS = "players: {attackers|defenders: {name?, kind?}}"
HINT_SECONDS = (0.1, 30.0)
#: A reading of the board (a position of one's own) ends this long after the page last asked.
READING_S = 60.0
ANALYSIS_SECONDS = (0.05, 30.0)


def _seconds(value: object, bounds: tuple[float, float]) -> float | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not bounds[0] <= value <= bounds[1]):
        raise ControlError(400, "bad_request", f'"seconds" must be a number from {bounds[0]:g} '
                                               f"to {bounds[1]:g}")
    return float(value)


def _start_position(rules: RuleSet, request: Mapping[str, object]) -> Position | None:
    """The position a new game starts from (``position`` and ``turn`` of the request: None
    for the variant's own start); ControlError 400 ``bad_position`` saying what is wrong."""
    if "position" not in request and "turn" not in request:
        return None
    otn, turn = request.get("position", rules.start), request.get("turn", rules.first)
    if not isinstance(otn, str) or not otn.strip():
        raise ControlError(400, "bad_position", "position must be an OTN placement such as "
                                                "the one /api/state gives")
    if turn not in SIDES:
        raise ControlError(400, "bad_position", f"turn must be attackers or defenders, not "
                                                f"{turn!r}")
    try:
        board = check_start(rules, Position(otn.strip(), str(turn)))
    except PositionError as exc:
        raise ControlError(400, "bad_position", f"the position cannot start a game of "
                                                f"{rules.name}: {exc}") from None
    return board.position()


class GameSetup:
    """Setting games up (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions, games: Games) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self.games = games

    def _check_no_remote_game(self, proposal_ok: bool = False) -> None:
        """409 during a game at a distance (``proposal_ok``: not while a game proposed here
        still waits for the other end's agreement: a new game withdraws it)."""
        b = self.ctx.remote.binding
        if proposal_ok and not self.ctx.remote.agreed:
            return
        if b is not None and not self.ctx.game.is_over():
            raise ControlError(409, "remote_game", f"this game is played with "
                               f"{b.terms.opponent} at a distance ({b.kind.value}): finish or "
                               "resign it first")

    def _ready(self) -> None:
        self.decisions.ready(playing=False)
        self._check_no_remote_game()

    # -- games and matches ---------------------------------------------------------------------
    def new_game(self, actor: Actor, request: Mapping[str, object]) -> dict[str, Any]:
        """A new game (or, with ``"match": true``, a two-game match): ``variant``, ``options``,
        ``time_control``, ``players`` and ``tie_break`` as optional fields; ``position`` (OTN)
        and ``turn`` start it from a position of one's own (a study, an endgame, a game from a
        book, an imported game played on), checked for the variant (``rules.start``)."""
        check(actor, Action.NEW_GAME)
        ctx = self.ctx
        unknown = sorted(set(request) - NEW_GAME_FIELDS)
        if unknown:  # a misspelt field ("rules" for "options") must not start a different game
            raise ControlError(400, "bad_field", f"unknown field {unknown[0]!r}; a new game "
                                                 f"takes {', '.join(sorted(NEW_GAME_FIELDS))}")
        self.decisions.ready(playing=False)
        self._check_no_remote_game(proposal_ok=True)
        variant = request.get("variant") or ctx.settings.variant
        raw_opts = request.get("options")
        try:
            if raw_opts is None and variant == ctx.settings.variant:
                settings = ctx.settings
            elif raw_opts is None:
                settings = ctx.settings.with_variant(str(variant))
            else:
                if not isinstance(raw_opts, Mapping):
                    raise SettingsError("options must be an object of rule options")
                settings = GameSettings.make(variant, raw_opts)
            tc = ctx.clocks.tc
            if "time_control" in request:
                tc = TimeControl.parse(str(request.get("time_control")))
            tie = ctx.defaults.tie_break
            if "tie_break" in request:
                tie = check_tie_break(request.get("tie_break"))
        except (SettingsError, TimeControlError, MatchError) as exc:
            raise ControlError(400, "bad_settings", str(exc)) from None
        rules = settings.rules()
        if ctx.caps.clickable is None and rules.size != ctx.board.size:
            raise ControlError(409, "board_size", f"{rules.name} is played on {rules.size}x"
                                                  f"{rules.size}; this board is "
                                                  f"{ctx.board.size}x{ctx.board.size}")
        start = _start_position(rules, request)
        players = dict(ctx.next_players or ctx.players)
        wanted = request.get("players")
        if isinstance(wanted, Mapping):
            for side, value in wanted.items():
                if side not in SIDES or not isinstance(value, Mapping):
                    raise ControlError(400, "bad_players", BAD_PLAYERS)
                players[side] = self._player_from(value, players[side], side, new_game=True)
        elif wanted is not None:
            raise ControlError(400, "bad_players", BAD_PLAYERS)
        self._check_remote_players(players, request.get("match") is True)
        new_match = None
        if request.get("match") is True:
            if players["attackers"].name == players["defenders"].name:
                raise ControlError(400, "bad_players", "a match needs two player names")
            new_match = {"players": (players["attackers"].name, players["defenders"].name),
                         "tie_break": tie, "settings": {
                             **settings.to_json(), "seats": [players["attackers"].to_json(),
                                                             players["defenders"].to_json()]}}
        elif request.get("match") not in (None, False):
            raise ControlError(400, "bad_match", '"match" must be true or false')
        self.games.start(settings, tc, players, None, actor, new_match, start=start)
        # a board of the club plays a side: the game is proposed to it (its answer starts it)
        self.games.propose_remote(only=PlayerKind.CLUB)
        state.publish(ctx, force=True)
        return {"game": ctx.gid, "match": ctx.match.id if ctx.match else None}

    def _check_remote_players(self, players: Mapping[str, PlayerSpec], match: bool) -> None:
        """A new game with a player at a distance (a board of the club): one side at most,
        no match, and that kind's client running."""
        far = [s for s in SIDES if players[s].is_remote]
        if not far:
            return
        if len(far) > 1:
            raise ControlError(400, "bad_players", "at most one side plays at a distance; the "
                                                   "other is played at this board")
        if match:
            raise ControlError(400, "bad_players", "a match is played at one board: play a "
                                                   "game at a distance as single games")
        kind = players[far[0]].kind.value
        if RemoteKind(kind) not in self.ctx.remote.attached():
            raise ControlError(409, f"no_{kind}", f"playing {kind} needs the [{kind}] "
                                                  "settings in the config")

    def next_game(self, actor: Actor) -> dict[str, Any]:
        """Game 2 of the match: the same settings, sides swapped."""
        check(actor, Action.NEXT_GAME)
        ctx = self.ctx
        self._ready()
        m = ctx.match
        if m is None or not m.wants_next:
            raise ControlError(409, "no_next_game", "there is no match game to start next")
        players = {"attackers": ctx.players["defenders"], "defenders": ctx.players["attackers"]}
        # a match played from a position of its own plays game 2 from it too
        start = Position(ctx.game.start_position, ctx.game.start_turn)
        self.games.start(ctx.settings, ctx.clocks.tc, players, m, actor, start=start)
        return {"game": ctx.gid, "match": m.id}

    # -- a position of one's own, set up on the board ----------------------------------------
    def read_board(self, actor: Actor, on: bool) -> dict[str, Any]:
        """While ``on``, the board defines the next game's position (a study, an endgame): the
        tracker neither guides the pieces back to the game nor judges them, and the state's
        guidance (``reading``) has the occupied squares and, where the sensors tell them, their
        colours; the owner's page builds the position from it and starts the game from it
        (``new_game`` with ``position`` and ``turn``), which ends the reading. It ends by itself
        :data:`READING_S` after the page last asked (a page closed meanwhile never leaves the
        board unjudged), and with ``on`` false."""
        check(actor, Action.NEW_GAME)
        ctx = self.ctx
        self._ready()
        if not isinstance(on, bool):
            raise ControlError(400, "bad_request", '"on" must be true or false')
        ctx.reading_until = ctx.monotonic() + READING_S if on else None
        self.decisions.store_plain(ctx.tracker.read_board(on, ctx.board_time()))
        if not on:
            self.decisions.expect_current()  # the game again (its move to make too)
        state.publish(ctx, force=True)
        return {"ok": True, "reading": on}

    def reading_over(self, now: float) -> None:
        """End a reading the page no longer renews (loop thread, every step)."""
        ctx = self.ctx
        if ctx.reading_until is not None and now > ctx.reading_until:
            ctx.reading_until = None
            self.decisions.store_plain(ctx.tracker.read_board(False, ctx.board_time()))
            self.decisions.expect_current()

    # -- players ---------------------------------------------------------------------------------
    def swap(self, actor: Actor) -> dict[str, Any]:
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
            ctx.next_players = swapped
            ctx.outbox.add("swap", {"next_game": True, "by": actor.label})
        else:
            self._store_players(swapped, actor)
        ctx.announcer.note("swap", actor.label, next_game=over)
        self.decisions.after_control()
        return {"players": {s: p.name for s, p in swapped.items()},
                "applies_to": "next_game" if over else "this_game"}

    def set_players(self, actor: Actor, request: Mapping[str, object]) -> dict[str, Any]:
        """Names and kinds per side: ``{"attackers": {"name": .., "kind": "page"}, ...}``."""
        check(actor, Action.PLAYERS)
        ctx = self.ctx
        self._ready()
        base = ctx.next_players or ctx.players
        players = dict(base)
        for side, value in request.items():
            if side not in SIDES or not isinstance(value, Mapping):
                raise ControlError(400, "bad_players", BAD_PLAYERS)
            players[side] = self._player_from(value, base[side], side)
        if ctx.game.is_over():
            ctx.next_players = players
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
        ctx.players = players
        ctx.next_players = None
        self.games.sync_players()
        if drop:  # its side is now played by someone else: the chosen move is not theirs
            self.decisions.withdraw_move_to_make()
            self.decisions.expect_current()
            self.decisions.write()

    def _player_from(self, value: Mapping[str, object], base: PlayerSpec, side: str,
                     new_game: bool = False) -> PlayerSpec:
        """A side's player from the API (owner only; an engine command must be allowed; a
        board of the club only for a new game: proposed to it)."""
        ctx = self.ctx
        try:
            spec = spec_from_json(value, base, side, lambda command: engine_allowed(
                ctx.defaults.computer, ctx.defaults.players, command), club_ok=new_game)
            check_move_player(spec, side)
            return spec
        except EngineNotAllowed as exc:
            raise ControlError(403, "engine_not_allowed", str(exc)) from None
        except PlayerError as exc:
            raise ControlError(400, "bad_players", str(exc).removeprefix("--")) from None

    def player_links(self, actor: Actor) -> dict[str, Any]:
        """One link per side of the current game (per seat of the current match)."""
        check(actor, Action.LINKS)
        ctx = self.ctx
        self.decisions.ready(playing=False)
        m = ctx.match
        out = {}
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
                    link = {"token": token}
                out[side] = {"token": link["token"], "path": f"/?player={link['token']}",
                             "player": ctx.players[side].name}
        except STORE_ERRORS:
            raise storage_error() from None
        return {"links": out, "match": m.id if m else None, "game": ctx.gid}

    def _seating(self) -> links.Seating:
        ctx = self.ctx
        return links.Seating(ctx.gid, ctx.match.id if ctx.match else None,
                             ctx.match.number if ctx.match else 0,
                             {s: p.name for s, p in ctx.players.items()})

    # -- the computer's help: hints and analyses -------------------------------------------------
    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, dict[str, Any]]:
        """A hint for the side to move (companion.session.advice): (202, thinking) or (200,
        the hint already shown)."""
        check(actor, Action.HINT)
        ctx = self.ctx
        secs = _seconds(seconds, HINT_SECONDS)
        if ctx.remote.binding is not None:
            raise ControlError(409, "no_hint", "no hints in a game against a player at a "
                                               "distance")
        side = ctx.game.turn
        if actor.role is Role.PLAYER and actor.side != side:
            raise ControlError(409, "not_your_turn", f"it is the {side}' turn: a hint is for "
                                                     "the side to move")
        self.decisions.ready()
        if ctx.players[side].is_computer:
            raise ControlError(409, "no_hint", f"the computer plays the {side}: a hint is for a "
                                               "person's move")
        if ctx.move_to_make is not None:
            raise ControlError(409, "no_hint", f"the {side}' move is chosen already: make "
                                               f"{ctx.move_to_make['move']} on the board")
        out = ctx.advisor.request(position_key(ctx), side, actor.label,
                                  secs if secs is not None else ctx.defaults.computer.hint_seconds,
                                  copy_game(ctx.game, manual=False).board, ctx.wall())
        state.publish(ctx, force=True)
        return out

    def start_analysis(self, actor: Actor, gid: int,
                       seconds: object = None) -> tuple[int, dict[str, Any]]:
        """Analyse stored game ``gid`` on the worker: (202, progress) or (200, stored)."""
        check(actor, Action.ANALYSE)
        ctx = self.ctx
        secs = _seconds(seconds, ANALYSIS_SECONDS)
        try:
            row = ctx.store.game(gid)
        except StoreError:
            raise ControlError(404, "not_found", f"no game {gid}") from None
        if gid == ctx.gid and not ctx.game.is_over():
            raise ControlError(409, "game_ongoing", "this game is being played: it can be "
                                                    "analysed once it is over")
        if row.plies == 0:
            raise ControlError(409, "no_moves", f"game {gid} has no moves to analyse")
        try:
            return ctx.analyses.start(gid, secs if secs is not None
                                      else ctx.defaults.computer.analysis_seconds)
        except STORE_ERRORS:
            raise storage_error() from None
