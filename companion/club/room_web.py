"""``tafl-companion club --broker URL --club NAME``: the tournament room page.

A read-only page (no PIN: nothing on it changes anything) showing every board of the club live,
for a big screen in the hall or a phone in the audience, served by the project's own web server
(:class:`companion.web.server.WebServer`: one event loop, the live stream encoded once for every
viewer) with a small Flask app:

    GET /                        the page (every board; ``#board=NAME`` opens one board)
    GET /api/club                {"club", "link", "boards": [{"board", "online", "state"}]}
    GET /api/club/<board>        one board's entry (404 when unknown)
    GET /api/club/<board>/review its game move by move (the position after each move)
    GET /api/events              Server-Sent Events: the room's summary on every change
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request

from companion.club import seal
from companion.club.config import Broker, ClubConfigError, check_name
from companion.club.link import ROOM_BUDGET, ClubLink
from companion.club.room import ClubRoom
from companion.club.words import words

log = logging.getLogger("companion.club")
HERE = Path(__file__).parent


def create_room_app(room: ClubRoom) -> Flask:
    """The room's Flask app (the live stream is the web server's)."""
    from companion import i18n
    from companion.web import headers

    app = Flask(__name__, static_folder=str(HERE / "static"),
                template_folder=str(HERE / "templates"))
    app.config.update(MAX_CONTENT_LENGTH=1024, JSON_SORT_KEYS=False)

    app.after_request(headers.add_headers)

    @app.errorhandler(404)
    def _not_found(exc: Exception) -> tuple[Response, int]:
        return jsonify(error=getattr(exc, "description", "not found")), 404

    @app.errorhandler(405)
    def _not_allowed(exc: Exception) -> tuple[Response, int]:
        return jsonify(error="the room page is read-only"), 405

    @app.get("/")
    def index() -> Response:
        lang = i18n.choose(request.args.get("lang"), request.cookies.get(i18n.COOKIE),
                           request.accept_languages)
        table = words(lang)
        html = render_template("room.html", club=room.club, lang=lang, w=table,
                               words_json=json.dumps(table, ensure_ascii=False)
                               .replace("</", "<\\/"))
        resp = headers.page(html)
        resp.headers["Content-Language"] = lang
        resp.headers["Vary"] = "Accept-Language, Cookie"
        return resp

    @app.get("/api/club")
    def club() -> Response:
        return jsonify(room.document())

    def _board(name: str) -> str:
        try:
            return check_name(name, "board")
        except ClubConfigError as exc:
            abort(404, str(exc))

    @app.get("/api/club/<name>")
    def board(name: str) -> Response:
        entry = room.board(_board(name))
        if entry is None:
            abort(404, f"no board {name!r} in club {room.club!r}")
        return jsonify(entry)

    @app.get("/api/club/<name>/review")
    def review(name: str) -> Response:
        doc = room.review(_board(name))
        if doc is None:
            abort(404, f"no board {name!r} in club {room.club!r}")
        return jsonify(doc)

    return app


class RoomServer:
    """The room: a broker link, the room's view of the club, the page."""

    def __init__(self, broker: Broker, club: str, host: str, port: int,
                 interval: float = 0.25, *, key: bytes) -> None:
        from companion.web.hub import StateHub
        from companion.web.server import DEFAULT_LIMITS, WebServer

        self.hub = StateHub()
        self.link = ClubLink(broker, f"tafl-room-{club}", key=key, board=None,
                             persistent=False, budget=ROOM_BUDGET,
                             on_status=lambda state, error: self._link_changed(state, error))
        self.room = ClubRoom(self.link, club, interval=interval, on_summary=self.hub.publish)
        self.app = create_room_app(self.room)
        # a hall of phones often shares one address (the hall's Wi-Fi, a NAT): many live
        # streams per address, unlike a board's page
        limits = replace(DEFAULT_LIMITS, max_connections=2048, per_address=1024,
                         max_streams=1500, streams_per_address=1024,
                         app_per_address=DEFAULT_LIMITS.workers, requests_burst=2000,
                         requests_rate=500.0)
        self.server = WebServer(self.app, self.hub, host, port, limits=limits)

    def _link_changed(self, state: str, error: str | None) -> None:
        room = getattr(self, "room", None)  # (the link may report before the room exists)
        if room is not None:
            room.link_changed(state, error)

    @property
    def port(self) -> int:
        return int(self.server.port)

    def start(self) -> None:
        self.link.start()
        self.room.start()
        self.server.start()

    def close(self) -> None:
        self.server.close()
        self.hub.close()
        self.room.close()
        self.link.close()


def cmd_club(args: argparse.Namespace) -> int:
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        broker = Broker.parse(args.broker, "--broker", user=args.broker_user,
                              password=args.broker_password, ca_file=args.ca_file,
                              client_cert=args.client_cert, client_key=args.client_key)
        club = check_name(args.club, "--club")
        broker.check_login(args.allow_anonymous_broker, "--broker")
        key = room_key(args)
    except ClubConfigError as exc:
        raise ValueError(str(exc)) from None
    try:
        server = RoomServer(broker, club, args.host, args.port, key=key)
    except OSError as exc:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}") from None
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    host = "localhost" if args.host in ("0.0.0.0", "::", "") else args.host
    log.info("club %s on %s: the room page is http://%s:%d/", club, broker.url, host,
             server.port)
    print(f"tafl-companion club {club}: http://{host}:{server.port}/", flush=True)
    try:
        while not stop.wait(1.0):
            pass
    finally:
        server.close()
    return 0


def room_key(args: argparse.Namespace) -> bytes:
    """The club's key for the room: ``--key-file`` (or the environment's TAFL_CLUB_KEY)."""
    import os

    try:
        if args.key_file:
            return seal.read_key_file(Path(args.key_file))
        text = os.environ.get("TAFL_CLUB_KEY")
        if text:
            return seal.key_bytes(text, "TAFL_CLUB_KEY")
    except ValueError as exc:
        raise ClubConfigError(str(exc)) from None
    raise ClubConfigError("the room needs the club's key to read the boards: --key-file PATH "
                          "(the boards' club.key) or TAFL_CLUB_KEY in the environment")


def cmd_club_key(args: argparse.Namespace) -> int:
    print(seal.new_key())
    return 0


def register(sub: Any) -> None:
    """Add ``club`` to the command line."""
    p = sub.add_parser("club", help="the tournament room page: every board of a club live, "
                                    "from the club's MQTT broker")
    p.add_argument("--broker", required=True, help="mqtt://host:1883 or mqtts://host:8883")
    p.add_argument("--club", required=True, help="the club's name (as the boards' [club] name)")
    p.add_argument("--port", type=int, default=8090, help="web port (default 8090)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--broker-user", help="broker account (read-only is enough)")
    p.add_argument("--broker-password", help="its password")
    p.add_argument("--ca-file", help="CA certificate of a private broker (mqtts)")
    p.add_argument("--client-cert", help="TLS client certificate (mqtts)")
    p.add_argument("--client-key", help="its private key")
    p.add_argument("--key-file", help="the club's key (the boards' club.key; or the "
                                      "environment's TAFL_CLUB_KEY)")
    p.add_argument("--allow-anonymous-broker", action="store_true",
                   help="use a broker without an account (anybody may publish on it)")
    p.set_defaults(func=cmd_club)
    k = sub.add_parser("club-key", help="print a new club key (for club.key on every board "
                                        "and the room)")
    k.set_defaults(func=cmd_club_key)
