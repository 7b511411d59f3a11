"""The JSON API's routes (docs/http-api.md): reading for everyone, controls for an actor.

Every control resolves the request's actor (owner, player or spectator) and calls the session,
which checks what that actor may do; a :class:`~companion.session.actors.ControlError` becomes
``{"error": message, "code": code}`` with its status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from flask import Flask, Response, jsonify, request

from companion.rules import PRESETS
from companion.session.actors import Actor, ControlError
from companion.session.api import SessionAPI
from companion.web import costly, errors

SIDES = ("attackers", "defenders")
MAX_ID = 2**62


P = ParamSpec("P")
R = TypeVar("R")


def register_routes(app: Flask, session: SessionAPI, resolve_actor: Callable[[], Actor]) -> None:
    """Add the API routes to ``app``."""
    from companion.web import ApiError, _int_arg, geometry

    def body() -> dict[str, object]:
        """The request's JSON object (the network's: each field is checked where it is read)."""
        data = request.get_json(silent=True)
        if data is None and request.get_data():
            raise ApiError(400, "the request body is not valid JSON", "bad_json")
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object", "bad_json")
        return data

    def field(data: dict[str, object], name: str,
              choices: tuple[str, ...] | None = None) -> str:
        """A required string field (one of ``choices``): 400 ``bad_request`` otherwise."""
        value = data.get(name)
        if not isinstance(value, str) or not value:
            raise ApiError(400, f'"{name}" is required (a string)', "bad_request")
        if choices and value not in choices:
            raise ApiError(400, f'"{name}" must be one of {", ".join(choices)}, not {value!r}',
                           "bad_request")
        return value

    def optional(data: dict[str, object], name: str, choices: tuple[str, ...]) -> str | None:
        """``field``, or None when absent (JSON null too)."""
        return None if data.get(name) is None else field(data, name, choices)

    def control(fn: Callable[Concatenate[Actor, P], R], *args: P.args,
                **kwargs: P.kwargs) -> R:
        actor = resolve_actor()
        try:
            return fn(actor, *args, **kwargs)
        except ControlError as exc:
            raise ApiError(exc.status, exc.message, exc.code) from None

    def checked_id(value: int, what: str) -> int:
        if not 0 < value < MAX_ID:
            raise ApiError(404, f"no {what} {value}", "not_found")
        return value

    # -- reading ----------------------------------------------------------------------------
    @app.get("/api/state")
    def state() -> Response:
        return Response(session.state_text(), mimetype="application/json")

    @app.get("/api/variants")
    def variants() -> Response:
        from companion.engine import LEVELS
        from companion.session.settings import OPTIONS

        # the computer's levels with their measured rating (None where not measured yet)
        levels = [{"level": n, "name": lv.name, "rating": lv.rating}
                  for n, lv in sorted(LEVELS.items())]
        return jsonify(variants=[
            {"id": r.id, "name": r.name, "size": r.size,
             "options": {k: getattr(r, k) for k in OPTIONS}} for r in PRESETS.values()
        ], options={k: list(v) for k, v in OPTIONS.items()}, levels=levels)

    @app.get("/api/legal")
    def legal() -> Response:
        return jsonify(session.legal_moves())

    @app.get("/api/whoami")
    def whoami() -> Response:
        try:
            return jsonify(resolve_actor().to_json())
        except ApiError:
            raise

    def read(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """A read of stored games (read-only: never waits for the board's loop)."""
        try:
            return fn(*args, **kwargs)
        except ControlError as exc:
            raise ApiError(exc.status, exc.message, exc.code) from None

    @app.get("/api/games")
    def games() -> Response:
        limit = _int_arg("limit", 50, 1, 500)
        offset = _int_arg("offset", 0, 0, 10**9)
        return jsonify(games=session.stored_games(limit, offset))

    @app.get("/api/games/<int:gid>")
    def game(gid: int) -> Response:
        gid = checked_id(gid, "game")

        def make() -> bytes:
            detail = read(session.stored_game, gid)
            return app.json.dumps({**detail, **geometry(detail["variant"])}).encode()

        version = session.stored_version(gid)  # None: made afresh (a game being played)
        data = make() if version is None else costly.cached(("game", version), make)
        return Response(data, mimetype="application/json")

    @app.get("/api/games/<int:gid>/record.csv")
    def export_csv(gid: int) -> Response:
        return _download(checked_id(gid, "game"), "csv", "text/csv")

    @app.get("/api/games/<int:gid>/game.otg")
    def export_otg(gid: int) -> Response:
        return _download(checked_id(gid, "game"), "otg", "text/plain")

    def _download(gid: int, kind: str, mime: str, match: bool = False) -> Response:
        def make() -> bytes:
            return str(read(session.export, gid, kind, match)).encode()

        # a finished game's (match's) file is made once per version of its rows
        version = session.stored_version(gid, match)
        data = make() if version is None else costly.cached((kind, version), make)
        resp = Response(data, mimetype=mime)
        name = f"tafl-{'match' if match else 'game'}-{gid}.{kind}"
        resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return resp

    @app.get("/api/matches")
    def matches() -> Response:
        limit = _int_arg("limit", 50, 1, 500)
        offset = _int_arg("offset", 0, 0, 10**9)
        return jsonify(matches=session.stored_matches(limit, offset))

    @app.get("/api/matches/<int:mid>")
    def match(mid: int) -> Response:
        return jsonify(read(session.stored_match, checked_id(mid, "match")))

    @app.get("/api/matches/<int:mid>/record.csv")
    def match_export_csv(mid: int) -> Response:
        return _download(checked_id(mid, "match"), "csv", "text/csv", match=True)

    @app.get("/api/matches/<int:mid>/games.otg")
    def match_export_otg(mid: int) -> Response:
        return _download(checked_id(mid, "match"), "otg", "text/plain", match=True)

    @app.get("/api/players")
    def player_results() -> Response:
        return jsonify(players=session.player_results())

    # -- controls ---------------------------------------------------------------------------
    @app.post("/api/auth")
    def auth() -> Response:
        body()
        actor = resolve_actor()  # the owner's PIN also gets a session token for the page
        session_token = app.extensions["tafl_credentials"].session_for(request)
        return jsonify(ok=True, **actor.to_json(), **session_token)

    @app.post("/api/click")
    def click() -> Response:
        square = errors.check_square(field(body(), "square"), None)
        on = control(session.click, square)
        return jsonify(square=square, occupied=on)

    @app.post("/api/move")
    def move() -> Response:
        data = body()
        text = data.get("move")
        if text is None and isinstance(data.get("from"), str) and isinstance(data.get("to"), str):
            text = f"{data['from']}-{data['to']}"
        if not isinstance(text, str):
            raise ApiError(400, '"move" is required (FROM-TO, e.g. g3-e3), or "from" and "to"',
                           "bad_move")
        return jsonify(move_to_make=control(session.choose_move, text))

    @app.post("/api/new")
    def new_game() -> Response:
        return jsonify(control(session.new_game, body()))

    @app.post("/api/match")
    def new_match() -> Response:
        return jsonify(control(session.new_game, {**body(), "match": True}))

    @app.post("/api/next")
    def next_game() -> Response:
        body()
        return jsonify(control(session.next_game))

    @app.post("/api/takeback")
    def takeback() -> Response:
        body()
        return jsonify(control(session.takeback))

    @app.post("/api/draw")
    def draw() -> Response:
        data = body()
        action = field(data, "action", ("offer", "accept", "decline"))
        return jsonify(control(session.draw, action, optional(data, "side", SIDES)))

    @app.post("/api/resign")
    def resign() -> Response:
        return jsonify(control(session.resign, optional(body(), "side", SIDES)))

    @app.post("/api/remote/take-record")
    def take_record() -> Response:
        body()
        return jsonify(control(session.take_record))

    @app.post("/api/swap")
    def swap() -> Response:
        body()
        return jsonify(control(session.swap))

    @app.post("/api/players")
    def players() -> Response:
        return jsonify(control(session.set_players, body()))

    @app.post("/api/links")
    def links() -> Response:
        body()
        out = control(session.player_links)
        base = request.host_url.rstrip("/")
        for link in out["links"].values():
            link["url"] = base + link["path"]
        return jsonify(out)

    @app.post("/api/colours")
    def colours() -> Response:
        """The players checked the pieces' kinds against the position the game believes."""
        return jsonify(control(session.confirm_pieces))

    @app.post("/api/reading")
    def reading() -> Response:
        """The board defines the next game's position while ``on`` (renewed by the page)."""
        on = body().get("on")
        if not isinstance(on, bool):
            raise ApiError(400, '"on" is required (true or false)', "bad_request")
        return jsonify(control(session.read_board, on))

    @app.post("/api/clock")
    def clock() -> Response:
        action = field(body(), "action", ("pause", "resume"))
        return jsonify(control(session.clock_control, action))

    # -- the computer's help ----------------------------------------------------------------
    @app.post("/api/hint")
    def hint() -> tuple[Response, int]:
        status, out = control(session.request_hint, body().get("seconds"))
        return jsonify(out), status

    @app.post("/api/eval")
    def evaluate() -> tuple[Response, int]:
        status, out = control(session.request_eval, body().get("analysis"))
        return jsonify(out), status

    @app.post("/api/games/<int:gid>/analysis")
    def start_analysis(gid: int) -> tuple[Response, int]:
        seconds = body().get("seconds")
        status, out = control(session.start_analysis, checked_id(gid, "game"), seconds)
        return jsonify(out), status

    @app.get("/api/games/<int:gid>/analysis")
    def analysis(gid: int) -> Response:
        return jsonify(read(session.analysis, checked_id(gid, "game")))
