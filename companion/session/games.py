"""Starting games: a new game or match game (stored before anything shows it), the game the
session resumes at start, and the game proposed to a player at a distance."""

from __future__ import annotations

import logging

from companion.coach.config import CoachConfig
from companion.rules import other
from companion.rules.board import Position
from companion.rules.game import Game
from companion.session import state
from companion.session.actors import Actor
from companion.session.clock import GameClock, TimeControl
from companion.session.context import SIDES, Context
from companion.session.decisions import Decisions, storage_error
from companion.session.match import Match
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.record import Opened
from companion.session.remote import RemoteKind, RemoteTerms
from companion.session.remote_terms import terms_json
from companion.session.restore import restore_session
from companion.session.settings import GameSettings
from companion.session.storage import STORE_ERRORS
from companion.store_types import NewMatch

log = logging.getLogger("companion.session")


class Games:
    """Starting, resuming and proposing games (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions) -> None:
        self.ctx = ctx
        self.decisions = decisions

    def open(self) -> None:
        """Resume the store's current game (or match) or start a new one; then announce."""
        ctx = self.ctx
        restore_session(ctx)
        self.propose_remote()
        ctx.tracker = ctx.tracker_factory(ctx.game)
        ctx.seats.sync(ctx.players, ctx.gid)
        self._warm_advisor()
        self.decisions.expect_current()
        state.refresh(ctx)
        state.publish(ctx, force=True)

    def _warm_advisor(self) -> None:
        if sum(p.is_computer for p in self.ctx.players.values()) == 1:
            self.ctx.advisor.engine.warm()  # a person plays the computer: hints come quickly

    def sync_players(self) -> None:
        """Start the computer players of the current sides, stop those no longer playing."""
        self.ctx.seats.sync(self.ctx.players, self.ctx.gid)
        self._warm_advisor()

    def propose_remote(self, only: PlayerKind | None = None) -> None:
        """A game whose side is played at a distance but not yet agreed with the other end
        (``run --defenders club:table-2``, a new game with a board of the club): propose it to
        that player (no move is accepted until its ``RemoteStart``); ``only``: players of that
        kind."""
        ctx = self.ctx
        if ctx.remote.binding is not None:
            return
        for side in SIDES:
            spec = ctx.players[side]
            if spec.is_remote and only in (None, spec.kind):
                # a club board is found by its name in the club (the peer), not a display name
                terms = RemoteTerms(ctx.settings, ctx.clocks.tc, other(side),
                                    spec.peer or spec.name or "", "")
                ctx.remote.bind(RemoteKind(spec.kind.value), terms)

    def start(self, settings: GameSettings, tc: TimeControl | None,
              players: dict[str, PlayerSpec], match: Match | None, actor: Actor,
              new_match: NewMatch | None = None,
              remote: tuple[RemoteKind, RemoteTerms] | None = None,
              start: Position | None = None, place: bool = True,
              coach: CoachConfig | None = None) -> None:
        """A new game (game 2 of ``match``, game 1 of ``new_match``, or with a player at a
        distance on ``remote`` terms; from the ``start`` position, or the variant's), stored
        first; the game before it, unfinished, is closed as abandoned. A simulated board gets
        the new position unless ``place`` is false (a puzzle: it keeps its pieces, of the same
        size, and the set-up guidance is followed by clicks as on a real board). ``coach``: the
        side coached (None: as in the game before)."""
        ctx = self.ctx
        rules = settings.rules()
        game = Game(rules, start.otn, start.turn) if start else Game(rules)
        clock = GameClock(tc) if tc else None
        number = len(match.game_ids) + 1 if match is not None else None
        old = ctx.gid
        try:
            if old and not ctx.game.is_over():
                ctx.store.abandon(old, events=list(ctx.outbox.rows))
                ctx.outbox.rows.clear()
            gid = ctx.store.new_game(
                game, {s: p.to_json() for s, p in players.items()}, ctx.wall(),
                settings=settings.to_json(), time_control=tc.text if tc else None,
                clock=clock.snapshot() if clock else None,
                match_id=match.id if match else None, match_game=number,
                new_match=new_match,
                remote=terms_json(*remote) if remote else None)
            if new_match is not None:
                mid = ctx.store.game(gid).match_id
                assert mid is not None
                match = Match(mid, new_match["players"], tuple(new_match["tie_break"]))
                number = 1
        except STORE_ERRORS:
            raise storage_error() from None
        ctx.remote.unbind()  # the game before is no longer played with anyone at a distance
        if match is not None:
            match.game_ids.append(gid)
        ctx.seats.cancel()
        ctx.record.open(Opened(gid, game, settings, players, match))
        self.sync_players()
        ctx.clocks.new_game(tc)  # it runs once the board is set up
        ctx.advisor.new_game()
        ctx.coach.new_game(coach or ctx.coach.config)
        ctx.seats.forget_hopeless()
        ctx.left_start = False
        board = ctx.caps.clickable
        if board is not None and (place or rules.size != ctx.board.size
                                  or ctx.occupied is None):
            board.resize(rules.size, game.board.occupied_names() if place
                         else Game(rules).board.occupied_names())
        ctx.fed = None
        if remote is not None:
            ctx.remote.bind(*remote, started=False)  # started() once its moves are known
        own = {"position": str(start)} if start and start.otn != rules.start else {}
        ctx.announcer.note("new_game", actor.label, game=gid, variant=settings.variant,
                           match=match.id if match else None, **own)
        log.info("new game %d: %s%s", gid, rules.name,
                 f" (match {match.id}, game {number})" if match else "")
        self.decisions.after_control()

