"""``GET /api/explorer?variant=copenhagen&moves=d1-d3,h6-h9``: the opening explorer
(docs/coach.md). Read-only, for anyone who may see the page. The answer::

    {"variant": "copenhagen", "ply": 2, "position": "<OTN>", "turn": "attackers",
     "moves": [{"move": "d1-d4", "games": 12, "attackers": 5, "defenders": 6, "draws": 0}, ...],
     "games": 1752, "sources": ["1,752 games played on aagenielsen.dk (CC0-1.0)",
                                "this board's games"],
     "note": null | "a sentence when there is no data for the variant"}
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Blueprint, Response, jsonify, request

from companion.rules import PRESETS

from .explorer import (
    SOURCES,
    BookMove,
    OwnBooks,
    OwnGames,
    key_of,
    merged,
    position_after,
    shipped_book,
)

__all__ = ["MAX_MOVES", "OwnBooks", "OwnGames", "blueprint"]

#: At most this many moves in ``moves=`` (the book goes 20 plies deep; a game of the board's
#: own may go on, up to a long game).
MAX_MOVES = 400
#: The moves a page shows at most.
SHOWN = 12


def _error(status: int, message: str, code: str) -> tuple[Response, int]:
    return jsonify(error=message, code=code), status


def blueprint(own_games: OwnGames | OwnBooks) -> Blueprint:
    """The explorer's route; ``own_games(variant)`` gives the board's finished games (see
    :data:`OwnGames`; their book is made once per version of them)."""
    bp = Blueprint("explorer", __name__)
    books = own_games if isinstance(own_games, OwnBooks) else OwnBooks(own_games)

    @bp.get("/api/explorer")
    def explore() -> tuple[Response, int]:
        variant = request.args.get("variant", "")
        if variant not in PRESETS:
            return _error(400, f"unknown variant {variant!r}", "bad_variant")
        text = request.args.get("moves", "")
        moves = [m for m in text.split(",") if m] if text else []
        if len(moves) > MAX_MOVES:
            return _error(400, f"at most {MAX_MOVES} moves", "too_many_moves")
        try:
            game = position_after(variant, moves)
        except ValueError as exc:
            return _error(400, str(exc), "bad_move")
        key = key_of(game)
        book = shipped_book(variant)
        own = books.book(variant)
        found: list[Iterable[BookMove]] = [own.moves(key)]
        sources = []
        if book is not None:
            found.append(book.moves(key))
            sources.append(SOURCES.get(variant, f"{book.games} games"))
        if own.games:
            sources.append("this board's games")
        note = None
        if book is None and not own.games:
            note = "no games of this variant are known yet: the explorer fills as you play"
        shown = merged(*found)[:SHOWN]
        return jsonify(variant=variant, ply=len(moves), position=game.board.otn(),
                       turn=game.turn, moves=[m.to_json() for m in shown],
                       games=(book.games if book else 0) + own.games, sources=sources,
                       note=note), 200

    return bp
