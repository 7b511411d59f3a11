"""``GET /api/puzzles?variant=copenhagen`` and ``POST /api/puzzle {"id": "..."}``: the puzzle
library and starting a puzzle at the board (docs/coach.md, docs/http-api.md).

The list is read-only, for anyone who may see the page::

    {"variant": "copenhagen", "puzzles": [{"id", "variant", "side", "goal", "moves", "rating"},
     ...], "player": {"rating": null | R, "attempts": N, "solved": N}}

Starting is a control (the app's guard lets only the owner post to a blueprint): the answer is
``{"game": id, "puzzle": id}`` once the puzzle's game is set up to be played.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from flask import Blueprint, Response, jsonify, request

from companion.rules import PRESETS


class PuzzleRefused(Exception):
    """A start the session refused: its status, code and one line."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


List = Callable[[str], Mapping[str, object]]
Start = Callable[[object], Mapping[str, object]]


def _error(status: int, message: str, code: str) -> tuple[Response, int]:
    return jsonify(error=message, code=code), status


def blueprint(listing: List, start: Start) -> Blueprint:
    """The puzzles' routes: ``listing(variant)`` reads the library, ``start(id)`` starts one
    (raising :class:`PuzzleRefused`)."""
    bp = Blueprint("puzzles", __name__)

    @bp.get("/api/puzzles")
    def puzzles() -> tuple[Response, int]:
        variant = request.args.get("variant", "")
        if variant not in PRESETS:
            return _error(400, f"unknown variant {variant!r}", "bad_variant")
        return jsonify(listing(variant)), 200

    @bp.post("/api/puzzle")
    def puzzle() -> tuple[Response, int]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict) or set(data) - {"id"}:
            return _error(400, 'the body must be {"id": "<a puzzle\'s id>"}', "bad_request")
        try:
            return jsonify(start(data.get("id"))), 200
        except PuzzleRefused as exc:
            return _error(exc.status, exc.message, exc.code)

    return bp
