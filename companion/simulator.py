"""A human-and-sensor simulator: a game record in, a raw ``tafl-trace/1`` sensor trace out.

A simulated player makes each recorded move the way people do on the physical board: lifting and
placing, or sliding the piece across transit squares (the reed switches close and open as the
magnet passes), with contact bounce, a passing magnet briefly closing an empty neighbour's switch
(crosstalk), hesitation (lift and put back), slow slides that pause on the way, overshooting and
sliding back, placing on one square and then moving on, captured pieces lifted off one at a time
in any order and sometimes late, a wrong piece lifted first and put back, the opponent starting
before the captured pieces are off, illegal moves that are then put back, knocked pieces that fall
back or land on a neighbouring square (put back later), a wrong start setup fixed by hand, and
takebacks by restoring the board. The sensors are scanned at ``scan_hz``.

Each behaviour has a rate in a noise profile (``clean``, ``typical``, ``clumsy``). Behaviours that
the tracker must flag are timed to be flagged exactly once, so the header's ``expect`` (moves,
result and the illegal/warning counts) is what a correct tracker reports for the trace.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .rules import ATTACKERS, RuleSet
from .rules.game import Game
from .rules.records import Record
from .scan import Scan
from .sim_hand import FLAGGED, HOLD, QUICK, Hand
from .sim_slips import Slips, Tally, last_destination
from .trace import format_trace


@dataclass(frozen=True)
class Profile:
    """Rates (per move, 0..1) of each behaviour, and the players' thinking time."""

    slide: float = 0.0          # slide the piece instead of lifting it
    bounce: float = 0.0         # contact bounce when a switch opens or closes
    crosstalk: float = 0.0      # per transit square: an empty neighbour flickers
    hesitate: float = 0.0       # lift the piece and put it back first
    pause: float = 0.0          # pause on the way (slide) or place short then move on (lift)
    overshoot: float = 0.0      # slide one square too far and back
    wrong_piece: float = 0.0    # per capture: lift a wrong piece first, then put it back
    late: float = 0.0           # per capture: remove it late
    early: float = 0.0          # the opponent lifts a piece before the captures are off
    pending_move: float = 0.0   # the opponent completes a move before the captures are off
    illegal: float = 0.0        # an illegal move, put back, before the real one
    knock_back: float = 0.0     # a neighbouring piece knocked, falling straight back
    knock_move: float = 0.0     # a neighbouring piece knocked onto another square
    takeback: float = 0.0       # restore the position (captures too), then play the move again
    setup_error: float = 0.0    # the start setup has a missing and/or extra piece
    # the player to move moves an opponent's piece one square (fast or slow, lifted or slid),
    # leaves it there until it is flagged, then puts it back
    opponent_step: float = 0.0
    # the player to move moves one of his soldiers one square onto the throne or a corner
    restricted_step: float = 0.0
    # 3-15 s after a move, the opponent lifts the piece just moved and puts it back (at once, or
    # after a while), or moves it one square and leaves it until it is flagged
    nudge: float = 0.0
    reseat: float = 0.0         # re-seat the piece just placed (off 50-300 ms, same square)
    knock_place: float = 0.0    # a neighbour knocked onto another square as the piece is placed
    think: tuple[float, float] = (0.6, 2.0)


PROFILES: dict[str, Profile] = {
    "clean": Profile(),
    "typical": Profile(
        slide=0.5, bounce=0.3, crosstalk=0.15, hesitate=0.05, pause=0.1, overshoot=0.05,
        wrong_piece=0.05, late=0.1, early=0.03, pending_move=0.02, illegal=0.02,
        knock_back=0.03, knock_move=0.01, takeback=0.01, setup_error=0.3,
    ),
    "clumsy": Profile(
        slide=0.6, bounce=0.6, crosstalk=0.3, hesitate=0.15, pause=0.25, overshoot=0.15,
        wrong_piece=0.2, late=0.3, early=0.08, pending_move=0.06, illegal=0.08,
        knock_back=0.1, knock_move=0.05, takeback=0.05, setup_error=1.0, opponent_step=0.04,
        restricted_step=0.04, nudge=0.04, reseat=0.1, knock_place=0.04, think=(0.4, 1.5),
    ),
}

def _colour(letter: str | None) -> str:
    return "a" if letter == "t" else "d"


class _Player(Hand):
    """The simulated players and board: each recorded move made as people make it, with the
    profile's noise, the slips between moves (:class:`~companion.sim_slips.Slips`) and the
    tally of what must be flagged."""

    def __init__(self, rules: RuleSet, profile: Profile, rng: random.Random) -> None:
        super().__init__(rules, rng, bounce=profile.bounce, crosstalk=profile.crosstalk,
                         knock_back=profile.knock_back)
        self.p = profile
        self.game = Game(rules)
        board = self.game.board
        self.phys = {s: _colour(board.piece_at(self.ix(s))) for s in board.occupied_names()}
        self.initial = dict(self.phys)
        self.tally = Tally()
        self.slips = Slips(self, self.game, self.tally, profile.think)
        self.deferred: tuple[str, ...] = ()
        self.defer_mode = ""

    def _rate(self, rate: float) -> bool:
        """A behaviour with this rate happens now (no random draw for a rate of 0, so adding a
        behaviour leaves the traces of profiles without it unchanged)."""
        return bool(rate) and self.rng.random() < rate

    def _knock_plan(self, frm: str, to: str, path: list[str], caps: set[str]
                    ) -> tuple[str, str] | None:
        """A neighbouring piece the hand can knock onto a free square without making the move
        ambiguous (see the tracker's knock rule)."""
        if self.cheb(frm, to) <= 1:
            return None
        options = []
        for k in sorted({s for sq in path for s in self.ring(sq)}):
            if k not in self.phys or k == frm or k in caps or self.cheb(k, to) <= 1:
                continue
            for k2 in self.ring(k):
                if (k2 in self.phys or k2 in path or self.special(k2) or self.cheb(k2, frm) <= 1
                        or self.cheb(k2, to) <= 1):
                    continue
                options.append((k, k2))
        return self.rng.choice(options) if options else None

    def move(self, text: str, last: bool) -> None:
        """Make one recorded move, with the profile's noise, and lift off what it captures."""
        game, rng, p = self.game, self.rng, self.p
        board = game.board
        move, _ = board.parse_move(text)
        frm, to = board.name(move.frm), board.name(move.to)
        captured, result = board.preview(move)
        caps = [board.geo.names[s] for s in captured]
        deferred, self.deferred = self.deferred, ()
        if deferred and (to in deferred or not set(deferred).isdisjoint(self.line(frm, to))):
            self.remove(list(deferred), quiet=True)
            deferred = ()
        if deferred:
            self._with_pending(frm, to, deferred)
        else:
            if self._rate(p.opponent_step):
                self.slips.step(restricted=False)
            if self._rate(p.restricted_step):
                self.slips.step(restricted=True)
            if rng.random() < p.illegal:
                self.slips.illegal_move()
            if rng.random() < p.hesitate:
                self.wait(*p.think)
                self.shift(frm, frm, (0.3, 1.2))
            self.wait(*p.think)
            self._plain_move(frm, to, set(caps), knock_ok=result is None)
        game.play_text(text)
        if caps and not last and rng.random() < p.early + p.pending_move:
            self.deferred = tuple(caps)
            self.defer_mode = "early" if rng.random() < p.early / (p.early + p.pending_move) \
                else "pending"
            return
        if caps:
            self.remove(caps)
        if not last and rng.random() < p.takeback:
            self.take_back(frm, to, caps, text)
        elif not last and self._rate(p.nudge):
            self.slips.nudge(frm, to)

    def _plain_move(self, frm: str, to: str, caps: set[str], knock_ok: bool = True) -> None:
        rng, p, board = self.rng, self.p, self.game.board
        line = self.line(frm, to)
        knock = None  # after the game has ended the tracker no longer flags knocked pieces
        at_place = False
        if knock_ok and rng.random() < p.knock_move:
            knock = self._knock_plan(frm, to, line, caps)
        elif knock_ok and self._rate(p.knock_place):
            knock = self._knock_plan(frm, to, line, caps)
            at_place = True
        if knock:
            k, k2 = knock
            self.busy = {k, k2}
        stops_ok = [
            i for i in range(1, len(line) - 1)
            if not self.special(line[i]) and board.is_legal(board.parse_move(
                f"{frm}-{line[i]}")[0])
        ]
        if rng.random() < p.slide and not at_place:
            squares, stops, end = list(line), [], len(line) - 1
            if stops_ok and not knock and rng.random() < p.pause:
                stops.append((rng.choice(stops_ok), rng.uniform(0.1, 0.45)))
            beyond = self.beyond(frm, to)
            if (beyond and beyond not in self.phys and not self.special(beyond)
                    and rng.random() < p.overshoot):
                squares.append(beyond)
                stops.append((len(squares) - 1, rng.uniform(0.0, 0.3)))
            self.slide(squares, stops, end, knock)
        else:
            colour = self.lift(frm)
            if knock and not at_place:
                self.knock(k, k2, self.t + rng.uniform(0.02, 0.1))
            self.wait(0.25, 0.8)
            others = [
                board.name(d) for d in board.destinations(self.ix(frm))
                if board.name(d) != to and self._same_line(frm, to, board.name(d))
                and not self.special(board.name(d))
            ]
            if others and not knock and rng.random() < p.pause:
                first = rng.choice(others)
                self.place(first, colour)
                self.wait(0.3, 0.8)
                self.lift(first)
                self.wait(*QUICK)
            if knock and at_place:  # the hand brushes a neighbour as it puts the piece down
                self.knock(k, k2, self.t + rng.uniform(-0.08, 0.08))
            self.place(to, colour)
        if not knock and self._rate(p.reseat):  # off 50-300 ms, back within a second
            self.wait(0.05, 0.6)
            self.shift(to, to, (0.05, 0.3))
            self.tally.did("reseat")
        if knock:
            self.tally.did("knock_place" if at_place else "knock_move")
            self.wait(HOLD + 0.6, HOLD + 1.4)
            self.tally.warning_at(self.t, f"knocked {k}-{k2}")
            colour = self.phys.pop(k2)
            self.event(self.t, k2, None)
            self.phys[k] = colour
            self.event(self.t + rng.uniform(0.04, 0.12), k, colour)
            self.wait(0.2, 0.4)
        self.busy = set()

    def _same_line(self, frm: str, to: str, other: str) -> bool:
        (f0, r0), (f1, r1), (f2, r2) = self.xy(frm), self.xy(to), self.xy(other)
        if f0 == f1 == f2:
            return (r1 - r0) * (r2 - r0) > 0
        return r0 == r1 == r2 and (f1 - f0) * (f2 - f0) > 0

    def _with_pending(self, frm: str, to: str, pending: tuple[str, ...]) -> None:
        """The opponent moves before the captured pieces are off the board."""
        self.wait(0.3, 0.8)
        if self.defer_mode == "early":
            colour = self.lift(frm)
            self.wait(*FLAGGED)
            self.tally.warning_at(self.t, f"lifted {frm} before the captures were removed")
            self.remove(list(pending), quiet=True)
            self.wait(0.2, 0.6)
            self.place(to, colour)
        else:
            self.shift(frm, to, QUICK)
            self.wait(*FLAGGED)
            self.tally.illegal_at(self.t, f"moved {frm}-{to} before the captures were removed")
            self.remove(list(pending), quiet=True)
        self.wait(0.5)

    def remove(self, caps: list[str], quiet: bool = False) -> None:
        """Lift captured pieces off one at a time, in random order, maybe late or after lifting
        a wrong piece first."""
        rng, p = self.rng, self.p
        order = list(caps)
        rng.shuffle(order)
        last_to = last_destination(self.game)
        for sq in order:
            if rng.random() < p.late and not quiet:
                self.wait(1.5, 4.0)
            else:
                self.wait(0.3, 1.0)
            wrong = [
                s for s in self.ring(sq) if s in self.phys and s not in caps and s != last_to
            ]
            if wrong and not quiet and not self.game.is_over() and rng.random() < p.wrong_piece:
                s = rng.choice(wrong)
                self.shift(s, s, FLAGGED)
                self.tally.warning_at(self.t, f"wrong piece {s} lifted")
                self.wait(0.3, 0.8)
            self.lift(sq)
        self.wait(0.3, 0.6)

    def take_back(self, frm: str, to: str, caps: list[str], text: str) -> None:
        """Restore the position before the move (captured pieces too), then play it again."""
        rng = self.rng
        game = self.game
        colour = "d" if game.played[-1].side == ATTACKERS else "a"  # the king is "d" too
        self.wait(0.8, 1.5)
        piece_first = rng.random() < 0.5
        if piece_first:
            self.shift(to, frm, QUICK)
        for s in rng.sample(caps, len(caps)):
            self.wait(0.3, 0.7)
            self.place(s, colour)
        if not piece_first:
            self.wait(0.3, 0.7)
            self.shift(to, frm, QUICK)
        game.undo()
        self.wait(1.0, 2.0)
        self.shift(frm, to, (0.3, 0.8))
        game.play_text(text)
        if caps:
            self.remove(caps, quiet=True)

def simulate_moves(
    rules: RuleSet, moves: list[str] | tuple[str, ...], *, seed: int = 0,
    noise: str | Profile = "typical", scan_hz: float = 100.0, polarity: bool = False,
) -> list[str]:
    """A ``tafl-trace/1`` trace (lines without newlines) of a game played with ``moves``."""
    profile = PROFILES[noise] if isinstance(noise, str) else noise
    rng = random.Random(f"tafl-sim/{rules.id}/{seed}/{' '.join(moves)}")
    player = _Player(rules, profile, rng)
    if rng.random() < profile.setup_error:
        player.slips.setup()
    for i, text in enumerate(moves):
        player.move(text, last=i == len(moves) - 1)
        if player.game.is_over():
            break
    if player.deferred:
        player.remove(list(player.deferred), quiet=True)
    player.wait(2.0)
    game = player.game
    header = {
        "variant": rules.id, "size": rules.size, "scan_hz": scan_hz,
        **({"sensors": "polarity"} if polarity else {}),
        "generator": "tafl-companion simulate",
        "seed": seed, "noise": noise if isinstance(noise, str) else "custom",
        "expect": {
            "moves": list(game.moves), "result": game.result,
            "illegal": player.tally.illegal, "warnings": player.tally.warnings,
        },
        **({"behaviours": dict(sorted(player.tally.done.items()))} if player.tally.done else {}),
    }
    return list(format_trace(header, player.scans(scan_hz, polarity), end=round(player.t, 2)))


def tidy_trace(
    rules: RuleSet, moves: list[str] | tuple[str, ...], *, step: float = 1.0,
    scan_hz: float = 100.0,
) -> tuple[list[str], float]:
    """A noiseless trace (lines, and its end time) of a tidy player: lift the piece, place it
    ``step / 2`` later, then lift every captured piece, ``step / 2`` apart. For tests and
    benchmarks that need exact, predictable timing."""
    game = Game(rules)
    occupied = set(game.board.occupied_names())
    scans = [Scan(0.0, frozenset(occupied))]
    t = 1.0
    for text in moves:
        played = game.play_text(text)
        name = game.board.name
        for sq, place, wait in (
            (name(played.move.frm), False, step * 0.5), (name(played.move.to), True, step),
            *((sq, False, step * 0.5) for sq in sorted(name(c) for c in played.captures)),
        ):
            if place:
                occupied.add(sq)
            else:
                occupied.discard(sq)
            scans.append(Scan(round(t, 3), frozenset(occupied)))
            t += wait
        t += step * 0.5
    end = round(t + 1.0, 3)
    header = {"variant": rules.id, "size": rules.size, "scan_hz": scan_hz}
    return list(format_trace(header, scans, end=end)), end


def simulate_record(rules: RuleSet, record: Record, **kw: object) -> list[str]:
    """:func:`simulate_moves` for a game record (see ``companion.rules.records``)."""
    return simulate_moves(rules, record.moves, **kw)  # type: ignore[arg-type]
