"""The online routes (docs/http-api.md, INTERFACES.md §3): the lobby and the account's state
for everyone, login / seek / join / leave / chat / watch / unwatch for the owner only.

The routes only read the online client's published snapshot and enqueue requests for its
network thread: nothing here waits on the network. The password goes one way: from the
owner's login to the client (and the data directory); it is never logged or sent back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from flask import Flask, Response, jsonify, request

from companion.online.protocol import PRESETS, SIZE_OF_VARIANT, check_account
from companion.session.actors import OWNER, Actor

LOGIN_KEYS = {"user", "password", "create"}
SEEK_KEYS = {"side", "variant", "rated", "time_control"}


class OnlineControl(Protocol):
    """What the page may ask of the online client (companion.online.service.OnlineService)."""

    def status(self) -> dict[str, object]: ...
    def login(self, user: str, password: str, create: bool = False) -> None: ...
    def seek(self, side: str, variant: str, rated: bool, time_control: str) -> None: ...
    def join(self, game_id: int) -> None: ...
    def leave(self) -> None: ...
    def chat(self, text: str) -> None: ...
    def watch(self, game_id: int) -> None: ...
    def unwatch(self) -> None: ...


OFF: dict[str, object] = {
    "status": "off", "server": None, "user": None, "rating": None, "open_games": [],
    "live_games": [], "game": None, "error": "online play is not available on this board",
    "message": None, "code": None, "error_code": "online_off",
}


def register_online_routes(app: Flask, online: OnlineControl | None,
                           resolve_actor: Callable[[], Actor],
                           error: Callable[[int, str, str], Exception]) -> None:
    """Add ``/api/online`` and its controls to ``app``; ``error(status, message, code)`` is
    the app's JSON error (companion.web.ApiError)."""
    ApiError = error  # noqa: N806  (the app's error class, passed in: no import cycle)

    def body(keys: set[str]) -> dict[str, object]:
        data = request.get_json(silent=True)
        if data is None and request.get_data():
            raise ApiError(400, "the request body is not valid JSON", "bad_json")
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object", "bad_json")
        extra = sorted(set(data) - keys)
        if extra:
            raise ApiError(400, f'"{extra[0]}" is not a field of this request (fields: '
                           f'{", ".join(sorted(keys)) or "none"})', "bad_field")
        return data

    def client() -> OnlineControl:
        if resolve_actor() is not OWNER:
            raise ApiError(403, "only the owner can do this: the controls need the PIN",
                           "forbidden")
        if online is None:
            raise ApiError(409, "online play is not available on this board", "online_off")
        return online

    def run(fn: Callable[[], None]) -> Response:
        try:
            fn()
        except ValueError as exc:
            raise ApiError(400, str(exc), "bad_request") from None
        return jsonify(ok=True)

    @app.get("/api/online")
    def online_state() -> Response:
        state = dict(OFF) if online is None else online.status()
        state["presets"] = list(PRESETS)
        state["variants"] = list(SIZE_OF_VARIANT)
        return jsonify(state)

    @app.post("/api/online/login")
    def online_login() -> Response:
        service = client()
        data = body(LOGIN_KEYS)
        create = data.get("create", False)
        if not isinstance(create, bool):
            raise ApiError(400, '"create" must be true or false', "bad_request")
        try:
            user, password = check_account(data.get("user"), data.get("password", ""))
        except ValueError as exc:
            raise ApiError(400, str(exc), "bad_account") from None
        return run(lambda: service.login(user, password, create))

    @app.post("/api/online/seek")
    def online_seek() -> Response:
        service = client()
        data = body(SEEK_KEYS)
        side, variant = data.get("side"), data.get("variant", "copenhagen")
        rated, control = data.get("rated", False), data.get("time_control", "15+10")
        if not isinstance(side, str) or not isinstance(variant, str) or not isinstance(
                control, str) or not isinstance(rated, bool):
            raise ApiError(400, 'a seek needs "side" (attackers|defenders), "variant" '
                           f'({"|".join(SIZE_OF_VARIANT)}), "rated" (true|false) and '
                           '"time_control" (e.g. 15+10 or none)', "bad_request")
        return run(lambda: service.seek(side, variant, rated, control))

    @app.post("/api/online/join")
    def online_join() -> Response:
        service = client()
        game_id = body({"id"}).get("id")
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise ApiError(400, '"id" must be the number of an open game', "bad_request")
        return run(lambda: service.join(game_id))

    @app.post("/api/online/leave")
    def online_leave() -> Response:
        service = client()
        body(set())
        return run(service.leave)

    @app.post("/api/online/watch")
    def online_watch() -> Response:
        service = client()
        game_id = body({"id"}).get("id")
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise ApiError(400, '"id" must be the number of a game in progress',
                           "bad_request")
        return run(lambda: service.watch(game_id))

    @app.post("/api/online/unwatch")
    def online_unwatch() -> Response:
        service = client()
        body(set())
        return run(service.unwatch)

    @app.post("/api/online/chat")
    def online_chat() -> Response:
        service = client()
        text = body({"text"}).get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > 1000:
            raise ApiError(400, '"text" must be a message of 1 to 1000 characters',
                           "bad_request")
        return run(lambda: service.chat(text))
