"""The session as the web layer sees it: a small typed interface (no import of the daemon, the
store or the session's parts).

``companion.web`` depends on this Protocol only; :class:`~companion.session.core.GameSession`
implements it. Every method may be called from any thread: reads come from the published
snapshot and read-only store connections, controls are applied by the session's loop thread
(the caller waits, at most a few seconds: ``ControlError(503, "busy")``). Every control takes
the :class:`~companion.session.actors.Actor` the web layer resolved from the request's
credentials and raises :class:`~companion.session.actors.ControlError` (status, code, message)
when it cannot be done; nothing is changed then. A stored game or match that does not exist is
``ControlError(404, "not_found")``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion.rules.game import Game
from companion.session.actors import Actor
from companion.session.coaching import EvalAnswer
from companion.session.results import (
    AnalysisStatus,
    ClockResult,
    ConfirmResult,
    DrawResult,
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
from companion.session.snapshot import LegalMoves
from companion.session.state_document import MoveToMake
from companion.session.stored_documents import GameDetail, MatchDetail, Review
from companion.store_types import GameJSON


@dataclass(frozen=True)
class ImportedGame:
    """A game read from an uploaded file, to be stored as a closed game: the players' names,
    when it was played (wall time), where it came from (stored with it) and, for a record that
    ended in a way the rules cannot know, its ``(result, reason)`` (reason None: the file says
    who won, not how). An ``origin`` with a ``fingerprint`` already stored is not stored
    again."""

    game: Game
    players: tuple[str, str]
    started: float
    origin: Mapping[str, Any]
    ending: tuple[str, str | None] | None = None


class SessionAPI(Protocol):
    """What the routes call."""

    # -- the game in play (the published snapshot) ----------------------------------------
    def state_text(self) -> str:
        """The current ``/api/state`` JSON text."""
        ...

    def legal_moves(self) -> LegalMoves:
        """The side to move and its legal moves, ``{"game", "turn", "ply", "moves": {from:
        [{"to", "captures"}, ...]}}`` (for drawing targets on the page)."""
        ...

    def actor_for_player_token(self, token: str) -> Actor | None:
        """The player a player-link token stands for now, or None (unknown, or for a game that
        is no longer the current one)."""
        ...

    # -- stored games (read-only connections) ----------------------------------------------
    def stored_games(self, limit: int, offset: int) -> list[GameJSON]: ...

    def stored_game(self, gid: int) -> GameDetail:
        """A game's row with ``player_details``, ``moves``, ``positions``, ``events``."""
        ...

    def stored_matches(self, limit: int, offset: int) -> list[MatchDetail]: ...

    def stored_match(self, mid: int) -> MatchDetail: ...

    def player_results(self) -> dict[str, dict[str, int]]: ...

    def imported_ids(self, fingerprints: Sequence[str]) -> dict[str, int]:
        """Fingerprint -> id of the stored imported game with it (companion.web.imports)."""
        ...

    def export(self, gid: int, kind: str, match: bool = False) -> str:
        """Game (or match) ``gid`` as ``csv`` or ``otg`` text."""
        ...

    def review(self, gid: int) -> Review:
        """Everything the review of a stored game shows (docs/http-api.md)."""
        ...

    def stored_version(self, gid: int, match: bool = False) -> Hashable | None:
        """What a finished game's (match's) review and files depend on (a key for a cache of
        renders); None while it is played, or for none."""
        ...

    def analysis(self, gid: int) -> AnalysisStatus:
        """``{"game", "status", "done", "total", "review", "error"?}``."""
        ...

    # -- controls ---------------------------------------------------------------------------
    def click(self, actor: Actor, square: str) -> bool: ...

    def choose_move(self, actor: Actor, move: str) -> MoveToMake: ...

    def new_game(self, actor: Actor, request: Mapping[str, object]) -> GameStarted: ...

    def next_game(self, actor: Actor) -> GameStarted: ...

    def read_board(self, actor: Actor, on: bool) -> ReadingResult:
        """While ``on`` the board defines the next game's position (the tracker's reading)."""
        ...

    def takeback(self, actor: Actor) -> TakebackResult: ...

    def draw(self, actor: Actor, action: str, side: str | None) -> DrawResult: ...

    def resign(self, actor: Actor, side: str | None) -> ResignResult: ...

    def swap(self, actor: Actor) -> SwapResult: ...

    def take_record(self, actor: Actor) -> TakeRecordResult:
        """Take the other end's record that would drop moves of this board's (409 without)."""
        ...

    def set_players(self, actor: Actor, request: Mapping[str, object]) -> PlayersResult: ...

    def player_links(self, actor: Actor) -> LinksResult: ...

    def clock_control(self, actor: Actor, action: str) -> ClockResult: ...

    def confirm_pieces(self, actor: Actor) -> ConfirmResult:
        """The players checked the pieces' kinds (``check_pieces`` guidance): right."""
        ...

    def request_hint(self, actor: Actor, seconds: object = None) -> tuple[int, HintAnswer]:
        """(202, ``{"status": "thinking", "side"}``) or (200, the hint already shown)."""
        ...

    def request_eval(self, actor: Actor, analysis: object = None) -> tuple[int, EvalAnswer]:
        """(202, ``{"status": "thinking", "evaluation"}``) or (200, ready): the engine's score
        of the position now (``evaluation`` in the state); ``analysis`` true/false: analysis
        mode on/off (every position evaluated)."""
        ...

    def start_analysis(self, actor: Actor, gid: int,
                       seconds: object = None) -> tuple[int, AnalysisStatus]:
        """(202, progress) once queued, or (200, the stored analysis)."""
        ...

    def import_games(self, actor: Actor, games: Sequence[ImportedGame]) -> list[int]:
        """Store games read from a file (one transaction): their ids, a game already stored
        giving its id (owner only)."""
        ...
