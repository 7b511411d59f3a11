"""The phone page and its JSON API (Flask; served by :mod:`companion.web.server` in the daemon).

Reading is open to anyone on the network: the page, ``/api/state``, ``/api/events`` (Server-Sent
Events, answered by :mod:`companion.web.stream`), the game list, replays and exports. Every
state-changing request (``POST /api/...``) needs the PIN in the ``X-Tafl-Pin`` header and is
guarded against cross-site requests: it must be JSON (``Content-Type: application/json``), carry
the custom ``X-Tafl-Request`` header (which a cross-site form cannot send, and which a cross-site
script could only send after a CORS preflight that this server never grants), and, when the
browser says where it comes from (``Origin``, ``Sec-Fetch-Site``), come from this same origin.
Wrong PINs are rate-limited per client. Every bad request gets a 4xx JSON answer
``{"error": "..."}``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion import i18n
from companion.rules import PRESETS
from companion.store import StoreError
from companion.web import errors, review

log = logging.getLogger("companion.web")

HERE = Path(__file__).parent
PIN_HEADER = "X-Tafl-Pin"
CSRF_HEADER = "X-Tafl-Request"


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class PinGuard:
    """Counts wrong PINs per client address: 5 wrong in a row lock the client out for 30 s,
    doubling up to 15 minutes."""

    def __init__(self, pin: str) -> None:
        self.pin = pin.encode()
        self._lock = threading.Lock()
        self._fails: dict[str, tuple[int, float]] = {}

    def check(self, client: str, given: str | None) -> None:
        now = time.monotonic()
        with self._lock:
            fails, until = self._fails.get(client, (0, 0.0))
            if now < until:
                raise ApiError(429, f"too many wrong PINs: wait {int(until - now) + 1} s")
        if not given:
            raise ApiError(403, "the controls need the PIN (it is in the config, or was printed "
                                "when the daemon started)")
        if hmac.compare_digest(given.encode(), self.pin):
            with self._lock:
                self._fails.pop(client, None)
            return
        with self._lock:
            fails += 1
            lock_s = 0.0 if fails < 5 else min(30.0 * 2 ** (fails - 5), 900.0)
            self._fails[client] = (fails, now + lock_s)
            if len(self._fails) > 1000:  # do not grow without bound
                self._fails.pop(next(iter(self._fails)))
        raise ApiError(403, "wrong PIN")


def _asset_version() -> str:
    h = hashlib.sha1()
    for path in sorted((HERE / "static").iterdir()):
        h.update(path.read_bytes())
    return h.hexdigest()[:10]


def create_app(daemon: Any) -> Flask:
    """The Flask app serving ``daemon`` (a :class:`companion.daemon.Daemon`)."""
    app = Flask(__name__, static_folder=str(HERE / "static"),
                template_folder=str(HERE / "templates"))
    errors.install(app)  # bounded ids, strict JSON, rate-limited bug reports (before routes)
    app.config.update(MAX_CONTENT_LENGTH=16 * 1024, SEND_FILE_MAX_AGE_DEFAULT=3600,
                      JSON_SORT_KEYS=False)
    guard = PinGuard(daemon.pin)
    i18n.init_app(app)  # the page's languages (companion/i18n)
    app.register_blueprint(review.blueprint(daemon))  # review, import, rule cards, QR codes
    version = _asset_version()

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(error=exc.message), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return jsonify(error=exc.description or exc.name), exc.code or 400

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    # -- reading ----------------------------------------------------------------------------

    @app.get("/")
    def index():
        html = render_template("index.html", v=version)
        resp = Response(html, mimetype="text/html")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        )
        return resp

    @app.get("/api/state")
    def state():
        return Response(daemon.state_text(), mimetype="application/json")

    @app.get("/api/variants")
    def variants():
        return jsonify(variants=[
            {"id": r.id, "name": r.name, "size": r.size} for r in PRESETS.values()
        ])

    @app.get("/api/games")
    def games():
        limit = _int_arg("limit", 50, 1, 500)
        offset = _int_arg("offset", 0, 0, 10**9)
        return jsonify(games=[g.to_json() for g in daemon.store.list_games(limit, offset)])

    @app.get("/api/games/<int:gid>")
    def game(gid: int):
        store = daemon.store
        try:
            row = store.game(gid)
            return jsonify(**row.to_json(), **geometry(row.variant), moves=store.moves(gid),
                           positions=store.positions(gid), events=store.events(gid, 500))
        except StoreError as exc:
            raise ApiError(404, str(exc)) from None

    @app.get("/api/games/<int:gid>/record.csv")
    def export_csv(gid: int):
        return _download(gid, "csv", "text/csv")

    @app.get("/api/games/<int:gid>/game.otg")
    def export_otg(gid: int):
        return _download(gid, "otg", "text/plain")

    def _download(gid: int, kind: str, mime: str) -> Response:
        store = daemon.store
        try:
            text = store.export_csv(gid) if kind == "csv" else store.export_otg(gid)
        except StoreError as exc:
            raise ApiError(404 if "no game" in str(exc) else 501, str(exc)) from None
        resp = Response(text, mimetype=mime)
        resp.headers["Content-Disposition"] = f'attachment; filename="tafl-game-{gid}.{kind}"'
        return resp

    # -- controls ---------------------------------------------------------------------------

    @app.before_request
    def _guard():
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if request.method != "POST" or not request.path.startswith("/api/"):
            raise ApiError(405, "method not allowed")
        site = request.headers.get("Sec-Fetch-Site")
        if site and site not in ("same-origin", "none"):
            raise ApiError(403, "cross-site request refused")
        origin = request.headers.get("Origin")
        if origin and origin != "null" and urlsplit(origin).netloc != request.host:
            raise ApiError(403, "cross-site request refused (Origin does not match)")
        if origin == "null":
            raise ApiError(403, "cross-site request refused (Origin: null)")
        if request.headers.get(CSRF_HEADER) != "1":
            raise ApiError(403, f"controls need the {CSRF_HEADER}: 1 header (the page sends it)")
        if not request.mimetype == "application/json":
            raise ApiError(415, "controls take JSON (Content-Type: application/json)")
        guard.check(request.remote_addr or "?", request.headers.get(PIN_HEADER))
        return None

    def body() -> dict:
        data = request.get_json(silent=True)
        if data is None and request.get_data():
            raise ApiError(400, "the request body is not valid JSON")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return data

    def field(data: dict, name: str, choices: tuple[str, ...] | None = None) -> str:
        value = data.get(name)
        if not isinstance(value, str) or not value:
            raise ApiError(400, f'"{name}" is required (a string)')
        if choices and value not in choices:
            raise ApiError(400, f'"{name}" must be one of {", ".join(choices)}, not {value!r}')
        return value

    def control(fn, *args) -> Any:
        from companion.daemon import ControlError

        try:
            return fn(*args)
        except ControlError as exc:
            raise ApiError(exc.status, exc.message) from None

    sides = ("attackers", "defenders")

    @app.post("/api/auth")
    def auth():
        return jsonify(ok=True)

    @app.post("/api/click")
    def click():
        square = errors.check_square(field(body(), "square"), getattr(daemon.board, "size", None))
        on = control(daemon.click, square)
        return jsonify(square=square, occupied=on)

    @app.post("/api/new")
    def new_game():
        data = body()
        variant = data.get("variant")
        if variant is not None:
            variant = field(data, "variant", tuple(PRESETS))
        gid = control(daemon.new_game, variant)
        return jsonify(game=gid)

    @app.post("/api/takeback")
    def takeback():
        body()
        return jsonify(undone=control(daemon.takeback))

    @app.post("/api/draw")
    def draw():
        data = body()
        action = field(data, "action", ("offer", "accept", "decline"))
        control(daemon.draw, action, field(data, "side", sides))
        return jsonify(ok=True)

    @app.post("/api/resign")
    def resign():
        control(daemon.resign, field(body(), "side", sides))
        return jsonify(ok=True)

    @app.post("/api/swap")
    def swap():
        body()
        return jsonify(players=control(daemon.swap))

    return app


def geometry(variant: str) -> dict:
    """Board size, throne and restricted corner squares of a variant (for drawing)."""
    from companion.rules.geometry import geometry_for

    rules = PRESETS[variant]
    geo = geometry_for(rules)
    return {
        "size": rules.size,
        "throne": geo.names[geo.throne] if geo.throne >= 0 else None,
        "corners": [geo.names[s] for s in geo.iter_bits(geo.corner)],
    }


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be a whole number, not {raw!r}") from None
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be {lo} to {hi}")
    return value
