"""The page state document (``/api/state``, each ``/api/events`` message) as types.

The JSON shape is the one docs/http-api.md and INTERFACES.md §1 describe; these TypedDicts
only say it in code (keys such as ``from`` are Python keywords, hence the functional form).
:class:`GameState` is the stored game's part, rebuilt after each write; :class:`LiveState` the
part rebuilt at each publication; the document is both merged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from companion.coach.explorer import BookLine
from companion.coach.puzzles import PuzzleListing
from companion.parts import PartStatus
from companion.session.advice import PendingHint
from companion.session.clock import ClockJSON
from companion.session.coaching import CoachJSON, EvalJSON
from companion.session.computer import PlayerFailure, Thinking
from companion.session.match import MatchJSON
from companion.session.remote_play import RemoteJSON
from companion.session.results import PlayerJSON, ShownHint
from companion.session.settings import SettingsJSON
from companion.session.storage import StorageJSON
from companion.voice.service import VoiceStatus

#: One entry of ``events`` in the page state: ``id``, ``t``, ``kind``, ``by``, the stamp
#: (``game``; ``name`` and ``by_kind`` for a side) and the fields of its kind (docs/http-api.md:
#: they differ per kind, hence a plain mapping).
SessionEvent = dict[str, object]


class PuzzleLast(TypedDict):
    """The judgement of the solver's last move (companion.coach.puzzle_attempt.Verdict)."""

    move: str
    kind: str  # right, solved, wrong
    answer: str | None  # the computer's answer: the defence, or the refutation
    why: str | None  # what a refutation does: escape, capture, win, holds
    solution: str | None  # after a wrong move: the right one


class PuzzleState(PuzzleListing):
    """``puzzle`` in the page state while a puzzle is played (docs/coach.md): its listing in
    ``GET /api/puzzles`` and how the attempt stands."""

    status: str  # playing, solved, failed, left
    setup: bool  # the board is being set up for it
    played: int  # the solver's moves judged
    last: PuzzleLast | None
    comment: str
    player_rating: float | None  # after the attempt, once it is stored
    puzzle_rating: float | None


class DisplayJSON(TypedDict):
    """``display`` of the page state: the board display's text lines (companion.panel)."""

    lines: list[str]


class BoardStatus(TypedDict, total=False):
    kind: str
    connected: bool
    detail: str | None
    # the parts the board plays without that are missing now (companion.parts: display,
    # buttons, LEDs)
    parts: list[PartStatus]


LastMove = TypedDict("LastMove", {"from": str, "to": str, "captured": list[str], "side": str,
                                  "text": str})

#: ``move_to_make``: a move chosen off the board (``by`` the kind of its chooser) that the
#: person at the board must make; ``score`` the computer's evaluation of it.
MoveToMake = TypedDict("MoveToMake", {"move": str, "from": str, "to": str, "by": str,
                                      "side": str, "captures": list[str], "score": float},
                       total=False)


class GameState(TypedDict):
    """The stored game's part of the state."""

    game: int
    variant: str
    variant_name: str
    size: int
    first: str
    turn: str
    moves: list[str]
    result: str
    reason: str | None
    reason_text: str
    position: str
    last: LastMove | None
    captures: dict[str, int]
    players: dict[str, PlayerJSON]
    next_players: dict[str, PlayerJSON] | None
    draw_offer: str | None
    throne: str | None
    corners: list[str]
    settings: SettingsJSON
    clock: ClockJSON | None
    match: MatchJSON | None
    times: list[dict[str, float] | None]
    accepted_at: float | None
    threat: Any


class LiveState(TypedDict):
    """The part of the state that changes between stores."""

    leds: dict[str, str]
    message: str
    tracking: str
    guidance: Mapping[str, object]  # the tracker's (docs/events.md)
    move_to_make: MoveToMake | None
    occupied: list[str]
    board: BoardStatus
    storage: StorageJSON
    events: list[SessionEvent]
    player_error: PlayerFailure | None
    thinking: Thinking | None
    hint: ShownHint | None
    hint_pending: PendingHint | None
    hints: dict[str, int]
    remote: RemoteJSON | None
    note: str
    display: DisplayJSON | None  # the board display's text (companion.panel)
    puzzle: PuzzleState | None  # the puzzle being played (companion.session.puzzle_run)
    voice: VoiceStatus | None  # what the voice said (companion.voice; null when off)
    coach: CoachJSON | None  # the side coached and its warning (companion.session.coaching)
    evaluation: EvalJSON | None  # the score asked for (POST /api/eval), for the position now
    book: BookLine | None  # the explorer's line for the position (companion.session.opening)


class StateDocument(GameState, LiveState):
    """The whole ``/api/state`` document: both parts merged."""
