"""``tafl-companion run``: the daemon that wires board, tracker, game, store, LEDs and web page.

One scan-loop thread reads the board at its scan rate, feeds changed scans to the tracker (and
ticks it otherwise), stores every accepted move in SQLite *before* it is shown anywhere, drives
the LEDs, publishes the page state to the Server-Sent-Events hub and pings the systemd watchdog.
The web server (``companion.web.server``) runs in its own threads; its controls act on the game
under the same lock as the loop.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.config import ConfigError, DaemonConfig, load_config, with_overrides
from companion.drivers.sim import ReplayBoard, SimBoard
from companion.feedback import with_role
from companion.messages import event_text
from companion.notify import Notifier
from companion.qr import print_startup
from companion.rules import PRESETS, get_variant, other
from companion.rules.board import REASON_TEXT, MoveError
from companion.rules.game import Game
from companion.rules.threats import threat_json
from companion.store import Store, StoreError
from companion.tracker.events import ProposalError, apply_proposal
from companion.web.hub import StateHub

log = logging.getLogger("companion.daemon")

SIDES = ("attackers", "defenders")
DB_NAME = "games.sqlite3"


class ControlError(Exception):
    """A control request that cannot be done now; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# -- the daemon ----------------------------------------------------------------------------------


def _default_tracker_factory(game: Game) -> Any:
    from companion.tracker import Tracker

    return Tracker(game)


class Daemon:
    """The running companion. ``start()`` opens everything and returns; ``stop()`` closes it."""

    def __init__(
        self,
        cfg: DaemonConfig,
        *,
        board: Any = None,
        leds: Any = None,
        keep_variant: bool = False,
        tracker_factory: Any = None,
    ) -> None:
        self.cfg = cfg
        self.pin = cfg.pin or f"{secrets.randbelow(10000):04d}"
        self.pin_generated = cfg.pin is None
        self.hub = StateHub()
        self.lock = threading.RLock()
        self.board = board
        self.leds = leds
        self.keep_variant = keep_variant
        self._tracker_factory = tracker_factory or _default_tracker_factory
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.notifier = Notifier()
        self.server: Any = None
        self.store: Store | None = None
        self.game: Game | None = None
        self.tracker: Any = None
        self.gid = 0
        self.players = ("Player 1", "Player 2")
        self.draw_offer: str | None = None
        self.note = ""  # the daemon's own message (resignation, draw, ...)
        self.accepted_at: float | None = None  # wall time of the last accepted move
        self._occupied: frozenset[str] | None = None
        self._fed: tuple | None = None
        self._resync = True
        self._dirty = True
        self._last_leds: dict = {}
        self._last_msg: str | None = None
        self._last_tracking = ""
        self._status: dict = {}
        self._status_at = -1e9
        self._game_json: dict = {}
        self.loop_errors = 0
        self._unsynced = False
        self._board_error_at = -1e9

    # -- start and stop ------------------------------------------------------------------------

    def start(self) -> None:
        """Open the store, resume or start a game, open the board, serve the page, run the loop."""
        cfg = self.cfg
        if self.board is None:
            from companion.hardware_config import open_board

            self.board = open_board(cfg.board)
        if self.leds is None:
            from companion.hardware_config import open_leds

            self.leds = open_leds(cfg.leds, self.board)
        self.store = Store(Path(cfg.data_dir) / DB_NAME)
        self._open_game()
        self.tracker = self._tracker_factory(self.game)
        self._publish(time.monotonic(), force=True)
        self._serve()
        t = threading.Thread(target=self._loop, name="scan-loop", daemon=True)
        t.start()
        self._threads.append(t)

    def _open_game(self) -> None:
        store = self.store
        assert store is not None
        row = store.unfinished()
        size = self.board.size
        sim = isinstance(self.board, SimBoard)
        game = None
        if row is not None:
            fits = PRESETS[row.variant].size == size or sim
            if row.variant == self.cfg.variant or (fits and not self.keep_variant):
                try:
                    game = store.load_game(row.id)
                except StoreError as exc:
                    log.warning("cannot resume game %d (%s); starting a new one", row.id, exc)
                else:
                    self.gid, self.players = row.id, (row.attackers, row.defenders)
                    log.info("resuming game %d (%s) after %d moves", row.id, row.variant,
                             len(game.played))
            if game is None:
                store.abandon(row.id)
        if game is None:
            latest = store.latest()
            if latest is not None:
                self.players = (latest.attackers, latest.defenders)
            game = Game(get_variant(self.cfg.variant))
            self.gid = store.new_game(game, self.players)
            log.info("new game %d: %s", self.gid, game.rules.name)
        self.game = game
        self._stored = (tuple(game.moves), game.result)
        if sim:
            self.board.resize(game.rules.size, game.board.occupied_names())

    def _serve(self) -> None:
        from companion.web import create_app
        from companion.web.auth import HostCheck
        from companion.web.server import WebServer

        app = create_app(self)
        try:
            self.server = WebServer(app, self.hub, self.cfg.host, self.cfg.port,
                                    allow_host=HostCheck(self.cfg.allowed_hosts,
                                                         self.cfg.host).allows)
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {self.cfg.host}:{self.cfg.port}: {exc.strerror or exc}"
            ) from None
        self.server.start()

    @property
    def port(self) -> int:
        """The port actually listened on (``--port 0`` picks a free one)."""
        return int(self.server.port)

    @property
    def url(self) -> str:
        host = self.cfg.host if self.cfg.host not in ("0.0.0.0", "::") else "localhost"
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        """Stop the loop and the web server, turn the LEDs off, close the store."""
        self._stop.set()
        self.hub.close()
        if self.server is not None:
            self.server.close()
        for t in self._threads:
            t.join(timeout=5)
        with self.lock:
            for thing in (self.leds, self.board):
                with contextlib.suppress(Exception):
                    if thing is not None:
                        thing.close()
            if self.store is not None:
                self.store.close()
        self.notifier.close()

    def _changed(self) -> None:
        """A control changed the game: publish the new state before answering."""
        with self.lock:
            self._dirty = True
            self._step_now()  # reads the board (a new sim set-up) and publishes

    # -- the scan loop -------------------------------------------------------------------------

    def _loop(self) -> None:
        period = 1.0 / float(getattr(self.board, "scan_hz", None) or self.cfg.board.scan_hz)
        next_t = time.monotonic()
        last_error = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                backlog = self.step(now)
            except Exception:  # the loop must survive anything; the watchdog watches it
                self.loop_errors += 1
                if now - last_error > 10:
                    log.exception("scan loop error (the loop goes on)")
                last_error = now
                backlog = False
            self.notifier.ping(now)
            if backlog:
                continue
            next_t += period
            if next_t < now - period:  # fell behind (slow SD card, suspend): do not race
                next_t = now + period
            time.sleep(max(0.0, next_t - time.monotonic()))  # one wakeup per scan, no more

    def step(self, now: float | None = None) -> bool:
        """One loop iteration (``now`` defaults to the clock, read under the lock); True if the
        board has more scans already due."""
        with self.lock:
            if now is None:
                now = time.monotonic()
            try:
                scan = self.board.scan(now)
            except Exception as exc:
                if now - self._board_error_at > 10:
                    log.warning("board read failed: %s", exc)
                    self._board_error_at = now
                scan = None
            events: list = []
            if scan is not None:
                self._occupied = scan.occupied
                if self._resync:
                    self._resync = False
                    self._fed = None
                    if scan.occupied != self.game.board.occupied_names():
                        log.info("the board differs from the game position: guiding the set-up")
                        events += self.tracker.reset(self.game, scan.t)
                # colours count as a change: on polarity boards two swapped pieces change
                # colour without changing occupancy, and the tracker must see that
                reading = (scan.occupied, tuple(sorted((scan.colours or {}).items())))
                if reading != self._fed:
                    self._fed = reading
                    events += self.tracker.feed(scan)
                else:
                    events += self.tracker.tick(scan.t)
            else:
                bt = getattr(self.board, "board_time", None)
                events += self.tracker.tick(bt(now) if bt else now)
            if events:
                self._handle(events)
            elif self._unsynced:
                self._sync([])
            self.leds.show(self._led_frame(), now)
            self._publish(now)
        return bool(getattr(self.board, "due", False))

    def _handle(self, events: list) -> None:
        """Apply the tracker's proposals to the game, then store what changed (one
        transaction) before anything announces it."""
        for e in events:
            try:
                apply_proposal(self.game, e)
            except ProposalError as exc:  # the tracker's model differs: resync it
                log.warning("game %d: tracker proposal refused (%s); resyncing", self.gid, exc)
                self._resync = True
        stored = [e for e in events if e.kind != "leds"]
        if any(e.kind in ("move", "revised") for e in stored):
            self.accepted_at = time.time()
            self.draw_offer = None
            self.note = ""
        self._sync(stored)
        for e in stored:  # logged once stored: a logged move is never lost
            log.info("game %d: %s", self.gid, event_text(e))

    def _sync(self, events: list, kind_data: tuple[str, dict] | None = None) -> None:
        game = self.game
        now_key = (tuple(game.moves), game.result)
        if now_key != self._stored or events or kind_data:
            rows = [(e.kind, e.to_json()) for e in events]
            if kind_data:
                rows.append(kind_data)
            self._unsynced = True  # until the write succeeds (a full disk: retried every scan)
            self.store.sync_game(self.gid, game, rows)
            self._unsynced = False
            self._stored = now_key
            self._dirty = True

    # -- state for the page ----------------------------------------------------------------------

    def _publish(self, now: float, force: bool = False) -> None:
        tracker = self.tracker
        msg = tracker.message if tracker is not None else ""
        tracking = str(getattr(tracker, "state", "")) if tracker is not None else ""
        if now - self._status_at > 0.5 or force:
            self._status_at = now
            try:
                status = dict(self.board.status())
            except Exception as exc:
                status = {"kind": getattr(self.board, "kind", "?"), "connected": False,
                          "detail": f"status failed: {exc}"}
            if status != self._status:
                self._status = status
                self._dirty = True
        refresh = self._dirty or force
        if refresh:
            self._dirty = False
            self._game_json = self._game_state()
        leds = self._led_frame() if tracker is not None else {}
        if not refresh and (leds == self._last_leds and msg == self._last_msg
                            and tracking == self._last_tracking and not self._occ_changed()):
            return
        self._last_leds, self._last_msg, self._last_tracking = leds, msg, tracking
        self._published_occ = self._occupied
        self.hub.publish({
            **self._game_json, "leds": leds, "message": msg or self._default_message(),
            "guidance": _guidance(tracker),
            "tracking": tracking,
            "occupied": sorted(self._occupied or ()),
            "board": {k: self._status.get(k) for k in ("kind", "connected", "detail")},
        })

    _published_occ: frozenset[str] | None = None

    def _led_frame(self) -> dict:
        """The tracker's LED frame, plus the raichi role on the escape squares the king has a
        free line to (``raichi = false`` in the config turns that off)."""
        frame = dict(self.tracker.leds)
        threat = self._game_json.get("threat") if self.cfg.raichi else None
        if threat:
            frame = with_role(frame, threat["squares"], "raichi")
        return frame

    def _occ_changed(self) -> bool:
        return self._occupied is not self._published_occ

    def _game_state(self) -> dict:
        game = self.game
        board = game.board
        outcome = game.outcome()
        geo = board.geo
        last = game.played[-1] if game.played else None
        return {
            "game": self.gid,
            "variant": game.rules.id,
            "variant_name": game.rules.name,
            "size": game.rules.size,
            "first": game.start_turn,
            "turn": game.turn,
            "moves": game.moves,
            "result": outcome.result if outcome else "ongoing",
            "reason": REASON_TEXT.get(outcome.reason, outcome.reason) if outcome else "",
            "position": board.otn(),
            "last": {"from": last.frm, "to": last.to, "captured": list(last.captured),
                     "side": last.side, "text": last.text} if last else None,
            "captures": {s: game.captures(s) for s in SIDES},
            "players": dict(zip(SIDES, self.players)),
            "draw_offer": self.draw_offer,
            "throne": geo.names[geo.throne] if geo.throne >= 0 else None,
            "corners": [geo.names[s] for s in geo.iter_bits(geo.corner)],
            "note": self.note,
            "accepted_at": self.accepted_at,
            "threat": threat_json(board),
        }

    def _default_message(self) -> str:
        game = self.game
        if self.note:
            return self.note
        outcome = game.outcome()
        if outcome:
            why = REASON_TEXT.get(outcome.reason, outcome.reason)
            return f"Draw: {why}." if outcome.winner is None else (
                f"{outcome.winner.capitalize()} win: {why}.")
        return f"{game.turn.capitalize()} to move."

    def state_text(self) -> str:
        """The current page state as JSON text (what /api/state returns)."""
        return self.hub.current()[1]

    # -- controls (called by the web app, PIN already checked) ------------------------------------

    def click(self, square: str) -> bool:
        """Simulated board only: lift the piece on ``square`` or put one there."""
        if not isinstance(self.board, SimBoard):
            raise ControlError(409, f"the board is a real board ({self.board.kind}): move the "
                                    "pieces by hand")
        try:
            on = self.board.toggle(square)
        except ValueError as exc:
            raise ControlError(400, str(exc)) from None
        self._step_now()  # the tracker sees it now, not at the next scan
        return on

    def _step_now(self) -> None:
        """A scan-loop iteration from a web thread; a failure is left to the loop to retry."""
        try:
            self.step()
        except Exception:
            self.loop_errors += 1
            log.exception("processing the board after a control failed (the loop retries)")

    def new_game(self, variant: str | None = None) -> int:
        """Start a new game (the current one is closed); the sim board is set up for it."""
        variant = variant or self.game.rules.id
        if variant not in PRESETS:
            raise ControlError(400, f"unknown variant {variant!r}")
        rules = get_variant(variant)
        sim = isinstance(self.board, SimBoard)
        if not sim and rules.size != self.board.size:
            raise ControlError(409, f"{rules.name} is played on {rules.size}x{rules.size}; this "
                                    f"board is {self.board.size}x{self.board.size}")
        with self.lock:
            if not self.game.is_over():
                self.store.abandon(self.gid)
            game = Game(rules)
            self.gid = self.store.new_game(game, self.players)
            self.game = game
            self._stored = (tuple(game.moves), game.result)
            self.draw_offer, self.note = None, ""
            if sim:
                self.board.resize(rules.size, game.board.occupied_names())
            self._reset_tracker()
            log.info("new game %d: %s", self.gid, rules.name)
        self._changed()
        return self.gid

    def _reset_tracker(self) -> None:
        """Re-sync the tracker with the game (it guides the set-up until the board matches)."""
        events = self.tracker.reset(self.game, self._tracker_time())
        self._resync = False
        self._fed = None
        self._dirty = True
        if events:
            self._handle(events)

    def _tracker_time(self) -> float:
        bt = getattr(self.board, "board_time", None)
        return bt(time.monotonic()) if bt else time.monotonic()

    def takeback(self) -> str:
        """Take back the last move; the tracker guides the pieces back."""
        with self.lock:
            if not self.game.played:
                raise ControlError(409, "there is no move to take back")
            undone = self.game.undo()
            self.draw_offer, self.note = None, f"Took back {undone.text}."
            self._sync([], ("takeback", {"move": undone.text, "by": "page"}))
            self._reset_tracker()
        self._changed()
        return undone.text

    def draw(self, action: str, side: str) -> None:
        """``offer``/``accept``/``decline`` a draw on behalf of ``side``."""
        if side not in SIDES:
            raise ControlError(400, "side must be attackers or defenders")
        with self.lock:
            if self.game.is_over():
                raise ControlError(409, "the game is over")
            if action == "offer":
                self.draw_offer = side
                self.note = f"{side.capitalize()} offer a draw."
            elif action in ("accept", "decline"):
                if self.draw_offer is None or self.draw_offer == side:
                    raise ControlError(409, f"there is no draw offer for the {side} to {action}")
                if action == "accept":
                    self.game.agree_draw()
                    self.note = "Draw agreed."
                else:
                    self.note = f"{side.capitalize()} decline the draw."
                self.draw_offer = None
            else:
                raise ControlError(400, "action must be offer, accept or decline")
            self._sync([], ("draw", {"action": action, "side": side}))
            if action == "accept":
                self._reset_tracker()
            self._dirty = True
        self._changed()

    def resign(self, side: str) -> None:
        if side not in SIDES:
            raise ControlError(400, "side must be attackers or defenders")
        with self.lock:
            try:
                self.game.resign(side)
            except MoveError as exc:
                raise ControlError(409, str(exc)) from None
            self.draw_offer = None
            self.note = f"{side.capitalize()} resigned: {other(side)} win."
            self._sync([], ("resign", {"side": side}))
            self._reset_tracker()
        self._changed()

    def swap(self) -> dict:
        """The two players change sides (names swap between attackers and defenders)."""
        with self.lock:
            self.players = (self.players[1], self.players[0])
            self.store.set_players(self.gid, *self.players)
            self._dirty = True
        self._changed()
        return dict(zip(SIDES, self.players))


# -- the command ---------------------------------------------------------------------------------


def _guidance(tracker: Any) -> dict | None:
    """The tracker's structured guidance (docs/events.md) for the page, which words it in the
    viewer's language."""
    guidance = getattr(tracker, "guidance", None)
    return guidance.to_json() if guidance is not None else None


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
                         pin=args.pin, board_kind=kind)
    if replay is not None:
        size = PRESETS[cfg.variant].size
        if replay.size != size:
            raise ConfigError(f"--board {board_opt}: the trace is {replay.size}x{replay.size} "
                              f"but {cfg.variant} is played on {size}x{size}")
        cfg = replace(cfg, board=replace(cfg.board, scan_hz=replay.scan_hz))
    return Daemon(cfg, board=replay, keep_variant=args.variant is not None)


def cmd_run(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT."""
    _setup_logging()
    daemon = build(args)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    daemon.start()
    log.info("tafl-companion on %s (board: %s, data: %s)", daemon.url, daemon.board.kind,
             daemon.cfg.data_dir)
    print_startup(daemon.cfg.host, daemon.port)  # the links and a QR code for phones
    if daemon.pin_generated:
        log.info("controls PIN: %s (set pin in the config file to choose one)", daemon.pin)
        log.info("open %s#pin=%s to play with the controls unlocked", daemon.url, daemon.pin)
    daemon.notifier.notify(f"READY=1\nSTATUS=serving {daemon.url}")
    try:
        while not stop.wait(1.0):
            pass
    finally:
        daemon.notifier.notify("STOPPING=1")
        daemon.stop()
        log.info("stopped")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run`` to the command line (options as in docs/interfaces.md)."""
    p = sub.add_parser("run", help="run the companion: board, LEDs, game store, phone page")
    p.add_argument("--config", help="TOML config file (see docs/raspberry-pi.md)")
    p.add_argument("--board", help="sim | gpio | serial | replay:TRACE.jsonl")
    p.add_argument("--speed", type=float, default=1.0, help="replay speed factor (default 1)")
    p.add_argument("--variant", help="variant id for new games (see `rules variants`)")
    p.add_argument("--port", type=int, help="web port (default 8080)")
    p.add_argument("--data-dir", help="where the game store lives")
    p.add_argument("--pin", help="PIN for the page's controls (default: generated)")
    p.set_defaults(func=cmd_run)
