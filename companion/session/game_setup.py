"""The controls that set games up: a new game or match, the match's next game, and a position
of one's own read from the board. Who plays is :mod:`~companion.session.lineup`'s, the
computer's help :mod:`~companion.session.computer_help`'s.

While a game at a distance goes on, none of these is allowed: the game is the other end's too.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.coach.config import CoachConfigError
from companion.rules.board import Position
from companion.rules.otn import PositionError
from companion.rules.ruleset import RuleSet
from companion.rules.start import check_start
from companion.session import state
from companion.session.actors import Action, Actor, ControlError, check
from companion.session.clock import TimeControl, TimeControlError
from companion.session.context import SIDES, Context
from companion.session.decisions import Decisions
from companion.session.games import Games
from companion.session.lineup import BAD_PLAYERS, player_from
from companion.session.match import MatchError, check_tie_break
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.remote import RemoteKind
from companion.session.results import GameStarted, ReadingResult
from companion.session.settings import GameSettings, SettingsError
from companion.store_types import NewMatch

# the fields of POST /api/new (and /api/match); anything else is refused, not ignored
NEW_GAME_FIELDS = frozenset({"variant", "options", "time_control", "players", "tie_break", "match",
                             "position", "turn", "coach"})
#: A reading of the board (a position of one's own) ends this long after the page last asked.
READING_S = 60.0


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
        if b is not None and not self.ctx.game.is_over() and b.terms.watching:
            raise ControlError(409, "remote_game", "this board follows a game on the server: "
                               "stop watching it first")
        if b is not None and not self.ctx.game.is_over():
            raise ControlError(409, "remote_game", f"this game is played with "
                               f"{b.terms.opponent} at a distance ({b.kind.value}): finish or "
                               "resign it first")

    def ready(self) -> None:
        """The check before a change of games or players: ControlError unless the store
        writes and no game at a distance goes on."""
        self.decisions.ready(playing=False)
        self._check_no_remote_game()

    # -- games and matches ---------------------------------------------------------------------
    def new_game(self, actor: Actor, request: Mapping[str, object]) -> GameStarted:
        """A new game (or, with ``"match": true``, a two-game match): ``variant``, ``options``,
        ``time_control``, ``players`` and ``tie_break`` as optional fields; ``position`` (OTN)
        and ``turn`` start it from a position of one's own (a study, an endgame, a game from a
        book, an imported game played on), checked for the variant (``rules.start``);
        ``coach`` the side the coach watches (``attackers``, ``defenders`` or null; left out:
        as in the game before; ``companion.session.coaching``)."""
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
            coach = ctx.coach.config.with_side(request["coach"]) if "coach" in request else None
        except (SettingsError, TimeControlError, MatchError, CoachConfigError) as exc:
            raise ControlError(400, "bad_settings", str(exc)) from None
        rules = settings.rules()
        if ctx.caps.clickable is None and rules.size != ctx.board.size:
            raise ControlError(409, "board_size", f"{rules.name} is played on {rules.size}x"
                                                  f"{rules.size}; this board is "
                                                  f"{ctx.board.size}x{ctx.board.size}")
        start = _start_position(rules, request)
        # an online game starts on the server only: its seats do not carry over to a game
        # started here (after a game played or watched online, the board plays both sides)
        # (the person at the board keeps its name; a seat of the server's gets the side's own)
        players = {side: PlayerSpec(PlayerKind.BOARD,
                                    "Player 1" if side == "attackers" else "Player 2")
                   if p.kind is PlayerKind.ONLINE else p
                   for side, p in (ctx.next_players or ctx.players).items()}
        wanted = request.get("players")
        if isinstance(wanted, Mapping):
            for side, value in wanted.items():
                if side not in SIDES or not isinstance(value, Mapping):
                    raise ControlError(400, "bad_players", BAD_PLAYERS)
                players[side] = player_from(ctx, value, players[side], side, new_game=True)
        elif wanted is not None:
            raise ControlError(400, "bad_players", BAD_PLAYERS)
        self._check_remote_players(players, request.get("match") is True)
        new_match: NewMatch | None = None
        if request.get("match") is True:
            if players["attackers"].name == players["defenders"].name:
                raise ControlError(400, "bad_players", "a match needs two player names")
            new_match = {"players": (players["attackers"].name, players["defenders"].name),
                         "tie_break": tie, "settings": {
                             **settings.to_json(), "seats": [players["attackers"].to_json(),
                                                             players["defenders"].to_json()]}}
        elif request.get("match") not in (None, False):
            raise ControlError(400, "bad_match", '"match" must be true or false')
        self.games.start(settings, tc, players, None, actor, new_match, start=start,
                         coach=coach)
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

    def next_game(self, actor: Actor) -> GameStarted:
        """Game 2 of the match: the same settings, sides swapped."""
        check(actor, Action.NEXT_GAME)
        ctx = self.ctx
        self.ready()
        m = ctx.match
        if m is None or not m.wants_next:
            raise ControlError(409, "no_next_game", "there is no match game to start next")
        players = {"attackers": ctx.players["defenders"], "defenders": ctx.players["attackers"]}
        # a match played from a position of its own plays game 2 from it too
        start = Position(ctx.game.start_position, ctx.game.start_turn)
        # the coach follows the person it coaches to the other side
        coached = ctx.coach.config.side
        coach = ctx.coach.config.with_side(
            None if coached is None else "defenders" if coached == "attackers" else "attackers")
        self.games.start(ctx.settings, ctx.clocks.tc, players, m, actor, start=start,
                         coach=coach)
        return {"game": ctx.gid, "match": m.id}

    # -- a position of one's own, set up on the board ----------------------------------------
    def read_board(self, actor: Actor, on: bool) -> ReadingResult:
        """While ``on``, the board defines the next game's position (a study, an endgame): the
        tracker neither guides the pieces back to the game nor judges them, and the state's
        guidance (``reading``) has the occupied squares and, where the sensors tell them, their
        colours; the owner's page builds the position from it and starts the game from it
        (``new_game`` with ``position`` and ``turn``), which ends the reading. It ends by itself
        :data:`READING_S` after the page last asked (a page closed meanwhile never leaves the
        board unjudged), and with ``on`` false."""
        check(actor, Action.NEW_GAME)
        ctx = self.ctx
        self.ready()
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
