"""The ``tafl-companion`` command line (documented in docs/interfaces.md).

Every command prints one JSON document on stdout and exits 0, or prints a one-line message on
stderr and exits 2 on bad input; ``rules replay`` exits 1 when it read the records but some
disagree with the rules. Subsystems add their commands through ``register(subparsers)``.
Without a command it prints the commands; ``--version`` prints the version.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from . import __version__
from .commands import Parser, Subcommands, UsageError, emit
from .rules import ATTACKERS, DEFENDERS, PRESETS, Board, RuleSet, get_variant, perft
from .squares import a_board

if TYPE_CHECKING:
    from .rules.otg import Disagreement, ReplayReport
    from .rules.records import Record


def _board(args: argparse.Namespace) -> Board:
    rules = get_variant(args.variant)
    return Board(rules, args.position, args.turn)


def cmd_variants(args: argparse.Namespace) -> int:
    emit({"variants": [r.to_json() for r in PRESETS.values()]})
    return 0


# The deepest perft per board size that finishes within about a minute on a 2-core x86 machine
# (measured: brandubh depth 5 takes 12 s and 42 M nodes, ard-ri depth 6 132 s; 9x9 depth 4
# 4-5 s; 11x11 depth 4 10-15 s; 13x13 depth 3 0.2 s but depth 4 95 s; 19x19 depth 3 6 s).
# Every further ply multiplies the time by the branching factor (40 to 580). A Raspberry Pi
# runs it several times slower.
PERFT_MAX_DEPTH = {7: 5, 9: 4, 11: 4, 13: 3, 19: 3}


def perft_max_depth(size: int) -> int:
    """The deepest ``rules perft`` allowed on a ``size`` x ``size`` board."""
    if size in PERFT_MAX_DEPTH:
        return PERFT_MAX_DEPTH[size]
    return 5 if size <= 7 else 4 if size <= 11 else 3


def cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise UsageError(f"depth must be 0 or more, not {args.depth}")
    board = _board(args)
    size = board.rules.size
    limit = perft_max_depth(size)
    if args.depth > limit:
        raise UsageError(
            f"perft depth {args.depth} is too deep for {a_board(size)}: at most {limit} "
            "(each ply multiplies the time by the number of moves; the limit keeps it within "
            "about a minute)"
        )
    emit({"nodes": perft(board, args.depth)})
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    board = _board(args)
    out = {}
    for move in board.legal_moves():
        captured, result = board.preview(move)
        key = f"{board.name(move.frm)}-{board.name(move.to)}"
        caps = sorted(board.geo.names[s] for s in captured)
        out[key] = {"captures": caps, "result": result or "ongoing"}
    emit({"moves": out})
    return 0


def cmd_replay_records(args: argparse.Namespace) -> int:
    """``rules replay``: exit 0 when every game agrees with the rules, 1 when the file was read
    but some disagree (the document says where), 2 when the file cannot be read as records."""
    from .rules.otg import OtgError, replay_otg  # the record readers: only for this command
    from .rules.otg_rules import OWN_RULES
    from .rules.records import RecordError, read_records

    own = args.variant == OWN_RULES  # an .otg file under its own rules
    rules = None if own else get_variant(args.variant)
    try:
        with open(args.file, encoding="utf-8") as fh:
            text = fh.read()
        if args.file.lower().endswith(".otg") or text.lstrip().startswith("["):
            doc = replay_otg(rules, text)
        elif rules is None:
            raise UsageError(f"{args.file}: CSV records need a variant (not {OWN_RULES})")
        else:
            doc = replay_records(rules, read_records(text))
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    except (RecordError, OtgError, UnicodeDecodeError) as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    emit(doc)
    return 1 if doc["disagree"] else 0


def replay_records(rules: RuleSet, records: list[Record]) -> ReplayReport:
    """The ``rules replay`` document of CSV records."""
    from .rules.records import replay_record

    disagree: list[Disagreement] = []
    for i, record in enumerate(records, 1):
        _, problem = replay_record(rules, record)
        if problem:
            disagree.append({"game": i, "ply": problem[0], "reason": problem[1]})
    return {"games": len(records), "agree": len(records) - len(disagree), "disagree": disagree}


def _register_rules(sub: Subcommands) -> None:
    rules = sub.add_parser("rules", help="rules queries: variants, perft, moves, replay")
    rsub = rules.add_subparsers(dest="rules_cmd", required=True, parser_class=Parser)
    rsub.add_parser("variants", help="list the preset rule sets").set_defaults(func=cmd_variants)

    def position_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("variant", help="variant id (see `rules variants`)")
        p.add_argument("--position", help="OTN position (first record = rank 1)")
        p.add_argument("--turn", choices=(ATTACKERS, DEFENDERS), help="side to move")

    p = rsub.add_parser("perft", help="leaf count of the legal-move tree")
    position_args(p)
    p.add_argument("depth", type=int)
    p.set_defaults(func=cmd_perft)
    p = rsub.add_parser("moves", help="legal moves with captures and results")
    position_args(p)
    p.set_defaults(func=cmd_moves)
    p = rsub.add_parser("replay", help="check game records (CSV, or an OpenTafl .otg file) "
                                       "against the rules")
    p.add_argument("variant", help="a preset, or opentafl for an .otg file's own rules")
    p.add_argument("file")
    p.set_defaults(func=cmd_replay_records)


#: The module that registers each command of the other subsystems (its ``register``), in the
#: order of the help. A command imports only its own module (``rules`` none of them): ``rules
#: moves`` answers without loading the daemon, the web server or the hardware drivers.
COMMAND_MODULES = {
    "replay": "companion.replay", "simulate": "companion.replay", "run": "companion.daemon_run",
    "hwtest": "companion.hwtest", "engine": "companion.engine.otep",
    "club": "companion.club.room_web", "club-key": "companion.club.room_web",
}


def _registrars(command: str | None = None) -> list[Callable[[Subcommands], None]]:
    """The ``register`` functions of the subsystems: only ``command``'s when it is one of
    theirs, none for ``rules``, every one otherwise (the help, an unknown command)."""
    if command == "rules":
        return []
    if command in COMMAND_MODULES:
        names = [COMMAND_MODULES[command]]
    else:
        names = list(dict.fromkeys(COMMAND_MODULES.values()))
    return [cast(Callable[[Subcommands], None], importlib.import_module(n).register)
            for n in names]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: the full one, or (``command``) one that knows only that command,
    which parses its arguments exactly as the full one does."""
    parser = Parser(
        prog="tafl-companion",
        description="Companion computer for a physical tafl board. Start with `tafl-companion "
        "run` (a simulated board on http://localhost:8080). Commands and the trace format: "
        "docs/interfaces.md.",
    )
    parser.add_argument("--version", action="version", version=f"tafl-companion {__version__}")
    # the subparsers make Parsers (ArgumentParsers): what every register() may rely on
    sub = cast(Subcommands, parser.add_subparsers(dest="cmd", required=True,
                                                  parser_class=Parser, metavar="COMMAND"))
    _register_rules(sub)
    for register in _registrars(command):
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args_in = sys.argv[1:] if argv is None else argv
    try:
        # a command given first needs only its own module (the help and errors need them all)
        parser = build_parser(args_in[0] if args_in else None)
        if not args_in:
            parser.print_help()  # no command: say what there is, exit 0
            return 0
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except UsageError as exc:
        msg = str(exc)
        if not msg.startswith("tafl-companion"):
            msg = f"tafl-companion: {msg}"
        print(msg, file=sys.stderr)
        return 2
    except (ValueError, KeyError) as exc:  # PositionError, MoveError, unknown variant, ...
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"tafl-companion: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
