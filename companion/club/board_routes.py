"""The club on a board's own page: the link's state and the other boards' proposals.

    GET  /api/club/status   {"broker", "club", "board", "link", "error",
                             "players": [{"peer", "state", "proposal", "ref", ...}]}
    POST /api/club/accept   {"board": "table-2"}   (owner: accept that board's proposal)

Registered by the daemon as a blueprint of the board's app: its controls pass the app's
guard (JSON, ``X-Tafl-Request``, same origin, and the owner's PIN for every blueprint POST).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from companion.club.service import ClubService


def blueprint(service: ClubService) -> Blueprint:
    bp = Blueprint("club", __name__)

    @bp.get("/api/club/status")
    def status() -> Response:
        return jsonify(service.status())

    @bp.post("/api/club/accept")
    def accept() -> tuple[Response, int]:
        body = request.get_json(silent=True)
        peer = body.get("board") if isinstance(body, dict) else None
        player = service.players.get(peer) if isinstance(peer, str) else None
        if player is None:
            return jsonify(error=f"no club game with {peer!r} on this board",
                           code="unknown_board"), 404
        if not player.accept():
            return jsonify(error=f"{peer} has proposed no game", code="no_proposal"), 409
        return jsonify(player.status()), 200

    return bp
