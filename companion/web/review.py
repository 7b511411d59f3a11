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
from typing import Any, Protocol

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest, HTTPException, NotFound, UnprocessableEntity

from companion import qr
from companion.rules import PRESETS, get_variant
from companion.rules.game import Game
from companion.rules.otg import OtgError, import_otg
from companion.rules.records import RecordError, read_records, replay_record
from companion.session.actors import ControlError
from companion.session.api import ImportedGame, SessionAPI
from companion.web import costly
from companion.web.record_variant import find_variant

#: At most this many games from one CSV file.
MAX_IMPORT_GAMES = 50
#: The page's light/dark switch (unset: as the device prefers)
THEME_COOKIE = "tafl-theme"


class ReviewSource(Protocol):
    """What the page's own routes need from the running companion: its session (reviews and
    imports go through it) and the address the daemon listens on (the links' host)."""

    @property
    def session(self) -> SessionAPI: ...

    @property
    def host(self) -> str: ...


def rules_json(rules: Any) -> dict[str, Any]:
    """A rule set for the page (without the specification's source notes)."""
    out: dict[str, Any] = rules.to_json()
    out.pop("source", None)
    return out


def review_json(session: SessionAPI, gid: int) -> dict[str, Any]:
    """The review of stored game ``gid`` (NotFound if there is none): the session's read of
    the store (:meth:`~companion.session.api.SessionAPI.review`)."""
    try:
        return session.review(gid)
    except ControlError as exc:
        if exc.status == 404:
            raise NotFound(exc.message) from None
        raise


# -- imports ------------------------------------------------------------------------------------


Ending = tuple[str, str] | None


def parse_upload(name: str, text: str,
                 variant: str | None) -> list[tuple[Game, dict[str, Any], Ending]]:
    """The games of an uploaded file (``.otg`` or CSV records), each with what the store keeps
    about its origin and, for a record that ended on time, its ending ``(result, "time")``.
    BadRequest/UnprocessableEntity name what is wrong."""
    if text.lstrip().startswith("[") or name.lower().endswith(".otg"):
        try:
            got = import_otg(text)
        except OtgError as exc:
            raise UnprocessableEntity(f"{name}: {exc}") from None
        if got.rules.id not in PRESETS:
            raise UnprocessableEntity(
                f"{name}: its rules ({got.rules.name}) are not one of the presets; only games "
                "of the presets can be stored")
        tags = {k: v for k, v in got.tags.items() if k not in ("rules", "companion-rules")}
        for side, player in (("attackers", got.attackers), ("defenders", got.defenders)):
            if side in tags:
                tags[side] = player  # checked by the reader: 1-40 printable characters
        return [(got.game, {"format": "otg", "name": name, "tags": tags}, None)]
    if variant is not None and variant not in PRESETS:
        raise BadRequest(f"unknown variant {variant!r}")
    try:
        records = read_records(text)
    except RecordError as exc:
        raise UnprocessableEntity(f"{name}: {exc}") from None
    if not records:
        raise UnprocessableEntity(f"{name}: no game records in the file")
    if len(records) > MAX_IMPORT_GAMES:
        raise UnprocessableEntity(f"{name}: {len(records)} games; import at most "
                                  f"{MAX_IMPORT_GAMES} at a time")
    found: dict[str, Any] = {}
    if variant is None:  # the file does not say it: found from its header or its moves
        fit = find_variant(text, records)
        if fit.variant is None:
            nearest = f" (nearest: {fit.nearest}, {fit.problem})" if fit.nearest else \
                f" ({fit.problem})"
            raise UnprocessableEntity(f"{name}: the moves fit no variant{nearest}; choose the "
                                      "variant on the import form")
        variant, found = fit.variant, {"found": fit.how, "fits": list(fit.fits)}
    rules = get_variant(variant)
    out = []
    for i, record in enumerate(records, 1):
        game, problem = replay_record(rules, record)
        if problem:
            raise UnprocessableEntity(f"{name}: game {i}, move {problem[0]}: {problem[1]}")
        data: dict[str, Any] = {"format": "csv", "name": name, "record": i, "status": record.status,
                      "variant": variant, **found}
        ending: Ending = None
        if not game.is_over() and record.result in ("attackers", "defenders"):
            # the record says who won but the rules did not end the game: a loss on time
            # (a "timeout" record) or a resignation
            if record.timeout:
                ending = (record.result, "time")
            else:
                game.resign("defenders" if record.result == "attackers" else "attackers")
        elif not game.is_over() and record.result == "draw":
            game.agree_draw()
        out.append((game, data, ending))
    return out


def _started(tags: dict[str, Any]) -> float:
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
    def _theme() -> dict[str, Any]:
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
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise BadRequest("send the file as JSON: {\"name\": ..., \"text\": ...}")
        name, text, variant = data.get("name", "upload"), data.get("text"), data.get("variant")
        if not isinstance(name, str) or not isinstance(text, str) or not text.strip():
            raise BadRequest('"text" (the file\'s content) is required, a string')
        if variant is not None and not isinstance(variant, str):
            raise BadRequest('"variant" must be a string')
        try:
            games = parse_upload(name[:100], text, variant)
        except HTTPException as exc:  # the file's problem, worded by the page from its code
            return jsonify(error=exc.description, code="import_refused"), exc.code or 422
        imported = []
        for game, origin, ending in games:
            tags = origin.get("tags", {})
            players = (tags.get("attackers", ""), tags.get("defenders", ""))
            imported.append(ImportedGame(game, players, _started(tags), origin, ending))
        actor = current_app.extensions["tafl_credentials"].resolve_actor(request)
        try:  # stored by the session's loop, like every write (503 while the disk is full)
            ids = source.session.import_games(actor, imported)
        except ControlError as exc:
            return jsonify(error=exc.message, code=exc.code), exc.status
        first = games[0][1] if games else {}
        return jsonify(games=ids, variant=games[0][0].rules.id if games else None,
                       found=first.get("found"), fits=first.get("fits"))

    @bp.get("/api/time")
    def wall_time() -> Any:
        """The daemon's wall clock, so a page counts the clocks down from its readings."""
        return jsonify(now=time.time())

    @bp.get("/api/rules")
    def rules() -> Any:
        return jsonify(rules={rid: rules_json(r) for rid, r in PRESETS.items()})

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

