"""The phone page and its JSON API (Flask; served by :mod:`companion.web.server` in the daemon).

Reading is open to anyone on the network: the page, ``/api/state``, ``/api/events`` (Server-Sent
Events, answered by :mod:`companion.web.stream`), the game list, replays and exports. Every
state-changing request (``POST /api/...``) acts for an actor: the owner (the PIN in the
``X-Tafl-Pin`` header), a player (a player-link token in ``X-Tafl-Player``) or a spectator
(neither: every control is refused); the session decides what each may do (docs/http-api.md).
Every control is guarded against cross-site requests: it must be JSON (``Content-Type:
application/json``), carry the custom ``X-Tafl-Request`` header (which a cross-site form cannot
send, and which a cross-site script could only send after a CORS preflight that this server never
grants), and, when the browser says where it comes from (``Origin``, ``Sec-Fetch-Site``), come
from this same origin. Wrong PINs are limited per client and for the whole network
(:mod:`companion.web.auth`, docs/security.md). Every bad request gets a 4xx JSON
answer ``{"error": "...", "code": "..."}``.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, render_template, request
from jinja2 import DictLoader
from werkzeug.exceptions import HTTPException

from companion import i18n
from companion.rules import PRESETS
from companion.session.actors import OWNER, SPECTATOR, Actor
from companion.session.api import SessionAPI
from companion.web import auth, costly, errors, headers, review
from companion.web.hub import StateHub
from companion.web.online_api import OnlineControl, register_online_routes
from companion.web.pagefiles import PageFiles

log = logging.getLogger("companion.web")

HERE = Path(__file__).parent
PIN_HEADER = auth.PIN_HEADER
CSRF_HEADER = "X-Tafl-Request"
PLAYER_HEADER = auth.PLAYER_HEADER
PLAYER_COOKIE = auth.PLAYER_COOKIE


class ApiError(Exception):
    """An error answered as ``{"error": message, "code": code}`` with ``status``."""

    def __init__(self, status: int, message: str, code: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


@dataclass(frozen=True)
class _PageSource:
    """The session and the address the daemon listens on, for the page's review, import and
    link routes (:class:`~companion.web.review.ReviewSource`)."""

    session: SessionAPI
    host: str


def create_app(session: SessionAPI, hub: StateHub, pin: str, host: str = "0.0.0.0",
               secret: bytes | None = None, online: OnlineControl | None = None) -> Flask:
    """The Flask app serving ``session`` (any :class:`~companion.session.api.SessionAPI`):
    the page and the JSON API (:mod:`companion.web.api`); the live stream of ``hub`` is the
    server's (:mod:`companion.web.stream`)."""
    from companion.web.api import register_routes

    files = PageFiles(HERE)  # served from memory: a reinstall under the daemon changes nothing
    app = Flask(__name__, static_folder=None, template_folder=None)
    app.jinja_loader = DictLoader(files.templates)
    errors.install(app)  # bounded ids, strict JSON, rate-limited bug reports (before routes)
    app.config.update(MAX_CONTENT_LENGTH=16 * 1024, SEND_FILE_MAX_AGE_DEFAULT=3600,
                      JSON_SORT_KEYS=False)
    # who is asking (web.auth): the PIN or an owner session token (signed with ``secret``),
    # a player link, or nobody; wrong PINs limited per address and for the whole network
    creds = auth.Credentials(pin, secret or secrets.token_bytes(32), owner=OWNER,
                             spectator=SPECTATOR,
                             player_for_token=session.actor_for_player_token, error=ApiError)
    app.extensions["tafl_credentials"] = creds
    i18n.init_app(app)  # the page's languages (companion/i18n)
    # review, import, cards, QR
    app.register_blueprint(review.blueprint(_PageSource(session, host)))
    version = files.version
    i18n.preload()  # the catalogues too, for the same reason

    @app.get("/static/<path:name>")
    def static(name: str) -> Response:
        resp = files.response(name, request)
        if resp is None:
            raise ApiError(404, f"no file {name[:100]!r}", "not_found")
        return resp

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> tuple[Response, int]:
        return jsonify(error=exc.message, **({"code": exc.code} if exc.code else {})), exc.status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> tuple[Response, int]:
        return jsonify(error=exc.description or exc.name), exc.code or 400

    app.after_request(headers.add_headers)

    @app.get("/")
    def index() -> Response:
        return headers.page(render_template("index.html", v=version))

    @app.before_request
    def _guard() -> None:
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
        if request.blueprint is not None and resolve_actor() is not OWNER:
            # the page's own controls (imports) are the owner's; the session's routes check
            # each actor themselves
            raise ApiError(403, "only the owner can do this: the controls need the PIN",
                           "forbidden")
        return None

    def resolve_actor() -> Actor:
        """Owner (the PIN or an owner token), a player (a player-link token) or a spectator."""
        return creds.resolve_actor(request)

    register_routes(app, session, resolve_actor)
    register_online_routes(app, online, resolve_actor, ApiError)  # /api/online (online_api)
    costly.install(app)  # a budget per device for QR codes, reviews, exports, analyses, imports
    return app


def geometry(variant: str) -> dict[str, object]:
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
