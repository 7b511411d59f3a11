"""Tracker events: what the tracker tells the daemon, the page, the store and the replay."""

from __future__ import annotations

from dataclasses import dataclass, field

# Event kinds. The first five are fixed by shared/spec/INTERFACES.md (``replay --events``).
MOVE = "move"            # data: move, side, captured (king included), from, to, ply
LEDS = "leds"            # data: leds (the whole new frame)
REMOVED = "removed"      # data: square (a captured piece was lifted off)
ILLEGAL = "illegal"      # data: reason, leds
GAME_OVER = "game_over"  # data: result, reason (result "ongoing" if a revision un-ends the game)
# The project's own kinds.
WARNING = "warning"      # data: reason (a fault that is not an illegal move)
REVISED = "revised"      # data: like MOVE plus "replaces": this move replaces the last one
#                          (the piece moved on before the opponent touched anything)
TAKEBACK = "takeback"    # data: move (the move taken back by restoring the board)
RESTORED = "restored"    # data: square (a captured piece put back during a takeback)
SETUP = "setup"          # data: message, fill, clear (the board does not match the game)
READY = "ready"          # data: turn (the board matches the game: play may start)


@dataclass(frozen=True, slots=True)
class Event:
    """One tracker event at trace/clock time ``t``."""

    t: float
    kind: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The event as one INTERFACES.md event line: ``{"t": .., "event": kind, **data}``."""
        out: dict = {"t": round(self.t, 3), "event": self.kind}
        out.update(self.data)
        return out
