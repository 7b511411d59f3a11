"""The game record: the one owner of what belongs to the game as a whole — the game, its id,
settings, players (and the next game's), match, draw offer, move to make and the board's last
refused proposal.

Nothing else assigns these: every change is a value (:class:`Change`, or :class:`Opened` for a
new or resumed game) given to :meth:`GameRecord.apply` / :meth:`GameRecord.open` *after* the
change was stored (:meth:`companion.session.decisions.Decisions.conclude` runs that sequence
for a control: store, apply, tell the player at a distance, announce, end the game, re-guide
the board). The other parts read the fields (through :class:`~companion.session.context.Context`
too, whose properties are read-only). The record belongs to the loop thread.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from companion.rules.game import Game
from companion.session.match import Match
from companion.session.players import PlayerSpec
from companion.session.settings import GameSettings
from companion.session.state_document import MoveToMake
from companion.session.tracking import Observed, apply

SIDES = ("attackers", "defenders")


class Refusal(TypedDict):
    """Why the board's last proposal was refused (shown with the set-up guidance)."""

    code: str
    message: str
    move: str | None


class _Keep(enum.Enum):
    KEEP = "keep"


#: A field of a :class:`Change` left as it is.
KEEP: Literal[_Keep.KEEP] = _Keep.KEEP
Keep = Literal[_Keep.KEEP]


@dataclass(frozen=True)
class Change:
    """One change of the record (each field: its new value, or :data:`KEEP`)."""

    game: Game | None = None  # the new game (a copy a control computed), None: the same
    draw_offer: str | None | Keep = KEEP
    move_to_make: MoveToMake | None | Keep = KEEP
    refused: Refusal | None | Keep = KEEP
    players: dict[str, PlayerSpec] | None = None  # None: the same
    next_players: dict[str, PlayerSpec] | None | Keep = KEEP


@dataclass(frozen=True)
class Opened:
    """A new game, or the stored one resumed: the whole record anew."""

    gid: int
    game: Game
    settings: GameSettings
    players: dict[str, PlayerSpec]
    match: Match | None = None
    move_to_make: MoveToMake | None = None


@dataclass(eq=False)
class GameRecord:
    """What belongs to the game as a whole (see the module docstring)."""

    game: Game
    settings: GameSettings
    players: dict[str, PlayerSpec] = field(default_factory=dict)
    gid: int = 0
    next_players: dict[str, PlayerSpec] | None = None
    match: Match | None = None
    draw_offer: str | None = None
    move_to_make: MoveToMake | None = None
    refused: Refusal | None = None

    def open(self, opened: Opened) -> None:
        """A new game or the stored one resumed: no offer, refusal or next players carry over."""
        self.gid, self.game, self.settings = opened.gid, opened.game, opened.settings
        self.players, self.match = opened.players, opened.match
        self.move_to_make = opened.move_to_make
        self.next_players = self.draw_offer = self.refused = None

    def apply(self, change: Change) -> None:
        """Apply ``change`` (stored already, or a part of the loop's step written with it)."""
        if change.game is not None:
            self.game = change.game
        if change.players is not None:
            self.players = change.players
        if change.draw_offer is not KEEP:
            self.draw_offer = change.draw_offer
        if change.move_to_make is not KEEP:
            self.move_to_make = change.move_to_make
        if change.refused is not KEEP:
            self.refused = change.refused
        if change.next_players is not KEEP:
            self.next_players = change.next_players

    def play(self, proposal: Observed) -> None:
        """Apply the tracker's accepted proposal (a move, a revision) to the game in place
        (:class:`~companion.session.tracking.ProposalError` if it does not fit: unchanged);
        the loop writes it with the step's rows."""
        apply(self.game, proposal)

    def stamp(self, by: str) -> dict[str, object]:
        """What an event by ``by`` keeps of the moment it happens: the game's id, and for a
        side (``attackers``/``defenders``) the name and kind of its player then."""
        out: dict[str, object] = {"game": self.gid}
        spec = self.players.get(by) if by in SIDES else None
        if spec is not None:
            out["name"], out["by_kind"] = spec.name, spec.kind.value
        return out

    @property
    def match_ref(self) -> tuple[int, int] | None:
        """``(id, game number)`` of the current match."""
        return (self.match.id, self.match.number) if self.match else None
