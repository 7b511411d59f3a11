"""What the other end of a game at a distance does to the game here: the session's
:class:`~companion.session.remote_play.RemoteHost` (called on the loop thread by
:class:`~companion.session.remote_play.RemoteGames`, which holds no host: each call that
acts, and each command it posts, is handed this one), and the owner's ``take_record`` control
(the other end's disputed record taken: the one such call a control makes).

The other end's decisions are taken like this board's (stored first, then shown), with the
rights of the player at a distance for its side: its moves become the move to make at the board,
its draw offers and answers, resignations, takebacks and results apply as given.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from companion.rules import other
from companion.rules.board import Move
from companion.session import state
from companion.session.actors import Action, Actor, ControlError, at_a_distance, check
from companion.session.context import SIDES, Context
from companion.session.controls import Controls
from companion.session.decisions import Decided, Decisions, Note, taken_back
from companion.session.game_moves import copy_game, move_text
from companion.session.games import Games
from companion.session.players import PlayerError, PlayerKind, PlayerSpec, check_name
from companion.session.record import KEEP, Change
from companion.session.remote import RemoteClock, RemoteKind, RemoteTerms
from companion.session.results import TakeRecordResult

log = logging.getLogger("companion.session")


class RemoteActions:
    """The session as the players at a distance act on it (see the module docstring)."""

    def __init__(self, ctx: Context, decisions: Decisions, games: Games,
                 controls: Controls) -> None:
        self.ctx = ctx
        self.decisions = decisions
        self.games = games
        self.controls = controls

    def take_record(self, actor: Actor) -> TakeRecordResult:
        """The owner takes the other end's record of the game at a distance, which drops moves
        of this board's (asked on the page: never done on the other end's word alone)."""
        check(actor, Action.TAKEBACK)
        self.decisions.ready(playing=False)
        before = len(self.ctx.game.played)
        if not self.ctx.remote.take_record(self):
            raise ControlError(409, "no_dispute", "the other end's record agrees with this "
                                                  "board's game: there is nothing to take")
        return {"moves": len(self.ctx.game.played), "before": before}

    def start_remote_game(self, terms: RemoteTerms, kind: RemoteKind) -> str | None:
        ctx = self.ctx
        rules = terms.settings.rules()
        if ctx.caps.clickable is None and rules.size != ctx.board.size:
            return (f"{rules.name} is played on {rules.size}x{rules.size}; this board is "
                    f"{ctx.board.size}x{ctx.board.size}")
        if terms.watched is not None:  # both sides at the other end: the board follows
            players = {side: PlayerSpec(PlayerKind(kind.value), _name(seat.name, side.capitalize()),
                                        rating=seat.rating)
                       for side, seat in zip(SIDES, terms.watched, strict=True)}
            far = rules.first
        elif terms.local_side not in SIDES:
            return f"the board's side must be attackers or defenders, not {terms.local_side!r}"
        else:
            local, far = terms.local_side, other(terms.local_side)
            here = [p for p in (ctx.players[local], ctx.players[far])
                    if p.kind is PlayerKind.BOARD]
            name = here[0].name if here else ("Player 1" if local == "attackers" else "Player 2")
            if terms.local_name:  # who plays at this board, as the other end knows it
                name = _name(terms.local_name, name)
            players = {local: PlayerSpec(PlayerKind.BOARD, name),
                       far: PlayerSpec(PlayerKind(kind.value), _name(terms.opponent, "Opponent"),
                                       rating=terms.rating,
                                       peer=terms.opponent if kind is RemoteKind.CLUB else None)}
        try:
            self.decisions.ready(playing=False)
            self.games.start(terms.settings, terms.time_control, players, None,
                             at_a_distance(far, kind.value), remote=(kind, terms))
        except ControlError as exc:
            return exc.message
        return None

    def catch_up(self, moves: tuple[Move, ...], remote_side: str, by: str) -> None:
        ctx = self.ctx
        game = copy_game(ctx.game)
        last: Move | None = None
        texts: list[str] = []
        for i, m in enumerate(moves):
            if i == len(moves) - 1 and game.turn == remote_side and not game.is_over():
                last = m  # the person at the board makes it, as any move of theirs
                break
            if game.is_over() or not game.board.is_legal(m):
                log.warning("game %d: the other end's record has an illegal move at ply %d",
                            ctx.gid, len(game.played) + 1)
                break
            texts.append(game.play(m).text)
        if texts:
            clocks = ctx.clocks
            saved = clocks.checkpoint()
            before = clocks.before_move()
            clocks.records += [clocks.record(ctx.board_time()) for _ in texts]
            clocks.before += [before] * len(texts)
            try:  # the board is guided to the new position
                self.decisions.conclude(Decided(
                    [("remote_sync", {"moves": texts, "by": by})],
                    Change(game=game, move_to_make=None),
                    Note("remote_sync", by, {"moves": texts})), then=clocks.forget_choice)
            except ControlError:
                clocks.rollback(saved)
                return  # the storage state shows it; the other end resends on the next resync
        if last is not None:
            self.remote_move_to_make(last, by)

    def remote_move_to_make(self, move: Move, by: str) -> str | None:
        ctx = self.ctx
        text = move_text(ctx.game, move)
        if ctx.move_to_make is not None and ctx.move_to_make["move"] == text:
            return None  # shown already
        try:
            self.decisions.ready()
            if not ctx.game.board.is_legal(move):
                return f"{text} is not legal here"
            self.decisions.choose(move, by, ctx.game.turn)
        except ControlError as exc:
            return exc.message
        return None

    def take_back_to(self, ply: int, reason: str | None, by: str) -> None:
        ctx = self.ctx
        plies = len(ctx.game.played) - ply
        m = ctx.move_to_make
        if plies == 0 and m is not None and m.get("by") == by:
            # the other end took back the move it sent, not yet made here: it is withdrawn
            self.decisions.withdraw_move_to_make()
            self.decisions.expect_current()
            self.decisions.write()
            ctx.announcer.note("takeback", by, move=m.get("move"))
            self.decisions.after_control()
            return
        if plies <= 0:
            return
        undone = [p.text for p in reversed(ctx.game.played[-plies:])]  # latest first
        data: dict[str, object] = {"move": undone[-1], "moves": undone, "by": by}
        if reason is not None:
            data["reason"] = reason
        change = replace(taken_back(ctx.game, plies), refused=KEEP if reason is None else {
            "code": "remote_refused", "message": reason, "move": undone[-1]})
        try:  # (with a reason: this board's move, refused there: guided back)
            self.decisions.conclude(Decided(
                [("takeback", data)], change,
                Note("takeback", by, {k: v for k, v in data.items() if k != "by"}),
                records=ctx.clocks.records[:-plies]),
                then=lambda: self.decisions.took_back(ctx.board_time(), plies))
        except ControlError:
            log.error("game %d: the other end's takeback could not be stored", ctx.gid)

    def remote_draw(self, side: str, action: str, by: str) -> None:
        try:
            self.controls.draw(at_a_distance(side, by), action, side)
        except ControlError as exc:
            log.info("game %d: the other end's draw %s not taken: %s", self.ctx.gid, action,
                     exc.message)

    def remote_resign(self, side: str, by: str) -> None:
        try:
            self.controls.resign(at_a_distance(side, by), side)
        except ControlError as exc:
            log.info("game %d: the other end's resignation not taken: %s", self.ctx.gid,
                     exc.message)

    def remote_end(self, result: str, reason: str, by: str) -> None:
        ctx = self.ctx
        b = ctx.remote.binding
        if b is None or result not in ("attackers", "defenders", "draw"):
            log.warning("game %d: an ending %r %r ignored", ctx.gid, result, reason)
            return
        game = ctx.game
        if not game.is_over():
            game = copy_game(game)
            if result == "draw":
                game.agree_draw()
            elif reason == "time":
                game.lose_on_time(other(result))
            else:
                game.resign(other(result))
        outcome = game.outcome()
        assert outcome is not None
        ending = None if (outcome.result, str(outcome.reason)) == (result, reason) else (
            result, reason)
        try:  # announced, then the match's end
            self.decisions.conclude(Decided(
                [("remote_end", {"result": result, "reason": reason, "by": by})],
                Change(game=game, draw_offer=None),
                Note("remote_end", by, {"result": result, "reason": reason}), ending=ending),
                then=lambda: ctx.remote.ended(ending))
        except ControlError:
            log.error("game %d: the other end's result could not be stored", ctx.gid)

    def remote_clock(self, clock: RemoteClock, only: str | None) -> None:
        ctx = self.ctx
        ctx.clocks.set_remote({"attackers": clock.attackers, "defenders": clock.defenders},
                              None if ctx.game.is_over() else clock.running,
                              ctx.caps.board_time(clock.at), only)
        self.decisions.write()  # the game row's clock: a restart reads the other end's word
        state.publish(ctx)

    def remote_changed(self) -> None:
        state.publish(self.ctx)

    def remote_left(self, by: str) -> None:
        ctx = self.ctx
        m = ctx.move_to_make
        if m is not None and m.get("by") == by:  # no longer to be made: nobody sends it now
            self.decisions.withdraw_move_to_make()
            self.decisions.expect_current()
            self.decisions.write()
        ctx.announcer.note("remote_left", by)
        state.publish(ctx, force=True)


def _name(text: str, fallback: str) -> str:
    """A display name from the other end's (``fallback`` when it cannot be shown)."""
    try:
        return check_name(text)
    except PlayerError:
        return fallback
