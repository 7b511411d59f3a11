"""``tafl-companion run``: the daemon's lifecycle and its scan loop.

The daemon opens the board and the LEDs, binds the web port, opens the store, hands everything
to a :class:`~companion.session.GameSession` (the one owner of the game) and serves the page.
Its loop is thin: one iteration asks the session to read the board and decide
(``session.step``), shows the session's LED frame, and pings the systemd watchdog, only when the
iteration completed (so systemd restarts a loop that is stuck failing).

Start-up fails with one clear line and exit status 2, before anything is written, on a bad
option, a port in use, or a data directory or store that cannot be used.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import ConfigError, DaemonConfig, load_config, with_overrides
from companion.drivers.base import BoardSource, LedSink, capabilities
from companion.drivers.sim import ReplayBoard
from companion.notify import Notifier
from companion.online.player import OnlinePlayer
from companion.online.service import OnlineService, open_online
from companion.qr import print_startup
from companion.rules import PRESETS
from companion.rules.game import Game
from companion.session import GameSession, SessionDefaults
from companion.session.clock import TimeControl
from companion.session.players import (
    MACHINE_NAMES,
    PlayerError,
    PlayerKind,
    PlayerSpec,
    check_move_player,
)
from companion.session.remote import RemotePlayer
from companion.session.settings import GameSettings
from companion.store import Store
from companion.tracker import Tracker
from companion.web.hub import StateHub

if TYPE_CHECKING:
    from companion.club.service import ClubService
    from companion.panel import Panel
    from companion.voice import Voice
    from companion.web.server import WebServer

log = logging.getLogger("companion.daemon")

DB_NAME = "games.sqlite3"
DEFAULT_NAMES = DaemonConfig().names  # a side nobody named: "Player 1", "Player 2"
ALL_INTERFACES = ("0.0.0.0", "::", "")
FIRST_SCAN_WAIT = 2.0  # start() returns once the loop read the board once (at most this long)


def defaults_from(cfg: DaemonConfig, keep_variant: bool = False) -> SessionDefaults:
    """The session's defaults for new games from the config (and command line)."""
    try:
        settings = GameSettings.make(cfg.variant, dict(cfg.rules), "[rules] ")
        players = {
            side: PlayerSpec.parse(kind, name, f"--{side}")
            for side, kind, name in zip(("attackers", "defenders"), cfg.players, cfg.names)
        }
        for side, spec in players.items():  # `--defenders computer` is "Computer", as on the
            if spec.kind in MACHINE_NAMES and spec.name in DEFAULT_NAMES:  # page (issue 21)
                players[side] = replace(spec, name=MACHINE_NAMES[spec.kind])
        for side, spec in players.items():
            check_move_player(spec, side)
            if spec.kind is PlayerKind.CLUB and spec.name in DaemonConfig.names:
                players[side] = spec.named(spec.peer or spec.name)  # called by its board
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if all(spec.is_remote for spec in players.values()):
        raise ConfigError("--attackers and --defenders: at most one side plays at a distance "
                          "(online, club); the other is played at this board")
    return SessionDefaults(settings, TimeControl.parse(cfg.time_control), players,
                           cfg.tie_break, cfg.match, keep_variant, cfg.raichi, cfg.computer)


def checks_pieces(board: BoardSource) -> bool:
    """Whether the players check the pieces' kinds at natural moments (the tracker's
    ``check_pieces``): on a real board whose sensors cannot tell attackers from defenders (reed
    switches, Hall sensors without polarity); not on polarity boards (the tracker checks every
    scan), the simulated board (the program sets its pieces up) or a replayed trace."""
    caps = capabilities(board)
    if caps.clickable is not None or caps.timed is not None:
        return False
    return getattr(board, "sensors", "switch") != "polarity"


#: Makes the player at a distance for a ``run`` player spec (``online``, ``club:BOARD``). The
#: daemon registers one per kind in :attr:`Daemon.remote_players` when it starts that kind's
#: client: the club's ``ClubService.player(BOARD)``, the online client's player.
RemoteFactory = Callable[[PlayerSpec], RemotePlayer]


class _LateApp:
    """The WSGI app, set once the session is open (the port is bound before that, so a port in
    use is found before anything is written); until then every request gets a 503."""

    def __init__(self) -> None:
        self.app: Callable[..., Iterable[bytes]] | None = None

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., object]) -> Iterable[bytes]:
        if self.app is None:
            start_response("503 Service Unavailable", [("Content-Type", "application/json")])
            return [b'{"error": "starting"}']
        return self.app(environ, start_response)


class Daemon:
    """The running companion. ``start()`` opens everything and returns; ``stop()`` closes it."""

    def __init__(
        self, cfg: DaemonConfig, *, board: BoardSource | None = None,
        leds: LedSink | None = None, keep_variant: bool = False,
        tracker_factory: Callable[[Game], Tracker] | None = None,
        remote_players: Mapping[PlayerKind, RemoteFactory] | None = None,
    ) -> None:
        self.cfg = cfg
        # kind -> factory of the players at a distance (filled as the clients start)
        self.remote_players: dict[PlayerKind, RemoteFactory] = dict(remote_players or {})
        self.pin = cfg.pin or ""  # a generated code is read or made in start() (web.auth)
        self.pin_generated = cfg.pin is None
        self.pin_path: Path | None = None
        self.hub = StateHub()
        self.board = board
        self.leds = leds
        self.defaults = defaults_from(cfg, keep_variant)
        self._tracker_factory = tracker_factory
        self._stop = threading.Event()
        self._first_scan = threading.Event()
        self._threads: list[threading.Thread] = []
        self.notifier = Notifier()
        self.server: WebServer | None = None
        self.store: Store | None = None
        self.session: GameSession | None = None
        self.online: OnlineService | None = None
        self.panel: Panel | None = None  # the board's buttons and display (companion.panel)
        self.voice: Voice | None = None  # the talking board (companion.voice)
        self.club: ClubService | None = None  # the club's broker (companion.club), if any
        self.loop_errors = 0
        self.iterations = 0
        self.resting = False  #: scanning at the rest rate (board.idle_hz), nobody playing

    # -- start and stop ------------------------------------------------------------------------
    def start(self) -> None:
        """Bind the port, open the board, the LEDs and the store, resume or start a game, serve
        the page, run the loop. ConfigError (nothing written) when any of it cannot be used."""
        cfg = self.cfg
        app = _LateApp()
        self.server = self._bind(app)  # a port in use fails here, before the store is touched
        try:
            if self.board is None:
                from companion.hardware_drivers import open_board

                self.board = open_board(cfg.board)
            if self.leds is None:
                from companion.hardware_drivers import open_leds

                self.leds = open_leds(cfg.leds, self.board)
            self.store = Store(Path(cfg.data_dir) / DB_NAME, reset=cfg.reset_store,
                               log=log.warning)
            # a board whose sensors cannot tell the pieces' kinds: the players are asked to check
            self.defaults = replace(self.defaults, check_pieces=checks_pieces(self.board))
            self.session = GameSession(self.store, self.board, defaults=self.defaults,
                                       announce=self.hub.publish,
                                       tracker_factory=self._tracker_factory)
            self.session.press_to_end = cfg.buttons.press_to_end_move  # the clock button
            self.session.open()
            from companion.panel import build_panel

            self.panel = build_panel(cfg, self.session, self.hub, self.board, self.port)
        except BaseException:
            if self.session is not None:
                self.session.close()
            self.server.close()
            self._close_devices()
            if self.store is not None:
                self.store.close()
            raise
        from companion.web import auth, create_app

        if self.pin_generated:  # kept in the data dir, so that it survives restarts
            self.pin, self.pin_path = auth.owner_code(Path(cfg.data_dir))
        self.online = open_online(cfg.online, Path(cfg.data_dir))  # companion.online
        online_player = OnlinePlayer(self.online)

        def own_online(spec: PlayerSpec) -> RemotePlayer:
            return online_player

        # the online client's player, unless the caller brought its own (tests)
        own = self.remote_players.setdefault(PlayerKind.ONLINE, own_online) is own_online
        flask_app = create_app(self.session, self.hub, self.pin, cfg.host,
                               secret=auth.token_secret(Path(cfg.data_dir)), online=self.online)
        if self.panel is not None:
            from companion.panel.web import blueprint

            flask_app.register_blueprint(blueprint(self.panel))  # POST /api/button
        self.voice = self._voice()
        if self.voice is not None:
            from companion.voice.web import blueprint as voice_routes

            flask_app.register_blueprint(voice_routes(self.voice))  # POST /api/voice
        app.app = flask_app
        self._start_club(app)
        try:
            self._attach_remote_players()
            if own:  # always attached: a game opened or joined on the page starts here
                self.session.attach_remote(online_player)
        except BaseException:
            self.stop()
            raise
        self.server.start()
        t = threading.Thread(target=self._loop, name="scan-loop", daemon=True)
        t.start()
        self._threads.append(t)
        if self.panel is not None:
            self.panel.start()  # its presses and text go through the loop thread
        if self.voice is not None:
            self.voice.start()  # it follows the published state on its own threads
        # ready once the board was read once: the first state anyone sees shows the board
        self._first_scan.wait(FIRST_SCAN_WAIT)

    def _voice(self) -> Voice | None:
        """The voice of ``[voice]`` / ``--voice`` (None when it is off), fed by the hub."""
        cfg, session = self.cfg, self.session
        if not cfg.voice.on or session is None:
            return None
        from companion.panel import page_address
        from companion.voice import Voice, engine_for

        voice = Voice(engine_for(cfg.voice.engine), session.state, session.set_voice,
                      lang=cfg.voice.language or cfg.display.language,
                      url=page_address(cfg.host, self.port))
        self.hub.subscribe(voice.wake)
        return voice

    def _start_club(self, app: _LateApp) -> None:
        """Publish this board's game on the club's broker ([club] in the config)."""
        if self.cfg.club is None:
            return
        from flask import Flask

        from companion.club.board_routes import blueprint
        from companion.club.service import ClubService

        self.club = ClubService(self.cfg.club, Path(self.cfg.data_dir))
        if isinstance(app.app, Flask):
            app.app.register_blueprint(blueprint(self.club))  # /api/club/status, /accept
        self.club.attach(self.hub)
        self.club.start()
        club = self.club
        # the session's one club player is every other board (club:BOARD names the board)
        self.remote_players.setdefault(PlayerKind.CLUB, lambda spec: club.player(spec.peer or ""))

    def _attach_remote_players(self) -> None:
        """Hand the session the players at a distance of the ``run`` players (``online``,
        ``club:BOARD``): the game stored with one goes on, a new one is proposed to it."""
        assert self.session is not None
        kinds = {spec.kind for spec in self.defaults.players.values() if spec.is_remote}
        if self.club is not None and PlayerKind.CLUB not in kinds:
            # a board of a club always hears the other boards: their proposals, a game
            # chosen on the page, a stored game with one of them
            self.session.attach_remote(self.club.opponents)
        for spec in self.defaults.players.values():
            if not spec.is_remote:
                continue
            make = self.remote_players.get(spec.kind)
            if make is None:
                raise ConfigError(f"{spec.spec}: playing {spec.kind.value} needs the "
                                  f"[{spec.kind.value}] settings in the config")
            try:
                player = make(spec)
            except ValueError as exc:
                raise ConfigError(f"{spec.spec}: {exc}") from None
            self.session.attach_remote(player)

    def _bind(self, app: _LateApp) -> WebServer:
        from companion.web.auth import HostCheck
        from companion.web.server import WebServer

        cfg = self.cfg
        try:
            return WebServer(app, self.hub, cfg.host, cfg.port,
                             allow_host=HostCheck(cfg.allowed_hosts, cfg.host).allows)
        except OSError as exc:
            hint = ""
            if exc.errno == errno.EADDRINUSE:  # what to do about it (issue 21)
                hint = (f"; another program (or another tafl-companion) uses port {cfg.port}: "
                        "stop it, or choose another port with --port N (config: [web] port)")
            raise ConfigError(f"cannot listen on {cfg.host}:{cfg.port}: "
                              f"{exc.strerror or exc}{hint}") from None

    @property
    def port(self) -> int:
        """The port actually listened on (``--port 0`` picks a free one)."""
        assert self.server is not None
        return int(self.server.port)

    @property
    def url(self) -> str:
        host = self.cfg.host if self.cfg.host not in ALL_INTERFACES else "localhost"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        """Stop the loop and the web server, turn the LEDs off, close the store."""
        if self.panel is not None:  # first: its thread may be waiting for the loop to answer
            self.panel.close()
        if self.voice is not None:  # likewise (it tells the loop what it said)
            self.voice.close()
        self._stop.set()
        self.hub.close()
        if self.server is not None:
            self.server.close()
        for t in self._threads:
            t.join(timeout=5)
        if self.online is not None:
            self.online.close()   # a clean close frees the account on the server at once
        if self.session is not None:
            self.session.close()  # the loop has stopped: waiting controls get a 503
        if self.club is not None:
            self.club.close()
        self._close_devices()
        if self.store is not None:
            self.store.close()
        self.notifier.close()

    def _close_devices(self) -> None:
        if self.panel is not None:
            with contextlib.suppress(Exception):
                self.panel.close()
        for thing in (self.leds, self.board):
            with contextlib.suppress(Exception):
                if thing is not None:
                    thing.close()

    # -- the scan loop -------------------------------------------------------------------------
    def _loop(self) -> None:
        session = self.session
        assert session is not None and self.leds is not None
        board_cfg = self.cfg.board
        period = 1.0 / (session.caps.scan_hz or board_cfg.scan_hz)
        # At rest the board is scanned more slowly (issue 31): after ``idle_after`` seconds in
        # which no scan changed anything and no command came. A replayed trace keeps its rate.
        rest_period = max(period, 1.0 / board_cfg.idle_hz)
        rest_after = board_cfg.idle_after if not isinstance(self.board, ReplayBoard) else 0.0
        next_t = time.monotonic()
        last_error = -1e9
        active_at = next_t
        version = -1
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                backlog = self.step(now)
            except Exception:  # the loop survives anything; the watchdog sees it stuck
                self.loop_errors += 1
                if now - last_error > 10:
                    log.exception("scan loop error (the loop goes on)")
                last_error = now
                backlog = False
            else:
                self.iterations += 1
                self._first_scan.set()
                self.notifier.ping(now)  # only a completed iteration feeds the watchdog
            published = session.snapshot.version
            if published != version:  # a scan or a command changed the state
                version, active_at = published, now
            if backlog:
                continue
            resting = rest_after > 0 and now - active_at >= rest_after
            self.resting = resting
            next_t += rest_period if resting else period
            if next_t < now - period:  # fell behind (slow SD card, suspend): do not race
                next_t = now + period
            # one wakeup per scan, no more, unless a command comes first: it is applied at
            # once, but the board is never read at more than twice its rate (a flood of
            # controls does not shorten the sensors' debounce)
            if session.commands.wait(next_t - time.monotonic()):
                soonest = now + period / 2
                woken = time.monotonic()
                if woken < soonest:
                    time.sleep(soonest - woken)
                active_at = next_t = max(woken, soonest)

    def step(self, now: float | None = None) -> bool:
        """One loop iteration; True if the board has more scans already due."""
        session = self.session
        assert session is not None and self.leds is not None
        now = time.monotonic() if now is None else now
        backlog = session.step(now)
        self.leds.show(session.leds, now)
        return backlog


# -- the command ---------------------------------------------------------------------------------


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
        return Daemon(cfg, board=replay, keep_variant=args.variant is not None)
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
    try:
        while not signals:
            time.sleep(0.2)  # stops at most 0.2 s after the signal
    finally:
        daemon.notifier.notify("STOPPING=1")
        daemon.stop()
        log.info("stopped")
    return 0


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
