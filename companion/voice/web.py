"""``POST /api/voice``: ask the voice to repeat the last sentence, say both clocks or describe
the position (docs/voice.md). Like every control it needs ``X-Tafl-Request: 1`` and the owner's
PIN. Body ``{"action": "repeat"|"clocks"|"describe"}``; the answer ``{"action", "text"}`` is
what the voice will say (the text is listed in the state's ``voice.said`` once said)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from .service import Voice

ACTIONS = ("repeat", "clocks", "describe")


def _error(status: int, message: str, code: str) -> tuple[Response, int]:
    return jsonify(error=message, code=code), status


def blueprint(voice: Voice) -> Blueprint:
    """The ``/api/voice`` route for ``voice``."""
    bp = Blueprint("voice", __name__)

    @bp.post("/api/voice")
    def ask() -> tuple[Response, int]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            return _error(400, "the request body must be a JSON object", "bad_json")
        unknown = sorted(set(data) - {"action"})
        if unknown:
            return _error(400, f"unknown field {unknown[0]!r}; the voice takes action",
                          "bad_field")
        action = data.get("action")
        if action not in ACTIONS:
            return _error(400, f'"action" must be one of {", ".join(ACTIONS)}, not {action!r}',
                          "bad_action")
        text = {"repeat": voice.repeat, "clocks": voice.clocks,
                "describe": voice.describe}[str(action)]()
        return jsonify(action=action, text=text), 200

    return bp
