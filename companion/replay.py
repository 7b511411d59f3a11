"""``tafl-companion replay`` and ``simulate``: sensor traces through the tracker on a virtual
clock (docs/interfaces.md §1), and the simulator that writes them.

The replay feeds every scan to the same :class:`~companion.tracker.Tracker` the daemon runs and
calls ``tick`` exactly at the tracker's deadlines in between (no real sleeping), so a move is
accepted at the trace time the daemon would accept it (to within one scan period).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TypedDict

from .commands import Subcommands, UsageError, emit
from .rules.game import Game
from .trace import Trace, TraceError, parse_trace, read_trace
from .tracker import Event, MoveEvent, Tracker
from .tracker.events import EventKind, FaultFlagged, apply_proposal
from .tracker.square_relations import grid_for


def acceptance_latencies(trace: Trace, events: list[Event]) -> list[tuple[MoveEvent, float]]:
    """For every accepted move or revision that no illegal flag preceded (since the move
    before it): the event and its latency, from the last change on its path (one square
    beyond each end included) to its acceptance, in trace seconds."""
    touched: dict[str, list[float]] = {}
    for before, after in zip(trace.scans, trace.scans[1:]):
        for sq in before.occupied ^ after.occupied:
            touched.setdefault(sq, []).append(after.t)
    out = []
    flagged = False
    grid = grid_for(trace.rules.size)
    for e in events:
        match e:
            case FaultFlagged() if e.kind == EventKind.ILLEGAL:
                flagged = True
            case MoveEvent():
                if not flagged:
                    squares = [grid.name(s) for s in grid.path(e.move.frm, e.move.to)]
                    times = [t for s in squares for t in touched.get(s, []) if t <= e.t + 1e-9]
                    if times:
                        out.append((e, e.t - max(times)))
                flagged = False
    return out


def run_trace(trace: Trace, tracker: Tracker | None = None, game: Game | None = None
              ) -> tuple[Game, list[Event]]:
    """Feed a parsed trace through a tracker (a fresh one on the variant's start position by
    default) and apply its proposals to ``game`` the way the session does (a fresh game by
    default). Returns that game and every event in order."""
    if game is None:
        game = Game(trace.rules)
    if tracker is None:
        tracker = Tracker(game)
    out: list[Event] = []

    def take(events: list[Event]) -> None:
        for e in events:
            apply_proposal(game, e)
        out.extend(events)

    def advance(t: float) -> None:
        """Tick at every deadline up to ``t``."""
        last = None
        while True:
            d = tracker.deadline
            if d is None or d > t or (last is not None and d <= last):
                return
            take(tracker.tick(d))
            last = d

    for scan in trace.scans:
        advance(scan.t)
        take(tracker.feed(scan))
    advance(trace.end)
    take(tracker.tick(trace.end))
    return game, out


class ReplaySummary(TypedDict):
    """``replay``'s summary: the accepted moves (final versions), the result, how many
    illegal moves and warnings were flagged."""

    moves: list[str]
    result: str
    illegal: int
    warnings: int


def summary(game: Game, events: Iterable[Event]) -> ReplaySummary:
    """The replay summary: accepted moves (final versions), result, illegal and warning counts."""
    kinds = [e.kind for e in events]
    return {
        "moves": list(game.moves),
        "result": game.result,
        "illegal": kinds.count(EventKind.ILLEGAL),
        "warnings": kinds.count(EventKind.WARNING),
    }


def replay_trace(path_or_lines: str | Path | Iterable[str], events: bool = False
                 ) -> tuple[ReplaySummary, list[dict[str, object]]]:
    """Replay a trace file (a path) or its lines. Returns the summary and, when ``events`` is
    true, every event as its JSON dict (else an empty list). ValueError on a bad trace."""
    if isinstance(path_or_lines, str | Path):
        trace = read_trace(path_or_lines)
    else:
        trace = parse_trace(path_or_lines)
    game, evs = run_trace(trace)
    return summary(game, evs), ([e.to_json() for e in evs] if events else [])


def cmd_replay(args: argparse.Namespace) -> int:
    """``tafl-companion replay TRACE [--events]``."""
    try:
        doc, evs = replay_trace(args.trace, events=args.events)
    except TraceError as exc:
        raise UsageError(str(exc)) from None
    for e in evs:
        emit(e)
    emit(doc)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """``tafl-companion simulate VARIANT RECORDS.csv [--game N] [--seed S] [--noise P] [-o F]``:
    writes the trace (to stdout without ``-o``; with ``-o`` prints a JSON summary)."""
    from .rules import get_variant
    from .rules.records import RecordError, read_records
    from .simulator import PROFILES, simulate_record

    rules = get_variant(args.variant)
    try:
        records = read_records(Path(args.records).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {args.records}: {exc.strerror}") from None
    except RecordError as exc:
        raise UsageError(f"{args.records}: {exc}") from None
    if not 1 <= args.game <= len(records):
        raise UsageError(f"--game must be 1..{len(records)}, not {args.game}")
    if args.noise not in PROFILES:
        raise UsageError(f"unknown noise profile {args.noise!r} (known: {', '.join(PROFILES)})")
    lines = simulate_record(rules, records[args.game - 1], seed=args.seed, noise=args.noise)
    text = "\n".join(lines) + "\n"
    if args.output in (None, "-"):
        import sys

        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror}") from None
    expect = json.loads(lines[0]).get("expect", {})
    emit({"trace": args.output, "lines": len(lines), "expect": expect})
    return 0


def register(sub: Subcommands) -> None:
    """Add the ``replay`` and ``simulate`` commands."""
    p = sub.add_parser("replay", help="feed a sensor trace through the tracker")
    p.add_argument("trace", help="a tafl-trace/1 file (JSON lines)")
    p.add_argument("--events", action="store_true", help="print every event before the summary")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("simulate", help="turn a game record into a sensor trace")
    p.add_argument("variant", help="variant id (see `rules variants`)")
    p.add_argument("records", help="game records, one CSV line each (see docs/interfaces.md)")
    p.add_argument("--game", type=int, default=1, help="which record (1-based), default 1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--noise", default="typical", help="clean, typical or clumsy")
    p.add_argument("-o", "--output", help="trace file to write (default: standard output)")
    p.set_defaults(func=cmd_simulate)
