"""The page's own routes (a Flask blueprint): game review, imports, rule cards, QR codes.

- ``GET /review/<id>``: the page, opened on the review of a stored game (a shareable link;
  ``/review/<id>#12`` opens it at ply 12).
- ``GET /api/review/<id>``: everything the review view shows: players, date, variant and its
  rules, result and reason, the start position and the position after every move, each move
  with the pieces it captured (kind and square), escape threats, the times stored with the
  moves, and notable events (takebacks, draw offers, resignations, imports).
- ``POST /api/import`` (owner only, like every control): an OpenTafl ``.otg`` file or records
  in the CSV form (``{"name": "game.otg", "text": "...", "variant": "brandubh"}``; for CSV
  without ``variant`` it is found from the file: :mod:`companion.web.record_variant`). Every
  move is replayed and checked through the rules here; the session stores the games (on its
  loop, in one transaction, 503 while the store cannot write) as closed games (never resumed
  as the live game), which can then be reviewed and exported.
- ``GET /api/rules``: every preset's rules, for the page's rule cards.
- ``GET /api/links`` and ``GET /api/qr.svg?text=URL``: the addresses a phone can use and a QR
  code of a link, for the owner view; ``GET /api/time``: the daemon's wall clock (the page counts
  the clocks down from the daemon's readings).

The page itself (HTML, scripts, style sheet, catalogues) is sent gzip-compressed to browsers that
accept it (:func:`compress`): a phone on a weak Wi-Fi loads about a third of the bytes.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest, NotFound

from companion import qr
from companion.rules import PRESETS
from companion.session.actors import ControlError
from companion.session.api import ImportedGame, SessionAPI
from companion.session.stored_documents import Review
from companion.web import costly
from companion.web.imports import MAX_IMPORT_GAMES, ImportRefused, parse_upload
from companion.web.limits import DEFAULT_LIMITS

__all__ = ["MAX_IMPORT_GAMES", "ReviewSource", "blueprint", "compress", "review_json"]
#: The page's light/dark switch (unset: as the device prefers)
THEME_COOKIE = "tafl-theme"


class ReviewSource(Protocol):
    """What the page's own routes need from the running companion: its session (reviews and
    imports go through it) and the address the daemon listens on (the links' host)."""

    @property
    def session(self) -> SessionAPI: ...

    @property
    def host(self) -> str: ...


def review_json(session: SessionAPI, gid: int) -> Review:
    """The review of stored game ``gid`` (NotFound if there is none): the session's read of
    the store (:meth:`~companion.session.api.SessionAPI.review`)."""
    try:
        return session.review(gid)
    except ControlError as exc:
        if exc.status == 404:
            raise NotFound(exc.message) from None
        raise


# -- imports ------------------------------------------------------------------------------------


def _started(tags: Mapping[str, str]) -> float:
    """The game's date from an ``.otg`` date tag (``2024.05.01``), noon local time; now
    without one."""
    with_date = tags.get("date", "")
    try:
        day = _dt.datetime.strptime(with_date.strip(), "%Y.%m.%d")
    except ValueError:
        return time.time()
    return day.replace(hour=12).timestamp()


# -- compression of the page's own files -------------------------------------------------------

#: Paths whose answers are the page's files (the HTML page is recognised by its type).
PAGE_FILES = ("/static/", "/i18n/")
_GZ_LOCK = threading.Lock()
_GZ: dict[tuple[str, str], bytes] = {}  # (path, digest of the plain bytes) -> gzip bytes


def compress(resp: Response) -> Response:
    """Gzip an answer carrying one of the page's files, when the browser accepts gzip. Static
    files and catalogues are compressed once per version (kept in memory: about 40 KB); the
    HTML page (rendered per language) each time (7 KB, well under a millisecond)."""
    if (request.method != "GET" or resp.status_code != 200 or resp.headers.get("Content-Encoding")
            or "gzip" not in request.headers.get("Accept-Encoding", "").lower()):
        return resp
    static = request.path.startswith(PAGE_FILES)
    if not static and resp.mimetype != "text/html":
        return resp
    resp.direct_passthrough = False
    data = resp.get_data()
    if len(data) < 512:
        return resp
    if static:
        key = (request.path, hashlib.sha1(data).hexdigest())
        with _GZ_LOCK:
            packed = _GZ.get(key)
        if packed is None:
            packed = gzip.compress(data, 6, mtime=0)
            with _GZ_LOCK:
                if len(_GZ) > 256:  # files change only with a new version: never grows much
                    _GZ.clear()
                _GZ[key] = packed
    else:
        packed = gzip.compress(data, 6, mtime=0)
    resp.set_data(packed)
    resp.headers["Content-Encoding"] = "gzip"
    resp.vary.add("Accept-Encoding")
    etag, _weak = resp.get_etag()
    if etag:  # the same file in another encoding: equal by weak comparison (304s still work)
        resp.set_etag(etag, weak=True)
    return resp


# -- the blueprint ------------------------------------------------------------------------------


def blueprint(source: ReviewSource) -> Blueprint:
    """The page's routes, reading and importing games through ``source.session``."""
    bp = Blueprint("review", __name__)
    bp.after_app_request(compress)

    @bp.app_context_processor
    def _theme() -> dict[str, str]:
        theme = request.cookies.get(THEME_COOKIE, "")
        return {"theme": theme if theme in ("light", "dark") else ""}

    @bp.get("/review/<int:gid>")
    def review_page(gid: int) -> Any:
        return current_app.view_functions["index"]()

    @bp.get("/api/review/<int:gid>")
    def review(gid: int) -> Any:
        if gid > 2**62:
            raise NotFound(f"no game {gid}")
        session = source.session
        version = session.stored_version(gid)  # None: made afresh (a game being played)

        def make() -> bytes:
            return current_app.json.dumps(review_json(session, gid)).encode()

        data = make() if version is None else costly.cached(("review", version), make)
        return Response(data, mimetype="application/json")

    @bp.post("/api/import")
    def import_file() -> Any:
        # the one route whose body may be large (the server bounds it: web.limits)
        request.max_content_length = DEFAULT_LIMITS.max_import_body
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise BadRequest("send the file as JSON: {\"name\": ..., \"text\": ...}")
        name, text, variant = data.get("name", "upload"), data.get("text"), data.get("variant")
        if not isinstance(name, str) or not isinstance(text, str):
            raise BadRequest('"text" (the file\'s content) is required, a string')
        if variant is not None and not isinstance(variant, str):
            raise BadRequest('"variant" must be a string')
        try:
            games = parse_upload(name[:100], text, variant)
        except ImportRefused as exc:  # the file's problem, worded by the page from its reason
            return jsonify(exc.to_json()), exc.status
        session = source.session
        known = session.imported_ids([g.origin["fingerprint"] for g in games])
        fresh = [g for g in games if g.origin["fingerprint"] not in known]
        imported = [ImportedGame(g.game, g.players, _started(g.origin.get("tags", {})),
                                 g.origin, g.ending) for g in fresh]
        actor = current_app.extensions["tafl_credentials"].resolve_actor(request)
        try:  # stored by the session's loop, like every write (503 while the disk is full)
            new = session.import_games(actor, imported)  # (none new: the right is checked)
        except ControlError as exc:
            return jsonify(error=exc.message, code=exc.code), exc.status
        stored = iter(new)
        ids = [known.get(g.origin["fingerprint"]) or next(stored) for g in games]
        first = games[0].origin
        puzzle = first.get("puzzle")
        return jsonify(games=ids, variant=games[0].game.rules.id,
                       already=[i for g, i in zip(games, ids, strict=True)
                                if g.origin["fingerprint"] in known],
                       found=first.get("found"), fits=first.get("fits"),
                       ply=puzzle["start"] if puzzle else None)

    @bp.get("/api/time")
    def wall_time() -> Any:
        """The daemon's wall clock, so a page counts the clocks down from its readings."""
        return jsonify(now=time.time())

    @bp.get("/api/rules")
    def rules() -> Any:
        return jsonify(rules={rid: r.shown_json() for rid, r in PRESETS.items()})

    @bp.get("/api/links")
    def links() -> Any:
        given = request.host.rpartition(":")[2]  # the port the page reached us on
        port = int(given) if given.isdigit() else 80
        return jsonify(urls=qr.page_urls(source.host, port))

    @bp.get("/api/qr.svg")
    def qr_svg() -> Response:
        text = request.args.get("text", "")
        if not text.startswith(("http://", "https://")) or len(text) > qr.MAX_TEXT:
            raise BadRequest(f"text must be an http(s) link of at most {qr.MAX_TEXT} characters")
        svg = costly.cached(("qr", text), lambda: qr.svg(text).encode())
        resp = Response(svg, mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "private, max-age=3600"
        return resp

    return bp

