"""GameSession: the one owner and writer of the game, its match, clocks, players and store.

Data flows one way: the daemon's loop hands the session every board reading; the tracker (with
a private model of the game) *proposes* what happened; the session decides, applies it to the
real :class:`~companion.rules.game.Game`, writes it to the store in one transaction, and only
then announces it (page state, LEDs, log). One thread drives it all — the loop thread, the one
that calls :meth:`GameSession.step` — and it alone changes the game or writes the store: every
other thread (a web request, a network client, the analysis worker) enqueues a command
(:mod:`companion.session.command_queue`) and reads the published snapshot.

The session is composed of parts that own their state (:mod:`~companion.session.context`):
the game record (:mod:`~.record`: changed only by the values it is given once they are stored),
clocks, computer players, the advisor, the storage outbox, the announcer and the players at a
distance; :mod:`~companion.session.decisions` decides and stores the changes of the game (one
sequence for them all: ``Decisions.conclude``), :mod:`~.proposals` judges the board,
:mod:`~.controls`, :mod:`~.game_setup`, :mod:`~.lineup` and :mod:`~.computer_help` are what people
ask for, :mod:`~.library` what the page reads.

When the store cannot write (a full disk, I/O errors) the session keeps the unwritten rows,
suspends the tracker (no new move is accepted), shows the board-wide ``storage`` LED state and
``storage.ok = false`` at once, retries once a second, and resumes by itself when a write
succeeds: every event row of the outage is written then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from companion.coach.explorer import OwnBooks
from companion.coach.puzzles import PuzzleCatalogue
from companion.drivers.base import BoardCapabilities, BoardSource, capabilities
from companion.rules import PRESETS
from companion.rules.game import Game
from companion.session import state
from companion.session.actors import BOARD, Actor
from companion.session.advice import Advisor
from companion.session.analysis_worker import AnalysisWorker
from companion.session.announcer import Announcer
from companion.session.clock import GameClock
from companion.session.coaching import Coaching
from companion.session.command_queue import CommandQueue, on_loop
from companion.session.computer_help import ComputerHelp
from companion.session.context import Context, SessionDefaults
from companion.session.controls import Controls
from companion.session.decisions import Decisions
from companion.session.game_setup import GameSetup
from companion.session.games import Games
from companion.session.library import Library
from companion.session.lineup import Lineup
from companion.session.machines import Machines
from companion.session.match import Match
from companion.session.move_clocks import Clocks
from companion.session.opening import OpeningLine, Position, lookup_in, own_games
from companion.session.players import PlayerSpec
from companion.session.proposals import Proposals
from companion.session.puzzle_run import PuzzleRun, PuzzleStarted, catalogue
from companion.session.record import GameRecord
from companion.session.remote_actions import RemoteActions
from companion.session.remote_play import RemoteGames, RemoteHost
from companion.session.seats import Seats
from companion.session.service import SessionService
from companion.session.state_document import MoveToMake, StateDocument
from companion.session.storage import STORE_ERRORS, Outbox
from companion.session.tracking import ProposingTracker, TrackerAdapter
from companion.store import Store
from companion.tracker import Tracker

if TYPE_CHECKING:
    from companion.engine.analysis import ReviewJSON

__all__ = ["GameSession", "SessionDefaults"]


class GameSession(SessionService):
    """The session (see the module docstring): built from its parts, driven by :meth:`step`;
    its controls and reads (:class:`~companion.session.service.SessionService`) are safe from
    any thread."""

    def __init__(
        self, store: Store, board: BoardSource, *, defaults: SessionDefaults | None = None,
        announce: Callable[[StateDocument], object] = lambda state: None,
        tracker_factory: Callable[[Game], Tracker] | None = None,
        monotonic: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
    ) -> None:
        defaults = defaults or SessionDefaults()

        def default_tracker(game: Game) -> Tracker:
            return Tracker(game, check_pieces=defaults.check_pieces)

        # another factory (e.g. a Tracker with other timings, in tests) makes its own choices
        factory = tracker_factory or default_tracker

        def make_tracker(game: Game) -> ProposingTracker:
            return TrackerAdapter(game, factory)

        commands = CommandQueue()
        reader = store.reader()
        game = Game(defaults.settings.rules())
        caps = capabilities(board)
        record = GameRecord(game, defaults.settings, dict(defaults.players))

        def board_time() -> float:
            return caps.board_time(monotonic())

        advisor = Advisor()

        def post_remote(call: Callable[[RemoteHost], None], name: str) -> object:
            # a remote event's command, handed the session's RemoteHost when the loop runs it
            return commands.post(lambda: call(self.remote_actions), name)

        #: the board's own games as a book: the page's explorer's and the display's line's
        self.books = OwnBooks(own_games(store))
        self.ctx = ctx = Context(
            store=store, board=board, caps=caps, defaults=defaults,
            monotonic=monotonic, wall=wall,
            clocks=Clocks(board_time=board_time, wall=wall),
            seats=Seats(), advisor=advisor, coach=Coaching(advisor.engine, defaults.coach),
            analyses=AnalysisWorker(reader, self._analysis_done),
            outbox=Outbox(wall), announcer=Announcer(announce, wall, record.stamp),
            record=record, remote=RemoteGames(record, monotonic, post_remote),
            tracker=make_tracker(game), tracker_factory=make_tracker,
            opening=OpeningLine(lookup_in(self.books), commands.post))
        self.decisions = Decisions(ctx)
        self.games = Games(ctx, self.decisions)
        self.controls = Controls(ctx, self.decisions)
        self.setup = GameSetup(ctx, self.decisions, self.games)
        self.proposals = Proposals(ctx, self.decisions, lambda: self.setup.next_game(BOARD))
        self.machines = Machines(ctx, self.decisions, self.controls)
        self.puzzle_run = PuzzleRun(ctx, self.decisions, self.games, self.setup)
        self.remote_actions = RemoteActions(ctx, self.decisions, self.games, self.controls)
        super().__init__(ctx, commands, self.decisions, self.controls, self.setup,
                         Lineup(ctx, self.decisions, self.games, self.setup.ready),
                         ComputerHelp(ctx, self.decisions), Library(reader), reader,
                         self.remote_actions)

    # -- the loop ----------------------------------------------------------------------------
    def open(self) -> None:
        """Resume the store's current game (or match) or start a new one; then announce.
        Called once, before the loop runs."""
        self.games.open()

    def step(self, now: float | None = None) -> bool:
        """One loop iteration (the calling thread is the loop thread from now on): apply the
        commands waiting, read the board, feed the tracker, decide, store, publish; then answer
        the commands' callers. True if the board has more scans already due."""
        ctx = self.ctx
        self.commands.claim()
        with ctx.announcer.deferred():  # the commands' changes are published with this scan's
            applied = self.commands.drain()
        try:
            now = ctx.monotonic() if now is None else now
            scan, t = self.proposals.read(now)
            self.proposals.check_flag(t)
            self.proposals.check_next_game(scan)
            self.setup.reading_over(now)
            self.machines.computer_turn(now)
            self.puzzle_run.step()
            ctx.opening.follow(self._book_position())
            self.machines.advice()
            if ctx.outbox.due(now):
                self.decisions.write(now)
            if self.decisions.resumed:  # judged afresh after the store recovered
                resumed, self.decisions.resumed = self.decisions.resumed, []
                self.proposals.handle(resumed, t)
            state.publish(ctx, now)
            return ctx.caps.due
        finally:
            applied.settle()

    # -- puzzles (docs/coach.md) -----------------------------------------------------------------
    @on_loop
    def start_puzzle(self, actor: Actor, pid: object) -> PuzzleStarted:
        """Start a puzzle (owner): the board guides its set-up, then judges the solution."""
        return self.puzzle_run.start(actor, pid)

    def puzzles(self, variant: str) -> PuzzleCatalogue:
        """The puzzles of ``variant`` with their ratings, and the player's (any thread)."""
        return catalogue(self.reader, variant)

    def _book_position(self) -> Position | None:
        """The position the display's explorer line is for: the game's while it is played
        from a preset, never a puzzle's (the book could give its solution away)."""
        g = self.ctx.game_json
        if g is None or g["result"] != "ongoing" or self.ctx.puzzle is not None \
                or g["variant"] not in PRESETS:
            return None
        return g["variant"], f"{g['position']} {g['turn']}"

    @property
    def leds(self) -> dict[str, str]:
        """The LED frame now (the loop thread shows it)."""
        return state.leds(self.ctx)

    def close(self) -> None:
        """Release the engine processes (computer players, advisor, analysis worker) and the
        players at a distance; waiting controls are answered 503."""
        ctx = self.ctx
        ctx.analyses.close()
        ctx.opening.close()
        self.commands.close()
        ctx.remote.close()
        ctx.seats.close()
        ctx.advisor.close()
        self.reader.close()

    def _analysis_done(self, gid: int, moves: list[str], seconds: float, engine: str,
                       review: ReviewJSON) -> None:
        """The worker finished an analysis (its thread): stored by the loop thread."""

        def store() -> None:
            try:
                self.ctx.store.save_analysis(gid, moves, seconds, engine, review)
            except STORE_ERRORS as exc:
                self.ctx.analyses.saved(gid, f"the analysis could not be stored: {exc}")
            else:
                self.ctx.analyses.saved(gid)

        self.commands.post(store, "save_analysis")

    # -- what the tests and the daemon read (loop thread) -----------------------------------
    @property
    def store(self) -> Store:
        """The store's writing connection (the loop thread's)."""
        return self.ctx.store

    @property
    def game(self) -> Game:
        return self.ctx.game

    @property
    def gid(self) -> int:
        return self.ctx.gid

    @property
    def defaults(self) -> SessionDefaults:
        return self.ctx.defaults

    @defaults.setter
    def defaults(self, value: SessionDefaults) -> None:
        self.ctx.defaults = value

    @property
    def caps(self) -> BoardCapabilities:
        return self.ctx.caps

    @property
    def players(self) -> Mapping[str, PlayerSpec]:
        return self.ctx.players

    @property
    def clock(self) -> GameClock | None:
        return self.ctx.clocks.clock

    @property
    def match(self) -> Match | None:
        return self.ctx.match

    @property
    def move_to_make(self) -> MoveToMake | None:
        return self.ctx.move_to_make

    @property
    def press_to_end(self) -> bool:
        """Whether a move at the board ends with the board's clock button (the daemon sets it
        from ``[buttons] press_to_end_move`` before :meth:`open`)."""
        return self.ctx.press_to_end

    @press_to_end.setter
    def press_to_end(self, value: bool) -> None:
        self.ctx.press_to_end = value

    @property
    def analyses(self) -> AnalysisWorker:
        return self.ctx.analyses

    @property
    def tracker(self) -> ProposingTracker:
        return self.ctx.tracker
