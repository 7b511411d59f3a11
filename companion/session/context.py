"""What the session's parts share: the game being played, the board it is played on, and the
parts themselves (:class:`Context`), plus the defaults a new game starts with.

The context belongs to the loop thread: only it reads or changes anything here (other threads
read the published snapshot). Each part owns its own state behind its methods (the clocks,
the computer players, the advisor, the storage outbox, the announcer, the players at a
distance); what belongs to the game as a whole — the game, its id, settings, players, match,
draw offer and move to make — is here, changed by :mod:`companion.session.decisions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from companion.drivers.base import BoardCapabilities, BoardSource
from companion.rules.game import Game
from companion.session.advice import Advisor
from companion.session.analysis import AnalysisWorker
from companion.session.announcer import Announcer
from companion.session.clock import TimeControl
from companion.session.computer import ComputerConfig
from companion.session.document import MoveToMake
from companion.session.match import Match
from companion.session.outbox import Outbox
from companion.session.players import PlayerKind, PlayerSpec
from companion.session.remote_play import RemoteGames
from companion.session.seats import Seats
from companion.session.settings import GameSettings
from companion.session.timing import Clocks
from companion.session.tracking import ProposingTracker
from companion.store import Store

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


class Refusal(TypedDict):
    """Why the board's last proposal was refused (shown with the set-up guidance)."""

    code: str
    message: str
    move: str | None


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
    analyses: AnalysisWorker
    outbox: Outbox
    announcer: Announcer
    game: Game
    tracker: ProposingTracker
    tracker_factory: Callable[[Game], ProposingTracker]
    remote: RemoteGames = field(init=False)
    gid: int = 0
    settings: GameSettings = field(default_factory=GameSettings)
    players: dict[str, PlayerSpec] = field(default_factory=dict)
    next_players: dict[str, PlayerSpec] | None = None
    match: Match | None = None
    draw_offer: str | None = None
    move_to_make: MoveToMake | None = None
    refused: Refusal | None = None
    accepted_at: float | None = None
    game_json: dict[str, Any] = field(default_factory=dict)  # the stored game's state part
    # the board as last read
    occupied: frozenset[str] | None = None
    fed: tuple[object, ...] | None = None  # the last reading fed to the tracker
    resync: bool = True  # compare the first reading with the game (a restart)
    left_start: bool = False  # the board left the start position (a match's game 2 waits)
    # the board's panel (companion.panel): the display's text, and whether a move at the board
    # ends with the clock button (as on a chess clock)
    display: dict[str, Any] | None = None
    voice: dict[str, Any] | None = None  # the voice's engine and what it said (companion.voice)
    press_to_end: bool = False
    # the board defines the next game's position (the tracker's reading) until this loop time:
    # the owner's page renews it while its editor is open (GameSetup.read_board)
    reading_until: float | None = None

    def stamp(self, by: str) -> dict[str, object]:
        """What an event by ``by`` keeps of the moment it happens: the game's id, and for a
        side (``attackers``/``defenders``) the name and kind of its player then."""
        out: dict[str, object] = {"game": self.gid}
        spec = self.players.get(by) if by in SIDES else None
        if spec is not None:
            out["name"], out["by_kind"] = spec.name, spec.kind.value
        return out

    def board_time(self) -> float:
        return self.caps.board_time(self.monotonic())

    @property
    def match_ref(self) -> tuple[int, int] | None:
        """``(id, game number)`` of the current match."""
        return (self.match.id, self.match.number) if self.match else None
