"""The session's controls: what the owner, a player or the hands at the board ask for.

Each control checks the actor's permission (:func:`companion.session.actors.check`), computes the
new state on copies, writes it to the store in one transaction, and only then applies it; a
control that cannot be written (the store fails) raises ``ControlError(503, "storage")`` and
changes nothing. Rules of play (docs/session.md):

* takeback reopens exactly the last decision: a draw agreement, a resignation, or a move (a
  loss on time is final);
* a draw offer stands until the opponent accepts, declines or makes a move;
* swapping sides never rewrites a finished game: after a game it applies to the next one;
* in a match the sides swap by themselves for game 2; the match ends after two games.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import sqlite3
from collections.abc import Mapping

from companion.rules import other
from companion.rules.board import Move, MoveError
from companion.rules.game import Game
from companion.session import advice, choice
from companion.session.actors import (
    Action,
    Actor,
    ControlError,
    Role,
    at_a_distance,
    check,
    player,
)
from companion.session.clock import SIDES, GameClock, TimeControl, TimeControlError
from companion.session.commands import on_loop
from companion.session.computer import check_engine_allowed, computer_sides, takeback_plies
from companion.session.core import PRESS, SessionCore
from companion.session.match import Match, MatchError, check_tie_break, side_of_seat
from companion.session.players import (
    EngineNotAllowed,
    PlayerError,
    PlayerKind,
    PlayerSpec,
    check_move_player,
    check_name,
    spec_from_json,
)
from companion.session.remote import RemoteClock, RemoteKind, RemotePlayer, RemoteTerms
from companion.session.remote_play import terms_json
from companion.session.settings import GameSettings, SettingsError
from companion.session.state import game_state
from companion.session.tracking import copy_game
from companion.store import StoreError

log = logging.getLogger("companion.session")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
# the fields of POST /api/new (and /api/match); anything else is refused, not ignored
NEW_GAME_FIELDS = frozenset({"variant", "options", "time_control", "players", "tie_break", "match"})
_MOVE = re.compile(r"^([a-s])([1-9][0-9]?)-([a-s])([1-9][0-9]?)$")


def _storage_error() -> ControlError:
    return ControlError(503, "storage", "moves are not being saved (the store cannot write): "
                                        "try again once it writes")


class GameSession(SessionCore):
    """The session: :class:`~companion.session.core.SessionCore` (the loop, proposals,
    storage) plus the controls. All public methods are thread-safe."""

    # -- reading for the web ---------------------------------------------------------------
    def state_text(self) -> str:
        return self.snapshot.text

    def actor_for_player_token(self, token: str) -> Actor | None:
        """The player a link's token stands for now (any thread: the store's link row and the
        published snapshot, never the loop's state)."""
        if not isinstance(token, str) or not _TOKEN.match(token):
            return None
        link = None
        for known, row in list(self.links.items()):
            if hmac.compare_digest(known, token):
                link = row
        if link is None:
            link = self.store.link(token)
            if link is None:
                return None
            self.links[token] = link
        side = self._link_side(link)
        return player(side) if side else None

    def _link_side(self, link: Mapping) -> str | None:
        snap = self.snapshot
        if link.get("match_id") is not None:
            if snap.match_id != link["match_id"] or link.get("seat") is None:
                return None
            return side_of_seat(snap.match_number, int(link["seat"]))
        return link.get("side") if link.get("game_id") == snap.gid else None

    def legal_moves(self) -> dict:
        return dict(self.snapshot.legal)

    @on_loop
    def set_display(self, lines: list[str] | None) -> None:
        """The text the board's display shows now (``display.lines`` of the state; the panel,
        companion.panel, calls this); published with the command."""
        self.display = {"lines": list(lines)} if lines is not None else None

    # -- helpers -----------------------------------------------------------------------------
    def _side_arg(self, actor: Actor, side: object) -> str:
        if side is None and actor.role is Role.PLAYER and actor.side:
            return actor.side
        if side not in SIDES:
            raise ControlError(400, "bad_side", '"side" must be attackers or defenders')
        return str(side)

    def _ready(self, *, playing: bool = True) -> None:
        if not self.storage["ok"]:
            raise _storage_error()
        if playing and self.game.is_over():
            raise ControlError(409, "game_over", "the game is over")

    def _check_no_remote_game(self, proposal_ok: bool = False) -> None:
        """409 during a game at a distance (``proposal_ok``: not while a game proposed here
        still waits for the other end's agreement: a new game withdraws it)."""
        b = self.remote.binding
        if proposal_ok and not self.remote.agreed:
            return
        if b is not None and not self.game.is_over():
            raise ControlError(409, "remote_game", f"this game is played with "
                               f"{b.terms.opponent} at a distance ({b.kind.value}): finish or "
                               "resign it first")

    def _check_remote_side(self, actor: Actor, side: str) -> None:
        if side == self.remote.remote_side and not self._is_remote(actor):
            raise ControlError(409, "remote_side", f"the {side} play at a distance: only they "
                                                   "decide for their side")

    def _check_remote_takeback(self) -> None:
        if self.remote.binding is not None and not self.remote.takebacks:
            raise ControlError(409, "no_takebacks", "takebacks are not allowed in this game "
                                                    "at a distance")

    def _is_remote(self, actor: Actor) -> bool:
        b = self.remote.binding
        return b is not None and actor.name == b.kind.value

    def _commit(self, game: Game, rows: list, *,
                move_clocks: list | None = None, clock: GameClock | None = None,
                ending: tuple[str, str] | None = None) -> None:
        """Write a control's result (with the pending tracker rows); 503 if it cannot. The move
        to make is kept when ``game`` is the current game, cleared when the control changes the
        game (a takeback, an ending)."""
        wall = self.wall()
        all_rows = list(self.rows) + [(k, d, wall) for k, d in rows]
        the_clock = clock or self.clock
        try:
            self.store.sync_game(self.gid, game, all_rows,
                                 move_clocks=self.move_clocks if move_clocks is None
                                 else move_clocks,
                                 clock=the_clock.snapshot() if the_clock else None,
                                 hints=self.hints, pending=self.pending_record(game),
                             ending=self.remote.ending if ending is None else ending)
        except (sqlite3.Error, OSError) as exc:
            log.error("a control could not be written (%s); nothing changed", exc)
            self._storage_failed(exc, None)
            raise _storage_error() from None
        self.rows.clear()
        for line in self._unlogged:
            log.info("%s", line)
        self._unlogged.clear()
        self.remote.flush()

    def _after_control(self) -> None:
        """Re-synchronise the tracker with the game and announce."""
        self._handle_plain(self.tracker.reset(self.game, self.board_time()))
        self._expect_current()
        self._game_json = game_state(self)
        self._fed = None  # the next scan is fed to the tracker whatever it reads
        self.publish(force=True)

    # -- the simulated board -------------------------------------------------------------------
    @on_loop
    def click(self, actor: Actor, square: str) -> bool:
        check(actor, Action.CLICK)
        board = self.caps.clickable
        if board is None:
            raise ControlError(409, "real_board", f"the board is a real board "
                                                  f"({self.board.kind}): move the pieces by hand")
        if not isinstance(square, str) or square not in self.game.board.geo.names:
            raise ControlError(400, "bad_square", f"not a square of this board: {square!r}")
        return board.toggle(square)  # the tracker sees it at the next scan

    # -- remote moves -------------------------------------------------------------------------
    @on_loop
    def choose_move(self, actor: Actor, move: str) -> dict:
        """A move chosen off the board (a page player): the person at the board makes it."""
        turn = self.game.turn
        check(actor, Action.MOVE, turn)
        self._ready()
        if self.players[turn].kind is PlayerKind.BOARD:
            raise ControlError(409, "at_the_board", f"the {turn} play at the board: make "
                                                    "the move there")
        if self.players[turn].is_remote:
            raise ControlError(409, "remote_side", f"the {turn} play at a distance: their "
                                                   "moves come from there")
        m = _MOVE.match(move) if isinstance(move, str) else None
        board = self.game.board
        names = board.geo.names
        if m is None or f"{m[1]}{m[2]}" not in names or f"{m[3]}{m[4]}" not in names:
            raise ControlError(400, "bad_move", f'"move" must be FROM-TO on this board, such '
                                                f'as g3-e3, not {move!r}')
        frm, to = f"{m[1]}{m[2]}", f"{m[3]}{m[4]}"
        try:
            parsed, _ = board.parse_move(f"{frm}-{to}")
        except (MoveError, ValueError) as exc:
            raise ControlError(409, "illegal_move", f"{frm}-{to} is not legal: {exc}"
                               ) from None
        if not board.is_legal(parsed):
            raise ControlError(409, "illegal_move", f"{frm}-{to} is not a legal move of the "
                                                    f"{turn} here")
        return self._choose(parsed, self.players[turn].kind.value, actor.label)

    def _choose(self, parsed: Move, by: str, label: str) -> dict:
        """Make ``parsed`` (legal for the side to move) the move to make, chosen off the board
        by a player of kind ``by``: stored before it is shown, the chooser's clock stopped."""
        board = self.game.board
        names = board.geo.names
        turn = self.game.turn
        frm, to = names[parsed.frm], names[parsed.to]
        caps, _ = board.preview(parsed)
        captures = sorted(names[s] for s in board.geo.iter_bits(caps))
        chosen = {"move": f"{frm}-{to}", "from": frm, "to": to, "by": by, "side": turn,
                  "captures": captures}
        saved = (self.move_to_make, self.clock, self.choice_clock, self.choice_held)
        old_clock = self.clock
        if old_clock is not None:  # choose() switches a copy: the old one if unstored
            self.clock = GameClock.restore(old_clock.snapshot())
            self.clock.since = old_clock.since
        choice.choose(self, chosen)  # the chooser's clock stops now
        try:  # stored before it is shown: it survives a crash or a restart
            self._commit(self.game, [("move_to_make", dict(chosen))])
        except ControlError:
            self.move_to_make, self.clock, self.choice_clock, self.choice_held = saved
            raise
        self.refused = None
        self._expect_current()
        self._note("move_to_make", label, move=f"{frm}-{to}", side=turn)
        self._game_json = game_state(self)  # the clocks switched
        self.publish(force=True)
        return dict(chosen)

    # -- decisions ------------------------------------------------------------------------------
    @on_loop
    def takeback(self, actor: Actor) -> dict:
        """Reopen the last decision: a draw agreement, a resignation, or a move (against the
        computer: the person's last move and the computer's reply)."""
        check(actor, Action.TAKEBACK)
        self._ready(playing=False)
        self._check_remote_takeback()
        outcome = self.game.outcome()
        reason = str(outcome.reason) if outcome else None
        if reason == "time":
            # final, as with any game clock: reopened, the loser's clock would read 0:00
            # and the flag fall again at once (docs/session.md); breaks are what the
            # owner's pause is for
            raise ControlError(409, "time_loss", "a loss on time is final: the flag fell "
                               "with nothing left on the clock; start a new game (pause the "
                               "clock for a break next time)")
        if reason in ("agreement", "resignation"):
            if self.remote.binding is not None:
                raise ControlError(409, "remote_game", "the game at a distance ended by the "
                                   "other end's word too: it cannot be reopened here")
            game = copy_game(self.game, manual=False)
            self._commit(game, [("takeback", {"reopened": reason, "by": actor.label})])
            self.game = game
            if self.clock is not None and self.tc is not None:
                self.clock.flagged = None
                self.clock.start(game.turn, self.board_time())
            self._reopen_match_game()
            self._note("takeback", actor.label, reopened=reason)
            self._after_control()
            return {"undone": reason, "reopened": reason}
        plies = takeback_plies(self)
        if not plies:
            what = "move" if not self.game.played else "move of a person"
            raise ControlError(409, "nothing_to_take_back", f"there is no {what} to take "
                                                            "back")
        undone = [p.text for p in reversed(self.game.played[-plies:])]  # latest first
        game = copy_game(self.game, manual=False)
        for _ in range(plies):
            game.undo()
        data: dict = {"move": undone[-1], "by": actor.label}
        if plies > 1:
            data["moves"] = undone
        self._commit(game, [("takeback", data)], move_clocks=self.move_clocks[:-plies])
        stopped = self._apply_takeback(self.board_time(), plies)
        self.remote.took_back(len(self.game.played))
        self.remote.flush()
        self._note("takeback", actor.label, **{k: v for k, v in data.items() if k != "by"})
        self._after_control()
        out: dict = {"undone": undone[-1], "moves": undone}
        if stopped:
            out["stopped"] = True
        return out

    @on_loop
    def draw(self, actor: Actor, action: str, side: str | None, *,
             score: float | None = None) -> dict:
        """Offer, accept or decline a draw (``score``: the computer's evaluation it answered
        by, kept with the event)."""
        if action not in ("offer", "accept", "decline"):
            raise ControlError(400, "bad_action", '"action" must be offer, accept or decline')
        side = self._side_arg(actor, side)
        check(actor, Action.DRAW, side)
        self._ready()
        self._check_remote_side(actor, side)
        extra = {} if score is None else {"score": score}
        rows = [("draw", {"action": action, "side": side, "by": actor.label, **extra})]
        if action == "offer":
            if self.draw_offer == side:
                raise ControlError(409, "already_offered", f"the {side} already offer a draw")
            self._commit(self.game, rows)
            self.draw_offer = side
        else:
            if self.draw_offer is None or self.draw_offer == side:
                raise ControlError(409, "no_offer",
                                   f"there is no draw offer for the {side} to {action}")
            if action == "accept":
                game = copy_game(self.game)
                game.agree_draw()
                self._commit(game, rows)
                self.game = game
                self._game_ended(self.board_time())
            else:
                self._commit(self.game, rows)
            self.draw_offer = None
        if not self._is_remote(actor):
            self.remote.drew(side, action)
            self.remote.flush()
        self._note("draw", actor.label, action=action, side=side, **extra)
        opponent = other(side)
        if action == "offer" and opponent in computer_sides(self):
            advice.ask_draw_answer(self, opponent)  # it answers by its evaluation
        self._after_control()
        return {"ok": True, "draw_offer": self.draw_offer}

    @on_loop
    def resign(self, actor: Actor, side: str | None) -> dict:
        side = self._side_arg(actor, side)
        check(actor, Action.RESIGN, side)
        self._ready()
        self._check_remote_side(actor, side)
        game = copy_game(self.game)
        game.resign(side)
        extra = {"computer": True} if actor.name == "computer" else {}
        self._commit(game, [("resign", {"side": side, "by": actor.label, **extra})])
        self.game = game
        if not self._is_remote(actor):
            self.remote.resigned(side)
            self.remote.flush()
        self.draw_offer = None
        self._game_ended(self.board_time())
        self._note("resign", actor.label, side=side, **extra)
        self._after_control()
        return {"ok": True, "result": game.result}

    def flag_fall(self, side: str, at: float) -> None:
        """``side``'s time ran out at ``at``: a loss on time (stored, then shown)."""
        clock = GameClock.restore(self.clock.snapshot()) if self.clock else None
        if clock is not None and self.clock is not None:
            clock.since = self.clock.since
            clock.stop(at)
            clock.flagged = side
        game = copy_game(self.game)
        game.lose_on_time(side)
        try:
            self._commit(game, [("flag", {"side": side, "board_t": round(at, 3)})], clock=clock)
        except ControlError:
            return  # the store fails: the storage state shows it; retried next scan
        self.game, self.clock = game, clock
        self.draw_offer = None
        log.info("game %d: the %s lost on time", self.gid, side)
        self._game_ended(at)
        self._note("flag", "clock", side=side)
        self._after_control()

    @on_loop
    def clock_control(self, actor: Actor, action: str) -> dict:
        check(actor, Action.CLOCK)
        if action not in ("pause", "resume", "start"):
            raise ControlError(400, "bad_action", '"action" must be pause, resume or start')
        self._ready()
        if self.remote.authoritative_clock or self.remote.binding is not None:
            raise ControlError(409, "remote_clock", "the clocks are the other end's in this "
                                                    "game: they cannot be paused here")
        if self.clock is None:
            raise ControlError(409, "no_clock", "this game has no clock")
        clock = GameClock.restore(self.clock.snapshot())
        clock.since = self.clock.since
        t = self.board_time()
        if action == "start":  # the board's clock button: before the first move
            side = choice.side_to_start(self)
            if clock.running is not None or clock.paused or side is None:
                raise ControlError(409, "clock_running", "the clock is running already "
                                                         "(or paused: resume it)")
            clock.start(side, t)
        else:
            clock.pause(t) if action == "pause" else clock.resume(t)
        saved = (self.clock, self.choice_clock, self.choice_held)
        self.clock = clock
        if action in ("resume", "start"):
            choice.catch_up(self, t)  # a move chosen during the pause: its clock stops
        try:
            self._commit(self.game, [("clock", {"action": action, "by": actor.label})],
                         clock=self.clock)
        except ControlError:
            self.clock, self.choice_clock, self.choice_held = saved
            raise
        self._note("clock", actor.label, action=action)
        self._after_control()
        return {"ok": True, "paused": clock.paused}

    @on_loop
    def end_move(self, actor: Actor) -> dict:
        """The clock button after a move at the board (``press_to_end``): the mover's clock
        stops and the opponent's starts now (once the captured pieces are lifted too)."""
        check(actor, Action.CLOCK)
        self._ready()
        waiting = self.pending_switch
        if waiting is None or PRESS not in waiting[1]:
            raise ControlError(409, "no_move_to_end", "no move waits for the clock button")
        self._capture_lifted(PRESS, self.board_time())
        self._note("clock", actor.label, action="end_move")
        self._write()
        return {"ok": True, "switched": self.pending_switch is None}

    # -- players ---------------------------------------------------------------------------------
    @on_loop
    def swap(self, actor: Actor) -> dict:
        """The two players change sides; a finished game is never rewritten (the swap then
        applies to the next game)."""
        check(actor, Action.SWAP)
        self._ready(playing=False)
        self._check_no_remote_game()
        if self.match is not None and not self.match.finished:
            raise ControlError(409, "match", "in a match the sides swap by themselves for "
                                             "game 2")
        current = self.next_players or self.players
        swapped = {"attackers": current["defenders"], "defenders": current["attackers"]}
        if self.game.is_over():
            self.next_players = swapped
            self.rows.append(("swap", {"next_game": True, "by": actor.label}, self.wall()))
        else:
            self._store_players(swapped, actor)
        self._note("swap", actor.label, next_game=self.game.is_over())
        self._after_control()
        return {"players": {s: p.name for s, p in swapped.items()},
                "applies_to": "next_game" if self.game.is_over() else "this_game"}

    def _store_players(self, players: dict[str, PlayerSpec], actor: Actor) -> None:
        try:
            self.store.set_players(self.gid, {s: p.to_json() for s, p in players.items()},
                                   events=[("players", {"by": actor.label, **{
                                       s: p.to_json() for s, p in players.items()}},
                                       self.wall())])
        except StoreError as exc:
            raise ControlError(409, "finished", str(exc)) from None
        except (sqlite3.Error, OSError):
            raise _storage_error() from None
        m = self.move_to_make
        drop = m is not None and players[m["side"]].named("") != self.players[m["side"]].named("")
        self.players = players
        self.next_players = None
        self.sync_move_players()
        if drop:  # its side is now played by someone else: the chosen move is not theirs
            choice.withdraw(self)
            self._expect_current()
            self._write()

    @on_loop
    def set_players(self, actor: Actor, request: Mapping[str, object]) -> dict:
        """Names and kinds per side: ``{"attackers": {"name": .., "kind": "page"}, ...}``."""
        check(actor, Action.PLAYERS)
        self._ready(playing=False)
        self._check_no_remote_game()
        base = self.next_players or self.players
        players = dict(base)
        for side, value in request.items():
            if side not in SIDES or not isinstance(value, Mapping):
                raise ControlError(400, "bad_players", "players: {attackers|defenders: "
                                                       "{name?, kind?}}")
            players[side] = self._player_from(value, base[side], side)
        if self.game.is_over():
            self.next_players = players
        else:
            self._store_players(players, actor)
        self._note("players", actor.label)
        self._after_control()
        return {"players": {s: p.to_json() for s, p in players.items()}}

    @on_loop
    def player_links(self, actor: Actor) -> dict:
        """One link per side of the current game (per seat of the current match)."""
        check(actor, Action.LINKS)
        self._ready(playing=False)
        m = self.match
        known = (self.store.links_for(match_id=m.id) if m is not None
                 else self.store.links_for(game_id=self.gid))
        out = {}
        try:
            for side in SIDES:
                if m is not None:
                    seat = m.seat(m.number, side)
                    link = next((k for k in known if k["seat"] == seat), None)
                else:
                    link = next((k for k in known if k["side"] == side), None)
                if link is None:
                    token = secrets.token_urlsafe(24)
                    if m is not None:
                        self.store.add_link(token, match_id=m.id, seat=seat)
                    else:
                        self.store.add_link(token, game_id=self.gid, side=side)
                    link = self.store.link(token)
                assert link is not None
                self.links[link["token"]] = link
                out[side] = {"token": link["token"], "path": f"/?player={link['token']}",
                             "player": self.players[side].name}
        except (sqlite3.Error, OSError):
            raise _storage_error() from None
        return {"links": out, "match": m.id if m else None, "game": self.gid}

    def _player_from(self, value: Mapping, base: PlayerSpec, side: str,
                     new_game: bool = False) -> PlayerSpec:
        """A side's player from the API (owner only; an engine command must be allowed; a
        board of the club only for a new game: proposed to it)."""
        try:
            spec = spec_from_json(value, base, side,
                                  lambda command: check_engine_allowed(self, command),
                                  club_ok=new_game)
            check_move_player(spec, side)
            return spec
        except EngineNotAllowed as exc:
            raise ControlError(403, "engine_not_allowed", str(exc)) from None
        except PlayerError as exc:
            raise ControlError(400, "bad_players", str(exc).removeprefix("--")) from None

    # -- the computer's help: hints and analyses -------------------------------------------------
    @on_loop
    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, dict]:
        """Ask the engine for a move for the side to move (companion.session.advice)."""
        check(actor, Action.HINT)
        if self.remote.binding is not None:
            raise ControlError(409, "no_hint", "no hints in a game against a player at a "
                                               "distance")
        return advice.request_hint(self, actor, seconds)

    @on_loop
    def start_analysis(self, actor: Actor, gid: int, seconds: object = None) -> tuple[int, dict]:
        """Analyse stored game ``gid`` on the worker: (202, progress) or (200, stored)."""
        check(actor, Action.ANALYSE)
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(
                seconds, int | float) or not 0.05 <= seconds <= 30):
            raise ControlError(400, "bad_request", '"seconds" must be a number from 0.05 to 30')
        try:
            row = self.store.game(gid)
        except StoreError:
            raise ControlError(404, "not_found", f"no game {gid}") from None
        if gid == self.gid and not self.game.is_over():
            raise ControlError(409, "game_ongoing", "this game is being played: it can be "
                                                   "analysed once it is over")
        if row.plies == 0:
            raise ControlError(409, "no_moves", f"game {gid} has no moves to analyse")
        secs = float(seconds) if seconds is not None else self.defaults.computer.analysis_seconds
        try:
            return self.analyses.start(gid, secs)
        except (sqlite3.Error, OSError):
            raise _storage_error() from None

    def analysis(self, gid: int) -> dict:
        """The analysis of stored game ``gid``: none, running (with progress), done, failed."""
        try:
            self.store.game(gid)
        except StoreError:
            raise ControlError(404, "not_found", f"no game {gid}") from None
        return self.analyses.status(gid)

    # -- games and matches ----------------------------------------------------------------------
    @on_loop
    def new_game(self, actor: Actor, request: Mapping[str, object]) -> dict:
        """A new game (or, with ``"match": true``, a two-game match): ``variant``, ``options``,
        ``time_control``, ``players`` and ``tie_break`` as optional fields."""
        check(actor, Action.NEW_GAME)
        unknown = sorted(set(request) - NEW_GAME_FIELDS)
        if unknown:  # a misspelt field ("rules" for "options") must not start a different game
            raise ControlError(400, "bad_field", f"unknown field {unknown[0]!r}; a new game "
                                                 f"takes {', '.join(sorted(NEW_GAME_FIELDS))}")
        self._ready(playing=False)
        self._check_no_remote_game(proposal_ok=True)
        variant = request.get("variant") or self.settings.variant
        raw_opts = request.get("options")
        try:
            if raw_opts is None and variant == self.settings.variant:
                settings = self.settings
            elif raw_opts is None:
                settings = self.settings.with_variant(str(variant))
            else:
                if not isinstance(raw_opts, Mapping):
                    raise SettingsError("options must be an object of rule options")
                settings = GameSettings.make(variant, raw_opts)
            tc = self.tc
            if "time_control" in request:
                tc = TimeControl.parse(str(request.get("time_control")))
            tie = self.defaults.tie_break
            if "tie_break" in request:
                tie = check_tie_break(request.get("tie_break"))
        except (SettingsError, TimeControlError, MatchError) as exc:
            raise ControlError(400, "bad_settings", str(exc)) from None
        rules = settings.rules()
        board = self.caps.clickable
        if board is None and rules.size != self.board.size:
            raise ControlError(409, "board_size", f"{rules.name} is played on {rules.size}x"
                                                  f"{rules.size}; this board is "
                                                  f"{self.board.size}x{self.board.size}")
        players = dict(self.next_players or self.players)
        wanted = request.get("players")
        if isinstance(wanted, Mapping):
            for side, value in wanted.items():
                if side not in SIDES or not isinstance(value, Mapping):
                    raise ControlError(400, "bad_players", "players: {attackers|defenders: "
                                                           "{name?, kind?}}")
                players[side] = self._player_from(value, players[side], side, new_game=True)
        elif wanted is not None:
            raise ControlError(400, "bad_players", "players: {attackers|defenders: "
                                                   "{name?, kind?}}")
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
        self._start_game(settings, tc, players, None, actor, new_match)
        # a board of the club plays a side: the game is proposed to it (its answer starts it)
        self._propose_remote(only=PlayerKind.CLUB)
        self.publish(force=True)
        return {"game": self.gid, "match": self.match.id if self.match else None}

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
        if RemoteKind(kind) not in self.remote.attached():
            raise ControlError(409, f"no_{kind}", f"playing {kind} needs the [{kind}] "
                                                  "settings in the config")

    @on_loop
    def next_game(self, actor: Actor) -> dict:
        """Game 2 of the match: the same settings, sides swapped."""
        check(actor, Action.NEXT_GAME)
        self._ready(playing=False)
        self._check_no_remote_game()
        m = self.match
        if m is None or not m.wants_next:
            raise ControlError(409, "no_next_game", "there is no match game to start next")
        players = {"attackers": self.players["defenders"],
                   "defenders": self.players["attackers"]}
        self._start_game(self.settings, self.tc, players, m, actor)
        return {"game": self.gid, "match": m.id}

    def _start_game(self, settings: GameSettings, tc: TimeControl | None,
                    players: dict[str, PlayerSpec], match: Match | None, actor: Actor,
                    new_match: dict | None = None,
                    remote: tuple[RemoteKind, RemoteTerms] | None = None) -> None:
        rules = settings.rules()
        game = Game(rules)
        clock = GameClock(tc) if tc else None
        number = None
        if match is not None:
            number = len(match.game_ids) + 1
        wall = self.wall()
        old = self.gid
        try:
            if old and not self.game.is_over():
                self.store.abandon(old, events=list(self.rows))
                self.rows.clear()
            gid = self.store.new_game(
                game, {s: p.to_json() for s, p in players.items()}, wall,
                settings=settings.to_json(), time_control=tc.text if tc else None,
                clock=clock.snapshot() if clock else None,
                match_id=match.id if match else None, match_game=number, new_match=new_match,
                remote=terms_json(*remote) if remote else None)
        except (sqlite3.Error, OSError):
            raise _storage_error() from None
        self.remote.unbind()  # the game before is no longer played with anyone at a distance
        if new_match is not None:
            mid = self.store.game(gid).match_id
            assert mid is not None
            match = Match(mid, new_match["players"], tuple(new_match["tie_break"]))
            number = 1
        if match is not None:
            match.game_ids.append(gid)
        self.cancel_move_players()
        self.gid, self.game, self.settings, self.tc = gid, game, settings, tc
        self.players, self.next_players, self.match = players, None, match
        self.sync_move_players()
        self.clock, self.move_clocks, self.before = clock, [], []  # runs once set up
        self.pending_switch = None
        self.draw_offer = self.move_to_make = self.refused = None
        choice.forget(self)
        self.hint = self.hint_pending = None
        self.hints = {side: 0 for side in SIDES}
        self.hopeless = {}
        self.advisor.clear()
        self._left_start = False
        board = self.caps.clickable
        if board is not None:
            board.resize(rules.size, game.board.occupied_names())
        self._fed = None
        if remote is not None:
            self.remote.bind(*remote, started=False)  # started() once its moves are known
        self._note("new_game", actor.label, game=gid, variant=settings.variant,
                   match=match.id if match else None)
        log.info("new game %d: %s%s", gid, rules.name,
                 f" (match {match.id}, game {number})" if match else "")
        self._after_control()

    # -- players at a distance (companion.session.remote_play.RemoteHost) --------------------
    def attach_remote(self, player: RemotePlayer) -> None:
        """Play with ``player`` (online, club) from now on: any thread, never blocks. The stored
        game with a player of its kind goes on with it; its ``RemoteStart`` starts a game."""
        if self.commands.on_loop_thread():
            self.remote.attach(player)
            self.publish()
        else:
            self.commands.post(lambda: self.remote.attach(player), "attach_remote")

    def start_remote_game(self, terms: RemoteTerms, kind: RemoteKind) -> str | None:
        rules = terms.settings.rules()
        if self.caps.clickable is None and rules.size != self.board.size:
            return (f"{rules.name} is played on {rules.size}x{rules.size}; this board is "
                    f"{self.board.size}x{self.board.size}")
        if terms.local_side not in SIDES:
            return f"the board's side must be attackers or defenders, not {terms.local_side!r}"
        local, far = terms.local_side, other(terms.local_side)
        here = [p for p in (self.players[local], self.players[far]) if p.kind is PlayerKind.BOARD]
        name = here[0].name if here else ("Player 1" if local == "attackers" else "Player 2")
        try:
            opponent = check_name(terms.opponent)
        except PlayerError:
            opponent = "Opponent"
        players = {local: PlayerSpec(PlayerKind.BOARD, name),
                   far: PlayerSpec(PlayerKind(kind.value), opponent, rating=terms.rating,
                                   peer=terms.opponent if kind is RemoteKind.CLUB else None)}
        try:
            self._ready(playing=False)
            self._start_game(terms.settings, terms.time_control, players, None,
                             at_a_distance(far, kind.value), remote=(kind, terms))
        except ControlError as exc:
            return exc.message
        return None

    def catch_up(self, moves: tuple[Move, ...], remote_side: str, by: str) -> None:
        game = copy_game(self.game)
        last: Move | None = None
        texts: list[str] = []
        for i, m in enumerate(moves):
            if i == len(moves) - 1 and game.turn == remote_side and not game.is_over():
                last = m  # the person at the board makes it, as any move of theirs
                break
            if game.is_over() or not game.board.is_legal(m):
                log.warning("game %d: the other end's record has an illegal move at ply %d",
                            self.gid, len(game.played) + 1)
                break
            texts.append(game.play(m).text)
        if texts:
            records = [self._clock_record(self.board_time()) for _ in texts]
            clocks = self.move_clocks + records
            try:
                self._commit(game, [("remote_sync", {"moves": texts, "by": by})],
                             move_clocks=clocks)
            except ControlError:
                return  # the storage state shows it; the other end resends on the next resync
            before = (self.clock.snapshot(), self.clock.since) if self.clock else (None, None)
            self.game, self.move_clocks = game, clocks
            self.before += [before] * len(texts)
            self.move_to_make = None
            choice.forget(self)
            self._note("remote_sync", by, moves=texts)
            if game.is_over():
                self._game_ended(self.board_time())
            self._after_control()  # the board is guided to the new position
        if last is not None:
            self.remote_move_to_make(last, by)

    def remote_move_to_make(self, move: Move, by: str) -> str | None:
        board = self.game.board
        text = f"{board.geo.names[move.frm]}-{board.geo.names[move.to]}"
        if self.move_to_make is not None and self.move_to_make["move"] == text:
            return None  # shown already
        try:
            self._ready()
            if not board.is_legal(move):
                return f"{text} is not legal here"
            self._choose(move, by, self.game.turn)
        except ControlError as exc:
            return exc.message
        return None

    def take_back_to(self, ply: int, reason: str | None, by: str) -> None:
        plies = len(self.game.played) - ply
        m = self.move_to_make
        if plies == 0 and m is not None and m.get("by") == by:
            # the other end took back the move it sent, not yet made here: it is withdrawn
            choice.withdraw(self)
            self._expect_current()
            self._write()
            self._note("takeback", by, move=m.get("move"))
            self._after_control()
            return
        if plies <= 0:
            return
        undone = [p.text for p in reversed(self.game.played[-plies:])]  # latest first
        game = copy_game(self.game, manual=False)
        for _ in range(plies):
            game.undo()
        data: dict = {"move": undone[-1], "moves": undone, "by": by}
        if reason is not None:
            data["reason"] = reason
        try:
            self._commit(game, [("takeback", data)], move_clocks=self.move_clocks[:-plies])
        except ControlError:
            log.error("game %d: the other end's takeback could not be stored", self.gid)
            return
        self._apply_takeback(self.board_time(), plies)
        if reason is not None:  # this board's move, refused there: guided back
            self.refused = {"code": "remote_refused", "message": reason, "move": undone[-1]}
        self._note("takeback", by, **{k: v for k, v in data.items() if k != "by"})
        self._after_control()

    def remote_draw(self, side: str, action: str, by: str) -> None:
        try:
            self.draw(at_a_distance(side, by), action, side)
        except ControlError as exc:
            log.info("game %d: the other end's draw %s not taken: %s", self.gid, action,
                     exc.message)

    def remote_resign(self, side: str, by: str) -> None:
        try:
            self.resign(at_a_distance(side, by), side)
        except ControlError as exc:
            log.info("game %d: the other end's resignation not taken: %s", self.gid,
                     exc.message)

    def remote_end(self, result: str, reason: str, by: str) -> None:
        b = self.remote.binding
        if b is None or result not in ("attackers", "defenders", "draw"):
            log.warning("game %d: an ending %r %r ignored", self.gid, result, reason)
            return
        game = self.game
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
        try:
            self._commit(game, [("remote_end", {"result": result, "reason": reason, "by": by})],
                         ending=ending)
        except ControlError:
            log.error("game %d: the other end's result could not be stored", self.gid)
            return
        b.ending = ending
        was_over, self.game = self.game.is_over(), game
        self.draw_offer = None
        if not was_over:
            self._game_ended(self.board_time())
        self._note("remote_end", by, result=result, reason=reason)
        self._after_control()

    def remote_clock(self, clock: RemoteClock, only: str | None) -> None:
        if self.tc is None:
            return  # a game without a clock here: the other end's are not shown
        mine = GameClock.restore(self.clock.snapshot()) if self.clock else GameClock(self.tc)
        mine.since = self.clock.since if self.clock else None
        at = self.caps.board_time(clock.at)
        for side, left in (("attackers", clock.attackers), ("defenders", clock.defenders)):
            if only is None or side == only:
                if mine.running == side and mine.since is not None:
                    mine.since = at  # its time from the reading on
                mine.times[side].main = max(0.0, float(left))
        if only is None:
            mine.paused, mine.flagged = False, None
            if clock.running in SIDES and not self.game.is_over():
                mine.running, mine.since = clock.running, at
            else:
                mine.running, mine.since = None, None
            choice.forget(self)
        self.clock = mine
        self._write()  # the game row's clock: a restart reads the other end's last word
        self._game_json = game_state(self)
        self.publish()

    def remote_changed(self) -> None:
        self.publish()


__all__ = ["GameSession", "other"]
