"""What the tracker tells the session, the page, the store and the replay: events, states and
guidance, all as data (see docs/events.md for every kind, code and field).

The proposals (``move``, ``revised``, ``takeback``; ``game_over`` follows from them) describe
what the tracker concluded about its own private model of the game; the session applies them to
the real game with :func:`apply_proposal` (or refuses them and calls ``tracker.reset``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..rules.game import Game


class EventKind(StrEnum):
    """Event kinds. The first five are fixed by the replay interface (``replay --events``)."""

    MOVE = "move"            #: a move was made (a proposal): move, side, captured, from, to,
    #                           ply, placed_at
    LEDS = "leds"            #: the LED frame changed: leds (the whole new frame)
    REMOVED = "removed"      #: a captured piece was lifted off: square, lifted_at
    ILLEGAL = "illegal"      #: an illegal move or state: code, reason, leds, and the code's data
    GAME_OVER = "game_over"  #: result, reason (result "ongoing", reason "revised" if a revision
    #                           un-ends the game)
    WARNING = "warning"      #: a fault that is not an illegal move: code, reason, and its data
    REVISED = "revised"      #: a proposal replacing the last move (the piece moved on while the
    #                           hand was still on it): like move plus replaces
    TAKEBACK = "takeback"    #: a proposal: the last move was taken back on the board: move,
    #                           side, ply
    RESTORED = "restored"    #: a captured piece was put back during a takeback: square
    SETUP = "setup"          #: the board does not match the game: message, fill, clear,
    #                           recolour, pieces
    READY = "ready"          #: the board matches the game, play may start: turn


class TrackerState(StrEnum):
    """What the tracker is waiting for (``tracker.state``)."""

    SETUP = "setup"                      #: the board does not match the game yet
    READY = "ready"                      #: waiting for the side to move
    LIFTED = "lifted"                    #: a piece is in the air
    CAPTURE_PENDING = "capture_pending"  #: captured pieces still stand on the board
    TAKEBACK = "takeback"                #: captured pieces are being put back
    WARNING = "warning"                  #: a warning is shown
    ILLEGAL = "illegal"                  #: an illegal move is shown
    OVER = "over"                        #: the game has ended
    SUSPENDED = "suspended"              #: the session suspended judging (see Tracker.suspend)


class GuidanceKind(StrEnum):
    """What the guidance for the players is about (``tracker.guidance.kind``)."""

    WAITING = "waiting"                  #: no scan seen yet
    SETUP = "setup"                      #: fill, clear, recolour: make the board match
    SETUP_COMPLETE = "setup_complete"    #: the board matches; play starts once it is still
    TO_MOVE = "to_move"                  #: side: that side is to move
    LIFTED = "lifted"                    #: side, square, piece: a piece of the side to move is up
    MOVING_AGAIN = "moving_again"        #: square, piece: the piece just moved is up again
    MAKE_MOVE = "make_move"              #: the move to make (see Tracker.expect)
    LIFT_CAPTURED = "lift_captured"      #: squares, pieces: captured pieces to lift off
    TAKEBACK = "takeback"                #: squares, pieces: captured pieces to put back
    ILLEGAL = "illegal"                  #: code and its data: an illegal move to undo
    WARNING = "warning"                  #: code and its data: a fault to fix
    GAME_OVER = "game_over"              #: result, reason, winner, squares/pieces still to lift
    SUSPENDED = "suspended"              #: reason: no move is accepted until resumed


@dataclass(frozen=True, slots=True)
class Guidance:
    """What the players should do now, as data; ``companion.messages`` makes sentences."""

    kind: GuidanceKind
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., **data}``."""
        return {"kind": str(self.kind), **self.data}


# Module-level names for the kinds (older code imports these).
MOVE = EventKind.MOVE
LEDS = EventKind.LEDS
REMOVED = EventKind.REMOVED
ILLEGAL = EventKind.ILLEGAL
GAME_OVER = EventKind.GAME_OVER
WARNING = EventKind.WARNING
REVISED = EventKind.REVISED
TAKEBACK = EventKind.TAKEBACK
RESTORED = EventKind.RESTORED
SETUP = EventKind.SETUP
READY = EventKind.READY

#: The kinds that propose a change of the game.
PROPOSALS = frozenset({MOVE, REVISED, TAKEBACK})


@dataclass(frozen=True, slots=True)
class Event:
    """One tracker event at trace/clock time ``t``."""

    t: float
    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The event as one INTERFACES.md event line: ``{"t": .., "event": kind, **data}``."""
        out: dict[str, Any] = {"t": round(self.t, 3), "event": str(self.kind)}
        out.update(self.data)
        return out


class ProposalError(ValueError):
    """A proposal that does not fit the game it was applied to (the game and the tracker's
    model differ: reset the tracker)."""


def apply_proposal(game: Game, event: Event) -> bool:
    """Apply a ``move``, ``revised`` or ``takeback`` event to ``game`` (what the session does
    once it has decided to accept it). Returns False for any other kind (nothing to apply);
    ProposalError if the game does not fit the proposal (it is left unchanged then)."""
    kind, data = event.kind, event.data
    if kind not in PROPOSALS:
        return False
    played = game.played
    if kind == TAKEBACK:
        if not played or played[-1].text != data["move"]:
            raise ProposalError(f"cannot take back {data['move']}: the game's last move is "
                                f"{played[-1].text if played else 'none'}")
        game.undo()
        return True
    move = f"{data['from']}-{data['to']}"
    ply = data.get("ply")
    if ply is not None and ply != len(played) + (kind == MOVE):
        raise ProposalError(f"{kind} {data['move']} is ply {ply}, but the game has "
                            f"{len(played)} moves")
    if kind == REVISED:
        if not played or played[-1].text != data["replaces"]:
            raise ProposalError(f"cannot revise {data['replaces']}: the game's last move is "
                                f"{played[-1].text if played else 'none'}")
        undone = game.undo()
        try:
            game.play(move)
        except ValueError as exc:
            game.play(f"{undone.frm}-{undone.to}")
            raise ProposalError(f"cannot revise {undone.text} to {move}: {exc}") from None
        return True
    try:
        game.play(move)
    except ValueError as exc:
        raise ProposalError(f"cannot play {move}: {exc}") from None
    return True
