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

import contextlib
import errno
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion.config import ConfigError, DaemonConfig
from companion.drivers.base import BoardSource, LedSink, capabilities
from companion.drivers.sim import ReplayBoard
from companion.notify import Notifier
from companion.online.player import OnlinePlayer
from companion.online.service import OnlineService, open_online
from companion.parts import PartStatus, PartsWatch, WaitingLeds
from companion.rules.game import Game
from companion.session import GameSession, SessionDefaults
from companion.session.clock import TimeControl
from companion.session.players import (
    MACHINE_NAMES,
    PlayerKind,
    PlayerSpec,
    check_move_player,
)
from companion.session.remote import RemotePlayer
from companion.session.settings import GameSettings
from companion.store import Store
from companion.store_lock import LOCK_NAME, DataDirLock
from companion.store_schema import check_data_dir
from companion.tracker import Tracker
from companion.web.hub import StateHub

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment  # PEP 3333's environ
    from flask import Blueprint, Flask

    from companion.club.service import ClubService
    from companion.panel import Panel
    from companion.voice import Voice
    from companion.web.server import WebServer

log = logging.getLogger("companion.daemon")

DB_NAME = "games.sqlite3"
DEFAULT_NAMES = DaemonConfig().names  # a side nobody named: "Player 1", "Player 2"
ALL_INTERFACES = ("0.0.0.0", "::", "")
FIRST_SCAN_WAIT = 2.0  # start() returns once the loop read the board once (at most this long)
#: stop() waits this long for the loop to end before it gives up on closing what the loop uses
#: (a loop step may wait up to 10 s for SQLite's lock: the store's busy timeout)
STOP_WAIT = 15.0


def defaults_from(cfg: DaemonConfig) -> SessionDefaults:
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
    # (what a new game starts with: a game in progress goes on after a restart whatever they
    # say, see session/restore.py)
    return SessionDefaults(settings, TimeControl.parse(cfg.time_control), players,
                           tie_break=cfg.tie_break, match=cfg.match, raichi=cfg.raichi,
                           computer=cfg.computer, coach=cfg.coach)


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

    def __call__(self, environ: WSGIEnvironment,
                 start_response: Callable[..., object]) -> Iterable[bytes]:
        if self.app is None:
            start_response("503 Service Unavailable", [("Content-Type", "application/json")])
            return [b'{"error": "starting"}']
        return self.app(environ, start_response)


class Daemon:
    """The running companion. ``start()`` opens everything and returns; ``stop()`` closes it."""

    def __init__(
        self, cfg: DaemonConfig, *, board: BoardSource | None = None,
        leds: LedSink | None = None,
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
        self.defaults = defaults_from(cfg)
        self._tracker_factory = tracker_factory
        self._stop = threading.Event()
        self._first_scan = threading.Event()
        self._loop_thread: threading.Thread | None = None
        self._parts = contextlib.ExitStack()  # what start() opened, closed by stop()
        self.stop_wait = STOP_WAIT
        self.lock: DataDirLock | None = None
        self.parts = PartsWatch(self._publish_parts)  # display, buttons, LEDs found missing
        self.notifier = Notifier()
        self.server: WebServer | None = None
        #: the page's Flask app once started (its extensions: the costly requests' budget)
        self.web_app: Flask | None = None
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
        """Bind the port, lock the data directory, open the board, the LEDs and the store,
        resume or start a game, serve the page, run the loop. ConfigError (nothing written)
        when any of it cannot be used; whatever was opened is closed again, in reverse order."""
        cfg = self.cfg
        app = _LateApp()
        with contextlib.ExitStack() as parts:
            # a port in use fails here, before the data directory is touched
            self.server = parts.enter_context(contextlib.closing(self._bind(app)))
            self.lock = parts.enter_context(contextlib.closing(self._lock_data_dir()))
            if self.board is None:
                from companion.hardware_drivers import open_board

                self.board = open_board(cfg.board)
            parts.enter_context(contextlib.closing(self.board))
            if self.leds is None:
                self.leds = self._open_leds()
            parts.enter_context(contextlib.closing(self.leds))
            self.store = parts.enter_context(contextlib.closing(
                Store(Path(cfg.data_dir) / DB_NAME, reset=cfg.reset_store, log=log.warning)))
            # a board whose sensors cannot tell the pieces' kinds: the players are asked to check
            self.defaults = replace(self.defaults, check_pieces=checks_pieces(self.board))
            self.session = parts.enter_context(contextlib.closing(GameSession(
                self.store, self.board, defaults=self.defaults, announce=self.hub.publish,
                tracker_factory=self._tracker_factory)))
            self.session.press_to_end = cfg.buttons.press_to_end_move  # the clock button
            self.session.open()
            from companion.panel import build_panel

            self.panel = build_panel(cfg, self.session, self.hub, self.board, self.port,
                                     parts=self.parts)
            if self.panel is not None:
                parts.enter_context(contextlib.closing(self.panel))
            parts.enter_context(contextlib.closing(self.parts))  # (before what it attaches to)
            self._serve(app, parts)
            self.server.start()
            self._loop_thread = threading.Thread(target=self._loop, name="scan-loop",
                                                 daemon=True)
            self._loop_thread.start()
            if self.panel is not None:
                self.panel.start()  # its presses and text go through the loop thread
            if self.voice is not None:
                self.voice.start()  # it follows the published state on its own threads
            self.parts.start()  # missing parts: on the page, tried again (companion.parts)
            self._parts = parts.pop_all()  # closed by stop(), once the loop has ended
        # ready once the board was read once: the first state anyone sees shows the board
        self._first_scan.wait(FIRST_SCAN_WAIT)

    def _open_leds(self) -> LedSink:
        """The configured LEDs; missing ones (SPI not enabled, no spidev) are left to the
        parts watch: the board plays, the page shows the LED frame, they are tried again."""
        from companion.hardware_drivers import PartMissing, open_leds

        cfg, board = self.cfg, self.board
        try:
            return open_leds(cfg.leds, board)
        except PartMissing as exc:
            waiting = WaitingLeds()
            self.parts.missing(exc, lambda: open_leds(cfg.leds, board), waiting.attach)
            return waiting

    def _publish_parts(self, parts: list[PartStatus]) -> None:
        """The missing parts into the page's state (a command of the loop; the watch's thread)."""
        if self.session is not None:
            self.session.set_parts(list(parts))

    def _lock_data_dir(self) -> DataDirLock:
        """One daemon per data directory (companion.store_lock); ConfigError naming the pid
        of the one that has it."""
        data_dir = Path(self.cfg.data_dir)
        check_data_dir(data_dir)  # made if missing; StoreOpenError if it cannot be used
        try:
            return DataDirLock(data_dir).acquire()
        except OSError as exc:
            raise ConfigError(f"cannot lock data dir {data_dir} ({LOCK_NAME}): "
                              f"{exc.strerror or exc}") from None

    def _serve(self, app: _LateApp, parts: contextlib.ExitStack) -> None:
        """The page's app, the online client and the club, and the players at a distance."""
        assert self.session is not None
        cfg = self.cfg
        from companion.web import auth, create_app

        if self.pin_generated:  # kept in the data dir, so that it survives restarts
            self.pin, self.pin_path = auth.owner_code(Path(cfg.data_dir))
        self.online = parts.enter_context(contextlib.closing(
            open_online(cfg.online, Path(cfg.data_dir))))  # companion.online
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
        from companion.coach.web import blueprint as explorer_routes

        # GET /api/explorer: the board's own book is the session's (the display's line's too)
        flask_app.register_blueprint(explorer_routes(self.session.books))
        flask_app.register_blueprint(self._puzzle_routes())  # /api/puzzles, POST /api/puzzle
        self.voice = self._voice()
        if self.voice is not None:
            from companion.voice.web import blueprint as voice_routes

            parts.enter_context(contextlib.closing(self.voice))
            flask_app.register_blueprint(voice_routes(self.voice))  # POST /api/voice
        app.app = flask_app
        self.web_app = flask_app
        self._start_club(app, parts)
        self._attach_remote_players()
        if own:  # always attached: a game opened or joined on the page starts here
            self.session.attach_remote(online_player)

    def _puzzle_routes(self) -> Blueprint:
        """The puzzles' routes on the session (the start is the owner's control)."""
        from companion.coach.puzzle_web import PuzzleRefused, blueprint
        from companion.session.actors import OWNER, ControlError

        session = self.session
        assert session is not None

        def start(pid: object) -> Mapping[str, object]:
            try:
                return session.start_puzzle(OWNER, pid)
            except ControlError as exc:
                raise PuzzleRefused(exc.status, exc.code, exc.message) from None

        return blueprint(session.puzzles, start)

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

    def _start_club(self, app: _LateApp, parts: contextlib.ExitStack) -> None:
        """Publish this board's game on the club's broker ([club] in the config)."""
        if self.cfg.club is None:
            return
        from flask import Flask

        from companion.club.board_routes import blueprint
        from companion.club.service import ClubService

        self.club = parts.enter_context(contextlib.closing(
            ClubService(self.cfg.club, Path(self.cfg.data_dir))))
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

    def stop(self) -> bool:
        """Stop the panel, the web server and the loop; once the loop has ended, close the
        rest in reverse order of opening (clients at a distance, session, store, LEDs, board,
        the data directory's lock). A loop that does not end within :attr:`stop_wait` is
        logged as an error and nothing it uses is closed under it (the store stays consistent:
        SQLite; the process is ending anyway); False then, and calling stop() again once the
        loop has ended closes them."""
        self.parts.close()  # first: their threads may be waiting for the loop to answer
        if self.panel is not None:
            self.panel.close()
        if self.voice is not None:  # likewise (it tells the loop what it said)
            self.voice.close()
        self._stop.set()
        self.hub.close()
        if self.server is not None:
            self.server.close()  # no request reaches a session being closed
        ended = self._end_loop()
        if ended:  # (else left open for the loop: a later stop() closes them once it ended)
            self._parts.close()
            self.notifier.close()
        return ended

    def _end_loop(self) -> bool:
        """Wait for the loop thread to end (True), at most :attr:`stop_wait` seconds."""
        t = self._loop_thread
        if t is None:
            return True
        t.join(self.stop_wait)
        if not t.is_alive():
            return True
        frame = sys._current_frames().get(t.ident or 0)
        where = "".join(traceback.format_stack(frame)[-3:]) if frame is not None else "?"
        log.error("the scan loop did not end within %.0f s of the stop: the store, the session "
                  "and the board are left open under it (nothing stored is lost). It is in:\n%s",
                  self.stop_wait, where)
        return False

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
