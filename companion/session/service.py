"""The session's interface for every other thread (:class:`~companion.session.api.SessionAPI`):
reads from the published snapshot and the read-only store, controls applied by the loop thread.

Each control is a command (:func:`~companion.session.command_queue.on_loop`): called on the loop
thread it runs at once, from any other thread it is enqueued and its caller waits for the
loop's answer. Reads never wait for the loop.
"""

from __future__ import annotations

import hmac
import re
import threading
import unicodedata
from collections.abc import Hashable, Mapping, Sequence

from companion.parts import PartStatus
from companion.session import links, state
from companion.session.actors import Action, Actor, ControlError, check, player
from companion.session.api import ImportedGame
from companion.session.coaching import EvalAnswer
from companion.session.command_queue import CommandQueue, on_loop
from companion.session.computer_help import ComputerHelp
from companion.session.context import Context
from companion.session.controls import Controls
from companion.session.decisions import Decisions, storage_error
from companion.session.game_setup import GameSetup
from companion.session.library import Library
from companion.session.lineup import Lineup
from companion.session.puzzle_imports import puzzles_of
from companion.session.remote import RemotePlayer
from companion.session.remote_actions import RemoteActions
from companion.session.results import (
    AnalysisStatus,
    ClockResult,
    ConfirmResult,
    DrawResult,
    EndMoveResult,
    GameStarted,
    HintAnswer,
    LinksResult,
    PlayersResult,
    ReadingResult,
    ResignResult,
    SwapResult,
    TakebackResult,
    TakeRecordResult,
)
from companion.session.snapshot import LegalMoves, Snapshot
from companion.session.state_document import MoveToMake
from companion.session.storage import STORE_ERRORS, Written
from companion.session.stored_documents import GameDetail, MatchDetail, Review
from companion.store import ReadOnlyStore
from companion.store_types import GameJSON, LinkJSON
from companion.voice.service import VoiceStatus

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
LINKS_KEPT = 64  # player links remembered (found ones only: a flood of guesses costs nothing)
NAME_MAX = 40


def clean_name(value: object) -> str:
    """A player's name from a file: printable characters only, at most 40."""
    text = "".join(" " if c.isspace() else c for c in str(value or "")
                   if c.isspace() or unicodedata.category(c)[0] != "C")
    return " ".join(text.split())[:NAME_MAX]


class SessionService:
    """Reads and controls for any thread (see the module docstring)."""

    def __init__(self, ctx: Context, commands: CommandQueue, decisions: Decisions,
                 controls: Controls, setup: GameSetup, lineup: Lineup,
                 computer_help: ComputerHelp, library: Library, reader: ReadOnlyStore,
                 remote_actions: RemoteActions) -> None:
        self.ctx = ctx
        self.commands = commands
        self.decisions = decisions
        self.controls = controls
        self.remote_actions = remote_actions
        self.setup = setup
        self.lineup = lineup
        self.computer_help = computer_help
        self.library = library
        self.reader = reader
        self._links: dict[str, tuple[LinkJSON, str | None]] = {}  # token -> link, its player
        self._links_lock = threading.Lock()

    def after_command(self) -> None:
        state.publish(self.ctx)

    # -- the game in play ----------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        """The session as last published (never changes once published)."""
        return self.ctx.announcer.snapshot

    def state(self) -> dict[str, object]:
        """The page state as last published (a copy of the snapshot's StateDocument; {}
        before the first publication)."""
        return dict(self.snapshot.state)

    def state_text(self) -> str:
        return self.snapshot.text

    def legal_moves(self) -> LegalMoves:
        return self.snapshot.legal

    def actor_for_player_token(self, token: str) -> Actor | None:
        """The player a link's token stands for now: its stored row (read-only) and the
        published snapshot, never the loop's state."""
        if not isinstance(token, str) or not _TOKEN.match(token):
            return None
        found = None
        with self._links_lock:
            for known, row in self._links.items():
                if hmac.compare_digest(known, token):
                    found = row
        if found is None:
            link = self.library.link(token)
            if link is None:
                return None
            # the player it was made for (links follow their player from game to game)
            found = link, links.player_of(self.reader, link)
            with self._links_lock:
                if len(self._links) >= LINKS_KEPT:
                    self._links.clear()
                self._links[token] = found
        snap = self.snapshot
        link, made_for = found
        side = links.side_now(link, made_for, links.Seating.of_state(
            snap.state, snap.gid, snap.match_id, snap.match_number))
        return player(side) if side else None

    # -- stored games ----------------------------------------------------------------------------
    def stored_games(self, limit: int = 50, offset: int = 0) -> list[GameJSON]:
        return self.library.games(limit, offset)

    def stored_game(self, gid: int) -> GameDetail:
        return self.library.game(gid)

    def stored_matches(self, limit: int = 50, offset: int = 0) -> list[MatchDetail]:
        return self.library.matches(limit, offset)

    def stored_match(self, mid: int) -> MatchDetail:
        return self.library.match(mid)

    def player_results(self) -> dict[str, dict[str, int]]:
        return self.library.player_results()

    def imported_ids(self, fingerprints: Sequence[str]) -> dict[str, int]:
        return self.library.imported_ids(fingerprints)

    def export(self, gid: int, kind: str, match: bool = False) -> str:
        return self.library.export(gid, kind, match)

    def review(self, gid: int) -> Review:
        return self.library.review(gid)

    def stored_version(self, gid: int, match: bool = False) -> Hashable | None:
        return self.library.version(gid, match)

    def analysis(self, gid: int) -> AnalysisStatus:
        """The analysis of stored game ``gid``: none, running (with progress), done, failed."""
        if not self.library.has_game(gid):
            raise ControlError(404, "not_found", f"no game {gid}")
        return self.ctx.analyses.status(gid)

    # -- controls (on the loop thread) -------------------------------------------------------------
    @on_loop
    def click(self, actor: Actor, square: str) -> bool:
        return self.controls.click(actor, square)

    @on_loop
    def choose_move(self, actor: Actor, move: str) -> MoveToMake:
        return self.controls.choose_move(actor, move)

    @on_loop
    def takeback(self, actor: Actor) -> TakebackResult:
        return self.controls.takeback(actor)

    @on_loop
    def draw(self, actor: Actor, action: str, side: str | None) -> DrawResult:
        return self.controls.draw(actor, action, side)

    @on_loop
    def resign(self, actor: Actor, side: str | None) -> ResignResult:
        return self.controls.resign(actor, side)

    @on_loop
    def clock_control(self, actor: Actor, action: str) -> ClockResult:
        return self.controls.clock_control(actor, action)

    @on_loop
    def confirm_pieces(self, actor: Actor) -> ConfirmResult:
        return self.controls.confirm_pieces(actor)

    @on_loop
    def end_move(self, actor: Actor) -> EndMoveResult:
        return self.controls.end_move(actor)

    @on_loop
    def set_display(self, lines: list[str] | None) -> None:
        """The text the board's display shows now (``display.lines`` of the state; the panel,
        companion.panel, calls this); published with the command."""
        self.ctx.display = {"lines": list(lines)} if lines is not None else None

    @on_loop
    def set_parts(self, parts: Sequence[PartStatus]) -> None:
        """The board's parts that are missing now (``board.parts`` of the state; the daemon's
        companion.parts calls this); published with the command."""
        self.ctx.announcer.set_parts(parts)

    @on_loop
    def set_voice(self, status: VoiceStatus | None) -> None:
        """The voice's engine and what it said (``voice`` of the state; companion.voice calls
        this from its own thread); published with the command."""
        self.ctx.voice = status.copy() if status is not None else None

    @on_loop
    def new_game(self, actor: Actor, request: Mapping[str, object]) -> GameStarted:
        return self.setup.new_game(actor, request)

    @on_loop
    def read_board(self, actor: Actor, on: bool) -> ReadingResult:
        return self.setup.read_board(actor, on)

    @on_loop
    def next_game(self, actor: Actor) -> GameStarted:
        return self.setup.next_game(actor)

    @on_loop
    def take_record(self, actor: Actor) -> TakeRecordResult:
        return self.remote_actions.take_record(actor)

    @on_loop
    def swap(self, actor: Actor) -> SwapResult:
        return self.lineup.swap(actor)

    @on_loop
    def set_players(self, actor: Actor, request: Mapping[str, object]) -> PlayersResult:
        return self.lineup.set_players(actor, request)

    @on_loop
    def player_links(self, actor: Actor) -> LinksResult:
        return self.lineup.player_links(actor)

    @on_loop
    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, HintAnswer]:
        return self.computer_help.request_hint(actor, seconds)

    @on_loop
    def request_eval(self, actor: Actor, analysis: object = None) -> tuple[int, EvalAnswer]:
        return self.computer_help.request_eval(actor, analysis)

    @on_loop
    def start_analysis(self, actor: Actor, gid: int,
                       seconds: object = None) -> tuple[int, AnalysisStatus]:
        return self.computer_help.start_analysis(actor, gid, seconds)

    @on_loop
    def import_games(self, actor: Actor, games: Sequence[ImportedGame]) -> list[int]:
        """Store games read from a file, all in one transaction (owner only): their ids, in
        order; a game already stored (the same ``fingerprint`` in its origin) is not stored
        again, its id is given. Like every write, refused with 503 ``storage`` while the store
        cannot write."""
        check(actor, Action.IMPORT)
        ctx = self.ctx
        self.decisions.ready(playing=False)
        rows = [(g.game, (clean_name(g.players[0]), clean_name(g.players[1])), g.started,
                 dict(g.origin), g.ending) for g in games]
        try:
            ids = ctx.store.import_games(rows)
            ctx.store.save_puzzles(puzzles_of(games))  # OpenTafl puzzles join the library
        except STORE_ERRORS as exc:
            if ctx.outbox.failed(exc, ctx.monotonic()) is Written.DOWN:
                self.decisions.store_plain(ctx.tracker.suspend("storage"))
            raise storage_error() from None
        self.decisions.analyse_later(ids)  # as finished games are
        return ids

    def attach_remote(self, player_: RemotePlayer) -> None:
        """Play with ``player_`` (online, club) from now on: any thread, never blocks. The
        stored game with a player of its kind goes on with it; its ``RemoteStart`` starts a
        game."""
        if self.commands.on_loop_thread():
            self.ctx.remote.attach(player_)
            state.publish(self.ctx)
        else:
            self.commands.post(lambda: self.ctx.remote.attach(player_), "attach_remote")
