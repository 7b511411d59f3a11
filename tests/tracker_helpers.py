"""A hand on a simulated board for tracker tests: scans on a virtual clock, and a minimal session
that applies the tracker's proposals to its own game."""

from __future__ import annotations

from companion.rules import Move, get_variant
from companion.rules.game import Game
from companion.scan import Scan
from companion.tracker import Event, Tracker
from companion.tracker.events import apply_proposal


class Rig:
    """A tracker fed by explicit on/off changes; time only moves when told. ``game`` is the
    session's game: every proposal is applied to it, as the session would."""

    def __init__(self, variant: str = "brandubh", position: str | None = None,
                 turn: str | None = None, occupied: set[str] | None = None,
                 colours: dict[str, str] | None = None, **kw: float) -> None:
        self.game = Game(get_variant(variant), position, turn)
        self.tracker = Tracker(self.game, **kw)
        self.occ = set(self.game.board.occupied_names() if occupied is None else occupied)
        self.colours = dict(colours) if colours is not None else None
        self.t = 0.0
        self.events: list[Event] = []
        self._feed()

    def _feed(self) -> None:
        colours = None
        if self.colours is not None:
            colours = {s: c for s, c in self.colours.items() if s in self.occ}
        self.take(self.tracker.feed(Scan(self.t, frozenset(self.occ), colours)))

    def take(self, events: list[Event]) -> list[Event]:
        """Record events and apply the proposals among them to :attr:`game`."""
        for e in events:
            apply_proposal(self.game, e)
        self.events += events
        return events

    def reset(self, game: Game | None = None) -> list[Event]:
        """The session changed its game (or switched to ``game``): resync the tracker."""
        if game is not None:
            self.game = game
        return self.take(self.tracker.reset(self.game, self.t))

    def wait(self, dt: float) -> Rig:
        """Let ``dt`` seconds pass, ticking at every deadline like the replay does."""
        end = self.t + dt
        while (d := self.tracker.deadline) is not None and d <= end:
            self.take(self.tracker.tick(d))
            self.t = d
        self.t = end
        self.take(self.tracker.tick(end))
        return self

    def change(self, off: tuple[str, ...] = (), on: tuple[str, ...] = (), dt: float = 0.0,
               colours: dict[str, str] | None = None) -> Rig:
        """After ``dt`` seconds, squares ``off`` empty and ``on`` fill (one scan)."""
        if dt:
            self.wait(dt)
        self.occ.difference_update(off)
        self.occ.update(on)
        if colours:
            assert self.colours is not None
            self.colours.update(colours)
        self._feed()
        return self

    def lift(self, sq: str, dt: float = 0.5) -> Rig:
        return self.change(off=(sq,), dt=dt)

    def place(self, sq: str, dt: float = 0.5, colour: str | None = None) -> Rig:
        return self.change(on=(sq,), dt=dt, colours={sq: colour} if colour else None)

    def move(self, frm: str, to: str, settle: float = 1.0) -> Rig:
        """Lift-and-place, then wait ``settle``."""
        return self.lift(frm).place(to).wait(settle)

    def mv(self, text: str) -> Move:
        """The Move ``"d2-e2"`` on this board (the text edge)."""
        return self.game.board.parse_move(text)[0]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def moves(self) -> list[str]:
        """The session game's moves (always those the tracker's own model has too)."""
        assert list(self.tracker.moves) == self.game.moves
        return list(self.game.moves)

    def mark(self) -> int:
        return len(self.events)

    def since(self, mark: int, kind: str | None = None) -> list[Event]:
        return [e for e in self.events[mark:] if kind is None or e.kind == kind]


def position(size: int, pieces: dict[str, str]) -> str:
    """OTN for ``pieces`` (square -> ``t``/``T``/``K``) on a ``size`` board."""
    rows = []
    for rank in range(1, size + 1):
        row, empty = "", 0
        for f in range(size):
            p = pieces.get(f"{chr(97 + f)}{rank}")
            if p is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += p
        rows.append(row + (str(empty) if empty else ""))
    return "/" + "/".join(rows) + "/"
