"""GameSession: the one owner and writer of the game, its match, clocks, players and store.

Data flows one way: the daemon's loop hands the session every board reading; the tracker (with
a private model of the game) *proposes* what happened; the session decides, applies it to the
real :class:`~companion.rules.game.Game`, writes it to the store in one transaction, and only
then announces it (page state, LEDs, log). Controls (:mod:`companion.session.controls`) go the
same way: checked, computed, written, then applied; a control that cannot be written changes
nothing.

When the store cannot write (a full disk, I/O errors) the session keeps the unwritten rows,
suspends the tracker (no new move is accepted), shows the board-wide ``storage`` LED state and
``storage.ok = false`` at once, retries once a second, and resumes by itself when a write
succeeds: every event row of the outage is written then.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import cast

from companion.drivers.base import BoardCapabilities, BoardSource, capabilities
from companion.feedback import with_role
from companion.rules import other
from companion.rules.board import Move
from companion.rules.game import Game
from companion.scan import Scan
from companion.session import choice, computer
from companion.session.actors import BOARD, Actor
from companion.session.advice import Advisor, advice_step, current_hint
from companion.session.analysis import AnalysisWorker
from companion.session.clock import SIDES, GameClock, TimeControl
from companion.session.commands import CommandQueue
from companion.session.computer import ComputerConfig
from companion.session.match import Match, finish_match_game, reopen_match_game
from companion.session.players import MovePlayer, PlayerKind, PlayerSpec
from companion.session.remote import RemoteKind, RemoteTerms
from companion.session.remote_play import RemoteGames, RemoteHost
from companion.session.restore import restore_session
from companion.session.settings import GameSettings
from companion.session.snapshot import EMPTY, LegalMoves, Snapshot, legal_moves
from companion.session.state import game_state, live_state
from companion.session.tracking import ProposingTracker, TrackerAdapter, copy_game
from companion.store import EventRow, Store
from companion.tracker import Event, PieceRemoved, ProposalError, Tracker, apply_proposal

log = logging.getLogger("companion.session")

#: Kinds of tracker events that are not stored (LED frames are derived data).
NOT_STORED = frozenset({"leds"})
STORAGE_RETRY_S = 1.0


#: The clock button in ``pending_switch`` (a square number no board has): with
#: ``press_to_end`` a move at the board is ended (the clocks switch) by the board's clock
#: button, as on a chess clock (companion.panel).
PRESS = -1


@dataclass(frozen=True)
class SessionDefaults:
    """What a new game starts with unless a control says otherwise (config + command line)."""

    settings: GameSettings = field(default_factory=GameSettings)
    time_control: TimeControl | None = None
    players: dict[str, PlayerSpec] = field(default_factory=lambda: {
        "attackers": PlayerSpec(PlayerKind.BOARD, "Player 1"),
        "defenders": PlayerSpec(PlayerKind.BOARD, "Player 2")})
    tie_break: tuple[str, ...] = ("moves", "time")
    match: bool = False
    keep_variant: bool = False
    raichi: bool = True  # light the escape squares the king has a free line to
    computer: ComputerConfig = field(default_factory=ComputerConfig)


class SessionCore:
    """The session's loop, proposals and storage (see the module docstring); the controls are
    in :class:`companion.session.controls.GameSession`."""

    def __init__(
        self, store: Store, board: BoardSource, *, defaults: SessionDefaults | None = None,
        announce: Callable[[dict], object] = lambda state: None,
        tracker_factory: Callable[[Game], Tracker] | None = None,
        monotonic: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self.board = board
        self.caps: BoardCapabilities = capabilities(board)
        self.defaults = defaults or SessionDefaults()
        self._announce = announce
        factory = tracker_factory or Tracker  # e.g. a Tracker with other timings (tests)
        self._tracker_factory: Callable[[Game], ProposingTracker] = (
            lambda game: TrackerAdapter(game, factory))
        self.monotonic, self.wall = monotonic, wall
        self.commands = CommandQueue()  # what other threads ask of the loop thread
        self._snapshot: Snapshot = EMPTY
        self._legal: tuple[dict, LegalMoves] | None = None  # (for game_json, its legal moves)
        # the game and what belongs to it (set by open / controls)
        self.game: Game = Game(self.defaults.settings.rules())
        self.gid = 0
        self.settings = self.defaults.settings
        self.players: dict[str, PlayerSpec] = dict(self.defaults.players)
        self.next_players: dict[str, PlayerSpec] | None = None
        self.tc: TimeControl | None = self.defaults.time_control
        self.clock: GameClock | None = None
        self.move_clocks: list[dict | None] = []
        self.before: list[tuple[dict | None, float | None]] = []  # clock before each ply
        self.pending_switch: tuple[str, set[int]] | None = None
        self.match: Match | None = None
        self.draw_offer: str | None = None
        self.move_to_make: dict | None = None
        # the clocks before a move to make switched them (companion.session.choice)
        self.choice_clock: tuple[dict | None, float | None] | None = None
        self.choice_held = False
        self.refused: dict | None = None
        self.tracker: ProposingTracker = self._tracker_factory(self.game)
        # storage
        self.rows: list[EventRow] = []
        self._resumed: list[Event] = []
        self._unlogged: list[str] = []  # log lines of rows not yet stored
        # computer players: side -> (spec, player); what was asked of them (companion.session.
        # computer), what the page sees while they think, their hopeless moves in a row
        self.move_players: dict[str, tuple[PlayerSpec, MovePlayer]] = {}
        self._asked: tuple[str, int] | None = None  # (side, ply) of the pending request
        self._asked_wall = 0.0
        self._thinking_at = -1e9
        self._retry_player_at = 0.0
        self.player_error: dict | None = None
        self.thinking: dict | None = None
        self.hopeless: dict[str, int] = {}
        # hints and draw answers (a second engine process), analyses (a worker thread)
        self.advisor = Advisor()
        self.analyses = AnalysisWorker(store)
        self.hint: dict | None = None
        self.hint_pending: dict | None = None
        self.hints: dict[str, int] = {side: 0 for side in SIDES}
        self.storage: dict = {"ok": True}
        self._retry_at = 0.0
        # the page
        self.recent: deque[dict] = deque(maxlen=20)
        self._event_id = 0
        self._game_json: dict = {}
        self._status: dict = {}
        self._status_at = -1e9
        self._occupied: frozenset[str] | None = None
        self._fed: tuple | None = None
        self._resync = True
        self._left_start = False
        self.links: dict[str, dict] = {}
        self.accepted_at: float | None = None
        self.loop_errors = 0
        self._board_error_at = -1e9  # when a failing board read was last logged
        # players at a distance (online, club): the game bound to one, what goes to them
        self.remote = RemoteGames(cast(RemoteHost, self), self.commands.post)
        self._deferring = False  # applying queued commands: publish with the scan after them
        self._publish_forced = False
        self._published_live: dict = {}
        self._published_game: dict | None = None
        self.display: dict | None = None  # the board display's text (companion.panel)
        self.press_to_end = False  # a move at the board ends with the clock button (PRESS)

    # -- opening -----------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        return self._store

    def open(self) -> None:
        """Resume the store's current game (or match) or start a new one; then announce.
        Called once, before the loop runs."""
        restore_session(self)
        self._propose_remote()
        self.tracker = self._tracker_factory(self.game)
        self.sync_move_players()
        self._expect_current()
        self._game_json = game_state(self)
        self.publish(force=True)

    def board_time(self) -> float:
        return self.caps.board_time(self.monotonic())

    def _propose_remote(self, only: PlayerKind | None = None) -> None:
        """A game whose side is played at a distance but not yet agreed with the other end
        (``run --defenders club:table-2``): propose it to that player (no move is accepted
        until its ``RemoteStart``); ``only``: players of that kind."""
        if self.remote.binding is not None:
            return
        for side in SIDES:
            spec = self.players[side]
            if spec.is_remote and only in (None, spec.kind):
                # a club board is found by its name in the club (the peer), not a display name
                terms = RemoteTerms(self.settings, self.tc, other(side),
                                    spec.peer or spec.name or "", "")
                self.remote.bind(RemoteKind(spec.kind.value), terms)

    # -- the loop ----------------------------------------------------------------------------
    def step(self, now: float | None = None) -> bool:
        """One loop iteration (the calling thread is the loop thread from now on): apply the
        commands waiting, read the board, feed the tracker, decide, store, publish; then answer
        the commands' callers. True if the board has more scans already due."""
        self.commands.claim()
        self._deferring = True  # the commands' changes are published with this scan's
        try:
            applied = self.commands.drain()
        finally:
            self._deferring = False
        try:
            return self._step(self.monotonic() if now is None else now)
        finally:
            applied.settle()

    def after_command(self) -> None:
        self.publish()

    def _step(self, now: float) -> bool:
        try:
            scan = self.board.scan(now)
        except Exception as exc:  # a failing bus: the board shows disconnected
            scan = None
            self._board_error(now, exc)
        events: list[Event] = []
        if scan is not None:
            events += self._feed(scan)
            t = scan.t
        else:
            t = self.caps.board_time(now)
            events += self.tracker.tick(t)
        if events:
            self._handle(events, t)
        self._check_flag(t)
        self._check_next_game(scan)
        computer.computer_turn(self, now)
        advice_step(self)
        if not self.storage["ok"] and now >= self._retry_at:
            self._write(now)
        if self._resumed:  # the tracker judged the board afresh after the store recovered
            resumed, self._resumed = self._resumed, []
            self._handle(resumed, t)
        self.publish(now)
        return self.caps.due

    def _board_error(self, now: float, exc: Exception) -> None:
        if now - self._board_error_at > 10:
            log.warning("board read failed: %s", exc)
            self._board_error_at = now

    def _feed(self, scan: Scan) -> list[Event]:
        self._occupied = scan.occupied
        events: list[Event] = []
        if self._resync:
            self._resync = False
            self._fed = None
            if scan.occupied != self.game.board.occupied_names():
                log.info("the board differs from the game position: guiding the set-up")
                self._handle_plain(self.tracker.reset(self.game, scan.t))
                self._expect_current()  # the reset cleared the move to make
        # colours count as a change: on polarity boards two swapped pieces change colour
        # without changing occupancy, and the tracker must see that
        reading = (scan.occupied, tuple(sorted((scan.colours or {}).items())))
        if reading != self._fed:
            self._fed = reading
            return events + self.tracker.feed(scan)
        return events + self.tracker.tick(scan.t)

    # -- proposals ---------------------------------------------------------------------------
    def _handle(self, events: list[Event], t: float) -> None:
        """Decide on the tracker's proposals, then store (one transaction) and announce."""
        wall = self.wall()
        changed = False
        removed = {e.square for e in events if isinstance(e, PieceRemoved)}
        for e in events:
            if e.kind in NOT_STORED:
                continue
            data = {k: v for k, v in e.data.items() if k != "leds"}
            data["board_t"] = round(e.t, 3)
            if e.kind in ("move", "revised"):
                refusal = self._refusal(data, revision=e.kind == "revised")
                try:
                    if refusal is None:
                        if e.kind == "move":
                            self._apply_move(e, data, removed)
                        else:
                            self._apply_revision(e, data, removed)
                except ProposalError as exc:
                    refusal = ("does_not_fit", str(exc))
                if refusal is not None:
                    self._refuse(data, refusal, e.t)
                    changed = True
                    continue
                self.accepted_at = wall
                changed = True
            elif e.kind == "takeback":
                last = self.game.played[-1] if self.game.played else None
                if last is None or last.text != data.get("move"):
                    self._refuse(data, ("does_not_fit", f"cannot take back {data.get('move')}"),
                                 e.t)
                    continue
                if self.remote.binding is not None and not self.remote.takebacks:
                    self._refuse(data, ("no_takebacks", "takebacks are not allowed in this "
                                                        "game at a distance"), e.t)
                    continue
                self._apply_takeback(e.t)
                self.remote.took_back(len(self.game.played))
                computer.hold_after_hand_takeback(self, last.side, self.monotonic())
                self._note("takeback", "board", move=data.get("move"))
                changed = True
            elif isinstance(e, PieceRemoved):
                self._capture_lifted(e.square, e.lifted_at)
            elif e.kind == "ready":
                self._start_clock(e.t)
            self.rows.append((e.kind, data, wall))
            if e.kind in ("move", "revised", "game_over", "takeback", "illegal", "warning"):
                # logged once stored: a move in the log is never lost
                self._unlogged.append(f"game {self.gid}: {e.kind} {_brief(data)}")
        if changed or self.rows:
            if self.game.is_over():
                self._game_ended(t)
            self._write()

    def _refusal(self, data: dict, revision: bool = False) -> tuple[str, str] | None:
        """Why a proposed move cannot be accepted now: ``(code, message)``, or None."""
        if not self.storage["ok"]:
            return "storage", "moves are not being saved: the move is not accepted"
        if not self.remote.agreed:
            b = self.remote.binding
            who = self.players[b.remote_side].name or b.terms.opponent if b else ""
            return "waiting", f"waiting for {who or 'the other end'} to agree"
        last = self.game.played[-1] if self.game.played else None
        if revision and last is not None and self.remote.binding is not None:
            if last.side == self.remote.remote_side:
                return "remote_move", f"{last.text} is the other end's move"
            if not self.remote.takebacks:
                return "sent", f"{last.text} was sent to the other end already"
        frm, to = data.get("from"), data.get("to")
        if self.move_to_make is not None and (frm, to) != (
                self.move_to_make["from"], self.move_to_make["to"]):
            m = self.move_to_make
            return ("not_the_move_to_make",
                    f"that is not the move to make: {m['from']} to {m['to']}")
        return None

    def _refuse(self, data: dict, refusal: tuple[str, str], t: float) -> None:
        code, message = refusal
        self.refused = {"code": code, "message": message, "move": data.get("move")}
        self._note("refused", "board", code=code, move=data.get("move"), reason=message)
        self.rows.append(("illegal", {"code": code, "reason": message, "move": data.get("move"),
                                      "board_t": data.get("board_t")}, self.wall()))
        log.info("game %d: refused %s (%s)", self.gid, data.get("move"), code)
        self._handle_plain(self.tracker.reset(self.game, t))
        self._expect_current()

    def _apply_move(self, e: Event, data: dict, removed: set[int]) -> None:
        game = self.game
        before = (self.clock.snapshot(), self.clock.since) if self.clock else (None, None)
        apply_proposal(game, e)  # ProposalError if it does not fit: refused
        played = game.played[-1]
        chosen = choice.made(self)  # the move to make: its clock switched at the choice
        self.before.append(chosen[0] if chosen else before)
        placed = float(data.get("placed_at", data.get("board_t", 0.0)))
        self._switch_after(played.side, set(played.captures) - removed, placed,
                           held=chosen[1] if chosen else None)
        if self.draw_offer is not None and self.draw_offer != played.side:
            self._note("draw", "board", action="lapsed", side=self.draw_offer)
            self.draw_offer = None  # the opponent of the offerer moved: the offer lapses
        self.move_to_make = None  # the tracker clears its own once the move is proposed
        self.refused = None
        if played.side == self.remote.local_side:  # sent once stored
            self.remote.moved(len(game.played) - 1, self._last_move())

    def _last_move(self) -> Move:
        return self.game.played[-1].move

    def _apply_revision(self, e: Event, data: dict, removed: set[int]) -> None:
        game = self.game
        last = self.move_clocks[-1] if self.move_clocks else None
        before, since = self.before[-1] if self.before else (None, None)
        apply_proposal(game, e)  # ProposalError if it does not fit: refused
        self.move_clocks.pop()
        played = game.played[-1]
        if self.clock is not None and before is not None:
            self.clock = GameClock.restore(before)
            self.clock.since = since
        placed = float((last or {}).get("placed", data.get("placed_at", 0.0)))
        self._switch_after(played.side, set(played.captures) - removed, placed)
        if played.side == self.remote.local_side:  # the other end takes it back too
            ply = len(game.played) - 1
            self.remote.took_back(ply)
            self.remote.moved(ply, self._last_move())

    def _switch_after(self, mover: str, pending: set[int], placed: float,
                      held: bool | None = None) -> None:
        """The clock switches at the placement, or once the captured pieces are lifted (their
        removal is on the mover's time); a move to make switched it at the choice already
        (``held``: nobody's clock ran since, the opponent's starts now). The move's clock
        record is kept for the store."""
        self.pending_switch = None
        if self.clock is not None:
            if self.game.is_over():
                self.clock.stop(placed)
            elif held is not None:
                if held:
                    self.clock.start(other(mover), placed)
            elif pending or self._ends_by_press(mover):
                press: set[int] = {PRESS} if self._ends_by_press(mover) else set()
                self.pending_switch = (mover, set(pending) | press)
            else:
                self.clock.switch(mover, placed)
        self.move_clocks.append(self._clock_record(placed))

    def _ends_by_press(self, mover: str) -> bool:
        """Whether ``mover``'s move waits for the clock button (a person at the board)."""
        return self.press_to_end and self.players[mover].kind is PlayerKind.BOARD

    def _start_clock(self, t: float) -> None:
        """A game's clock starts once the board is set up (the first ``ready``)."""
        clock = self.clock
        side = choice.side_to_start(self)
        if (clock is not None and clock.running is None and clock.flagged is None
                and not self.game.is_over() and side is not None):
            clock.start(side, t)  # shown once the ready row is stored
            choice.catch_up(self, t)  # a move chosen before the set-up: its clock stops now

    def _capture_lifted(self, square: int, t: float) -> None:
        if self.pending_switch is None or self.clock is None:
            return
        mover, pending = self.pending_switch
        pending.discard(square)
        if not pending:
            self.pending_switch = None
            self.clock.switch(mover, t)
            if self.move_clocks:
                placed = (self.move_clocks[-1] or {}).get("placed", t)
                self.move_clocks[-1] = self._clock_record(placed, switched=t)

    def _clock_record(self, placed: float, switched: float | None = None) -> dict | None:
        rec: dict = {"wall": self.wall(), "placed": round(placed, 3)}
        if self.clock is not None:
            at = switched if switched is not None else placed
            rec["left"] = {s: round(self.clock.left(s, at), 3) for s in SIDES}
            rec["state"] = self.clock.snapshot(at)
            if switched is not None:
                rec["switched"] = round(switched, 3)
        return rec

    def _apply_takeback(self, t: float, plies: int = 1) -> bool:
        """Undo the last ``plies`` moves (by hand or from a control): both clocks as before
        them. True when a computer was thinking (it is stopped)."""
        game = copy_game(self.game, manual=False)
        before: dict | None = None
        for _ in range(plies):
            game.undo()
            if self.move_clocks:
                self.move_clocks.pop()
            before, _since = self.before.pop() if self.before else (None, None)
        self.game = game
        if self.tc is not None:
            self.clock = GameClock.restore(before) if before else GameClock(self.tc)
            self.clock.flagged = None
            self.clock.start(game.turn, t)
        self.pending_switch = None
        self.draw_offer = None
        self.move_to_make = None
        choice.forget(self)
        self.hopeless = {}
        stopped = self.cancel_move_players()
        self._handle_plain(self.tracker.expect(None))
        self._reopen_match_game()
        return stopped

    # -- computer players (companion.session.computer) ------------------------------------------
    def sync_move_players(self) -> None:
        """Start the computer players of the current sides, stop those no longer playing."""
        computer.sync_move_players(self)

    def cancel_move_players(self) -> bool:
        """Stop any thinking (a takeback, a new game, the end of the game)."""
        return computer.cancel_move_players(self)

    def close(self) -> None:
        """Release the engine processes (computer players, advisor, analysis worker)."""
        self.analyses.close()
        self.commands.close()
        self.remote.close()
        for _, player in self.move_players.values():
            player.close()
        self.move_players.clear()
        self.advisor.close()

    def resign(self, actor: Actor, side: str | None) -> dict:
        raise NotImplementedError

    # -- time ---------------------------------------------------------------------------------
    def _check_flag(self, t: float) -> None:
        clock = self.clock
        if clock is None or self.game.is_over() or not self.storage["ok"]:
            return
        if self.remote.authoritative_clock:
            return  # the other end's clocks: its word ends the game on time
        side = clock.flag_due(t)
        if side is None or side == self.remote.remote_side:
            return  # (a side played at a distance: its flag is the other end's word)
        at = clock.flag_at() or t
        self.flag_fall(side, at)

    # -- matches -------------------------------------------------------------------------------
    def _check_next_game(self, scan: Scan | None) -> None:
        match = self.match
        if match is None or not match.wants_next or scan is None:
            return
        start = self.settings.rules()
        target = Game(start).board.occupied_names()
        if scan.occupied != target:
            self._left_start = True
        elif self._left_start and self.storage["ok"]:
            log.info("match %d: the board is set up again: game 2 starts", match.id)
            self.next_game(BOARD)

    # -- storage -------------------------------------------------------------------------------
    def _write(self, now: float | None = None) -> bool:
        """Write the game, its clocks and the pending rows in one transaction. On failure keep
        everything pending, suspend the tracker and show the storage state."""
        try:
            self._store.sync_game(self.gid, self.game, list(self.rows),
                                  move_clocks=self.move_clocks,
                                  clock=self.clock.snapshot() if self.clock else None,
                                  hints=self.hints, pending=self.pending_record(),
                                  ending=self.remote.ending)
        except (sqlite3.Error, OSError) as exc:
            self._storage_failed(exc, now)
            return False
        self.rows.clear()
        for line in self._unlogged:
            log.info("%s", line)
        self._unlogged.clear()
        self.remote.flush()  # what this board did goes to the player at a distance now
        if not self.storage["ok"]:
            log.warning("the store writes again: every move and event of the outage is saved")
            self.storage = {"ok": True}
            self._resumed.extend(self.tracker.suspend(None))  # judged afresh, next step
            self._note("storage", "system", ok=True)
        self._game_json = game_state(self)
        return True

    def pending_record(self, game: Game | None = None) -> dict | None:
        """The move to make as stored with the game (with the ply it is for), so that a move
        chosen off the board survives a crash or a restart (restored by
        :mod:`companion.session.restore`)."""
        game = self.game if game is None else game
        if self.move_to_make is None or game is not self.game or game.is_over():
            return None
        out = {**self.move_to_make, "ply": len(game.played)}
        clocks = choice.stored(self)
        if clocks is not None:
            out["choice"] = clocks
        return out

    def _storage_failed(self, exc: BaseException, now: float | None) -> None:
        now = self.monotonic() if now is None else now
        self._retry_at = now + STORAGE_RETRY_S
        if self.storage["ok"]:
            log.error("the store cannot write (%s): moves are not being saved; the board waits",
                      exc)
            self.storage = {"ok": False, "since": self.wall(), "detail": str(exc)}
            self._handle_plain(self.tracker.suspend("storage"))
        self.storage["pending"] = len(self.rows)
        self.storage["retries"] = self.storage.get("retries", 0) + 1

    def _expect_current(self) -> None:
        """Tell the tracker the move to make again (a reset clears it)."""
        try:
            move = (self.game.board.parse_move(self.move_to_make["move"])[0]
                    if self.move_to_make else None)
            events = self.tracker.expect(move)
        except ValueError as exc:  # it no longer fits the game
            log.warning("the move to make %s no longer fits: %s", self.move_to_make, exc)
            choice.withdraw(self)
            events = self.tracker.expect(None)
        self._handle_plain(events)

    # -- announcing ------------------------------------------------------------------------------
    def _note(self, kind: str, by: str, **data: object) -> dict:
        """A session event for the page's event list (who did what)."""
        self._event_id += 1
        event = {"id": self._event_id, "t": round(self.wall(), 3), "kind": kind, "by": by,
                 **data}
        self.recent.append(event)
        return event

    @property
    def leds(self) -> dict[str, str]:
        """The LED frame: the tracker's, or board-wide ``storage`` while the store fails."""
        if not self.storage["ok"]:
            geo = self.game.board.geo
            return {name: "storage" for name in geo.names}
        frame = self.tracker.leds
        threat = self._game_json.get("threat") if self.defaults.raichi else None
        if threat:
            frame = with_role(frame, threat["squares"], "raichi")
        hint = current_hint(self)
        if hint is not None and self.move_to_make is None:
            frame = with_role(with_role(frame, [hint["from"]], "hint_from"), [hint["to"]],
                              "hint_to")
        return frame

    def publish(self, now: float | None = None, force: bool = False) -> None:
        """Announce the state if anything in it changed (cheap when nothing did)."""
        if self._deferring:
            self._publish_forced |= force
            return
        force, self._publish_forced = force or self._publish_forced, False
        now = self.monotonic() if now is None else now
        if now - self._status_at > 0.5 or force:
            self._status_at = now
            try:
                self._status = dict(self.board.status())
            except Exception as exc:
                self._status = {"kind": self.board.kind, "connected": False,
                                "detail": f"status failed: {exc}"}
        live = live_state(self)
        if not force and live == self._published_live and self._game_json is self._published_game:
            return
        self._published_live, self._published_game = live, self._game_json
        state = {**self._game_json, **live}
        self._snapshot = self._make_snapshot(state)
        self._announce(state)

    def _make_snapshot(self, state: dict) -> Snapshot:
        if self._legal is None or self._legal[0] is not self._game_json:
            self._legal = (self._game_json, legal_moves(self.game, self.gid))
        m = self.match
        return Snapshot(state, self._legal[1], self.gid, m.id if m else None,
                        m.number if m else 0, self._snapshot.version + 1)

    @property
    def snapshot(self) -> Snapshot:
        """The session as last published (any thread; never changes once published)."""
        return self._snapshot

    def state(self) -> dict:
        """The page state as last published (any thread)."""
        return dict(self._snapshot.state)

    def _game_ended(self, t: float) -> None:
        if self.clock is not None and self.clock.running:
            self.clock.stop(t)
        self.pending_switch = None
        self.move_to_make = None
        choice.forget(self)
        self.hint_pending = None
        self.cancel_move_players()
        self._handle_plain(self.tracker.expect(None))
        self._finish_match_game()

    def _finish_match_game(self) -> None:
        finish_match_game(self)

    def _reopen_match_game(self) -> None:
        reopen_match_game(self)

    # -- provided by the controls ------------------------------------------------------------
    def flag_fall(self, side: str, at: float) -> None:
        raise NotImplementedError

    def next_game(self, actor: Actor) -> dict:
        raise NotImplementedError

    def draw(self, actor: Actor, action: str, side: str | None, *,
             score: float | None = None) -> dict:
        raise NotImplementedError

    def _ready(self, *, playing: bool = True) -> None:
        raise NotImplementedError

    def new_game(self, actor: Actor, request: Mapping[str, object]) -> dict:
        raise NotImplementedError

    def _handle_plain(self, events: list[Event]) -> None:
        """Events of a reset (set-up guidance): stored, nothing to decide."""
        wall = self.wall()
        for e in events:
            if e.kind not in NOT_STORED and e.kind not in ("move", "revised", "takeback"):
                self.rows.append((e.kind, {**e.data, "board_t": round(e.t, 3)}, wall))
            if e.kind == "ready":  # a new game on a board already set up: its clock starts
                self._start_clock(e.t)


def _brief(data: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in data.items() if k not in ("leds", "board_t"))
