"""The club on a board's own page: the link's state, the boards of the club, their proposals.

    GET  /api/club/status    {"broker", "club", "board", "link", "error",
                              "boards": [{"board": "table-2", "online": true}, ...],
                              "active": "table-2" | null,     the board this board plays
                              "proposals": [{"board", "id", "terms"}, ...],
                              "players": [{"peer", "state", "proposal", "ref", ...}]}
    POST /api/club/accept    {"board": "table-2"}   (owner: play that board's proposed game)
    POST /api/club/decline   {"board": "table-2"}   (owner: do not play it)

Proposing a game to another board is a new game with that board as a player
(``POST /api/new`` with ``{"kind": "club", "board": "table-2"}`` for a side).

Registered by the daemon as a blueprint of the board's app: its controls pass the app's
guard (JSON, ``X-Tafl-Request``, same origin, and the owner's PIN for every blueprint POST).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from companion.club.service import ClubService


def blueprint(service: ClubService) -> Blueprint:
    bp = Blueprint("club", __name__)
    opponents = service.opponents

    @bp.get("/api/club/status")
    def status() -> Response:
        return jsonify(service.status())

    def _peer() -> str | tuple[Response, int]:
        body = request.get_json(silent=True)
        peer = body.get("board") if isinstance(body, dict) else None
        if not isinstance(peer, str) or peer not in opponents.peers:
            return jsonify(error=f"no board {peer!r} has proposed a game to this board",
                           code="unknown_board"), 404
        return peer

    @bp.post("/api/club/accept")
    def accept() -> tuple[Response, int]:
        peer = _peer()
        if not isinstance(peer, str):
            return peer
        if opponents.busy(peer):
            return jsonify(error=f"this board plays {opponents.active} now: finish or resign "
                                 "that game first", code="remote_game"), 409
        if not opponents.accept(peer):
            return jsonify(error=f"{peer} has proposed no game", code="no_proposal"), 409
        return jsonify(opponents.peers[peer].status()), 200

    @bp.post("/api/club/decline")
    def decline() -> tuple[Response, int]:
        peer = _peer()
        if not isinstance(peer, str):
            return peer
        if not opponents.decline(peer):
            return jsonify(error=f"{peer} has proposed no game", code="no_proposal"), 409
        return jsonify(opponents.peers[peer].status()), 200

    return bp
