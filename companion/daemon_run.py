"""``tafl-companion run``: the command line of the daemon (companion.daemon): its options, the
Daemon they make, and running it until SIGTERM/SIGINT.

Start-up fails with one clear line and exit status 2, before anything is written, on a bad
option, a port in use, a data directory that another daemon holds (one daemon per data
directory: companion.store_lock), or a data directory or store that cannot be used.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import time
from dataclasses import replace

from companion.config import ConfigError, load_config, with_overrides
from companion.daemon import ALL_INTERFACES, Daemon
from companion.drivers.sim import ReplayBoard
from companion.qr import print_startup
from companion.rules import PRESETS
from companion.session.players import PlayerError

log = logging.getLogger("companion.daemon")


def _setup_logging() -> None:
    root = logging.getLogger()
    if root.handlers:
        return
    journal = bool(os.environ.get("JOURNAL_STREAM"))
    fmt = "%(levelname)s %(name)s: %(message)s" if journal else (
        "%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter(fmt))
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def build(args: argparse.Namespace) -> Daemon:
    """The Daemon for the ``run`` options (not started). ConfigError on bad input."""
    cfg = load_config(args.config)
    board_opt = args.board
    replay = None
    kind = None
    if board_opt and board_opt.startswith("replay:"):
        try:
            replay = ReplayBoard(board_opt[len("replay:"):], args.speed)
        except ValueError as exc:  # TraceError, a bad --speed
            raise ConfigError(f"--board {board_opt}: {exc}") from None
    elif board_opt:
        kind = board_opt
    elif args.speed != 1.0:
        raise ConfigError("--speed only applies to --board replay:TRACE.jsonl")
    variant = args.variant
    if replay is not None and variant is None:
        variant = replay.variant if replay.variant in PRESETS else None
    if replay is not None:
        cfg = replace(cfg, board=replace(cfg.board, kind="sim"))
    cfg = with_overrides(cfg, variant=variant, port=args.port, data_dir=args.data_dir,
                         pin=args.pin, board_kind=kind, host=args.host,
                         attackers=args.attackers, defenders=args.defenders,
                         time_control=args.time_control, rules=args.rule,
                         match=True if args.match else None,
                         reset_store=True if args.reset_store else None,
                         voice=args.voice)
    if replay is not None:
        size = PRESETS[cfg.variant].size
        if replay.size != size:
            raise ConfigError(f"--board {board_opt}: the trace is {replay.size}x{replay.size} "
                              f"but {cfg.variant} is played on {size}x{size}")
        cfg = replace(cfg, board=replace(cfg.board, scan_hz=replay.scan_hz))
    try:
        return Daemon(cfg, board=replay)
    except PlayerError as exc:
        raise ConfigError(str(exc)) from None


def _where(daemon: Daemon) -> list[str]:
    host = daemon.cfg.host
    if host in ALL_INTERFACES:
        name = socket.gethostname()
        return [f"listening on all network interfaces ({host or '0.0.0.0'}:{daemon.port}): "
                f"phones on this network can open http://{name}.local:{daemon.port}/ or this "
                "machine's address; use --host 127.0.0.1 to keep the page on this computer"]
    return [f"listening on {host}:{daemon.port} only"]


def cmd_run(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT."""
    _setup_logging()
    daemon = build(args)
    # the handler runs in the main thread, between any two bytecodes of what it was doing: it
    # only notes the signal. (It used to set a threading.Event the main thread was waiting on:
    # a signal arriving inside Event.wait took the Event's lock again from the same thread and
    # the daemon never stopped, its scan loop still feeding the watchdog.)
    signals: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: signals.append(signum))
    daemon.start()
    assert daemon.board is not None
    log.info("tafl-companion on %s (board: %s, data: %s)", daemon.url, daemon.board.kind,
             daemon.cfg.data_dir)
    for line in _where(daemon):
        log.info("%s", line)
    print_startup(daemon.cfg.host, daemon.port)  # the links and a QR code for phones
    from companion.web.auth import announce

    # the code goes to an interactive terminal only, never to a log (docs/security.md)
    announce(daemon.url, daemon.pin, daemon.pin_path, generated=daemon.pin_generated)
    daemon.notifier.notify(f"READY=1\nSTATUS=serving {daemon.url}")
    ended = False
    try:
        while not signals:
            time.sleep(0.2)  # stops at most 0.2 s after the signal
    finally:
        daemon.notifier.notify("STOPPING=1")
        ended = daemon.stop()
        log.info("stopped" if ended else "stopped, the scan loop still stuck (see above)")
    return 0 if ended else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run`` to the command line (options as in docs/session.md and INTERFACES)."""
    p = sub.add_parser("run", help="run the companion: board, LEDs, game store, phone page")
    p.add_argument("--config", help="TOML config file (see docs/raspberry-pi.md)")
    p.add_argument("--board", help="sim | gpio | serial | replay:TRACE.jsonl")
    p.add_argument("--speed", type=float, default=1.0, help="replay speed factor (default 1)")
    p.add_argument("--variant", help="variant id for new games (see `rules variants`)")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface, so "
                                  "phones on the network can open the page)")
    p.add_argument("--port", type=int, help="web port (default 8080)")
    p.add_argument("--data-dir", help="where the game store lives")
    p.add_argument("--pin", help="PIN for the page's controls (default: generated)")
    p.add_argument("--attackers", metavar="PLAYER",
                   help="board | page | computer[:LEVEL] | engine:COMMAND (default board)")
    p.add_argument("--defenders", metavar="PLAYER", help="like --attackers")
    p.add_argument("--time-control", metavar="TC",
                   help="none | MAIN+INC (minutes + seconds, e.g. 5+3) | MAIN+INC/PxS")
    p.add_argument("--rule", action="append", metavar="NAME=VALUE",
                   help="a house rule, e.g. chain_capture=true, escape=edge (repeatable)")
    p.add_argument("--match", action="store_true",
                   help="start with a two-game match (sides swap for game 2)")
    p.add_argument("--voice", metavar="ENGINE",
                   help="espeak-ng (the board speaks) | page (the page speaks) | none "
                        "(default: [voice] engine, else none); docs/voice.md")
    p.add_argument("--reset-store", action="store_true",
                   help="if the store is damaged, move it aside (kept) and start a fresh one")
    p.set_defaults(func=cmd_run)
