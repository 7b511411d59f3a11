"""What the session's parts share: the board it is played on, the game record and the parts
themselves (:class:`Context`), plus the defaults a new game starts with.

The context belongs to the loop thread: only it reads or changes anything here (other threads
read the published snapshot). Each part owns its own state behind its methods (the clocks,
the computer players, the advisor, the storage outbox, the announcer, the players at a
distance); what belongs to the game as a whole — the game, its id, settings, players, match,
draw offer and move to make — is the :class:`~companion.session.record.GameRecord`'s, changed
only through its values (:class:`~companion.session.record.Change`): the context's properties
for it are read-only. What is left here is the board as last read and the loop's own marks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from companion.coach.config import CoachConfig
from companion.drivers.base import BoardCapabilities, BoardSource
from companion.rules.game import Game
from companion.session.advice import Advisor
from companion.session.analysis_worker import AnalysisWorker
from companion.session.announcer import Announcer
from companion.session.clock import TimeControl
from companion.session.coaching import Coaching
from companion.session.computer import ComputerConfig
from companion.session.match import Match
from companion.session.move_clocks import Clocks
from companion.session.opening import OpeningLine
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.record import GameRecord, Refusal
from companion.session.remote_play import RemoteGames
from companion.session.seats import Seats
from companion.session.settings import GameSettings
from companion.session.state_document import DisplayJSON, GameState, MoveToMake, PuzzleState
from companion.session.storage import Outbox
from companion.session.tracking import ProposingTracker
from companion.store import Store
from companion.voice.service import VoiceStatus

SIDES = ("attackers", "defenders")


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
    raichi: bool = True  # light the escape squares the king has a free line to
    computer: ComputerConfig = field(default_factory=ComputerConfig)
    # the board's sensors cannot tell attackers from defenders (reed switches): the tracker asks
    # the players to check the pieces' kinds at natural moments (the daemon sets it for such a
    # board; off for the simulator, polarity boards and sessions made in code)
    check_pieces: bool = False
    coach: CoachConfig = field(default_factory=CoachConfig)  # [coach]: the side coached


@dataclass(eq=False)
class Context:
    """The game being played and the session's parts (see the module docstring)."""

    store: Store
    board: BoardSource
    caps: BoardCapabilities
    defaults: SessionDefaults
    monotonic: Callable[[], float]
    wall: Callable[[], float]
    clocks: Clocks
    seats: Seats
    advisor: Advisor
    coach: Coaching
    analyses: AnalysisWorker
    outbox: Outbox
    announcer: Announcer
    record: GameRecord
    remote: RemoteGames
    tracker: ProposingTracker
    tracker_factory: Callable[[Game], ProposingTracker]
    opening: OpeningLine  # the explorer's line for the display
    accepted_at: float | None = None
    game_json: GameState | None = None  # the stored game's state part (state.refresh)
    # the board as last read
    occupied: frozenset[str] | None = None
    fed: tuple[object, ...] | None = None  # the last reading fed to the tracker
    resync: bool = True  # compare the first reading with the game (a restart)
    left_start: bool = False  # the board left the start position (a match's game 2 waits)
    # the board's panel (companion.panel): the display's text, and whether a move at the board
    # ends with the clock button (as on a chess clock)
    display: DisplayJSON | None = None
    voice: VoiceStatus | None = None  # the voice's engine and what it said (companion.voice)
    puzzle: PuzzleState | None = None  # the puzzle being played (PuzzleRun's own)
    press_to_end: bool = False
    # the board defines the next game's position (the tracker's reading) until this loop time:
    # the owner's page renews it while its editor is open (GameSetup.read_board)
    reading_until: float | None = None

    def board_time(self) -> float:
        return self.caps.board_time(self.monotonic())

    # -- the game record, read-only (changed through self.record.apply) ------------------------
    @property
    def game(self) -> Game:
        return self.record.game

    @property
    def gid(self) -> int:
        return self.record.gid

    @property
    def settings(self) -> GameSettings:
        return self.record.settings

    @property
    def players(self) -> dict[str, PlayerSpec]:
        return self.record.players

    @property
    def next_players(self) -> dict[str, PlayerSpec] | None:
        return self.record.next_players

    @property
    def match(self) -> Match | None:
        return self.record.match

    @property
    def draw_offer(self) -> str | None:
        return self.record.draw_offer

    @property
    def move_to_make(self) -> MoveToMake | None:
        return self.record.move_to_make

    @property
    def refused(self) -> Refusal | None:
        return self.record.refused

    @property
    def match_ref(self) -> tuple[int, int] | None:
        """``(id, game number)`` of the current match."""
        return self.record.match_ref
