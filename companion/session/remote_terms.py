"""The terms of a game at a distance as stored with the game (``games.remote``), and back: a
restart finds the same game, with the same players at a distance, again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.rules.board import Move
from companion.session.clock import TimeControl
from companion.session.remote import RemoteKind, RemoteSeat, RemoteTerms
from companion.session.settings import GameSettings


def terms_json(kind: RemoteKind, terms: RemoteTerms) -> dict[str, object]:
    """The terms as stored with the game (its settings and time control are the game's own)."""
    out: dict[str, object] = {"kind": kind.value, "ref": terms.ref,
                              "local_side": terms.local_side, "opponent": terms.opponent,
                              "rating": terms.rating, "rated": terms.rated}
    if terms.watched is not None:
        out["watched"] = [{"name": s.name, "rating": s.rating} for s in terms.watched]
    return out


def _seats(data: object) -> tuple[RemoteSeat, RemoteSeat] | None:
    """The stored seats of a watched game (:func:`terms_json`), or None."""
    if not isinstance(data, list) or len(data) != 2:
        return None
    seats = []
    for seat in data:
        if not isinstance(seat, dict) or not isinstance(seat.get("name"), str):
            return None
        rating = seat.get("rating")
        seats.append(RemoteSeat(seat["name"], float(rating) if isinstance(rating, int | float)
                                else None))
    return seats[0], seats[1]


def terms_from_json(data: Mapping[str, object], settings: GameSettings,
                    time_control: TimeControl | None) -> tuple[RemoteKind, RemoteTerms] | None:
    """The stored terms of a game (:func:`terms_json`), or None when they cannot be read."""
    try:
        kind = RemoteKind(str(data.get("kind")))
    except ValueError:
        return None
    ref, side, opponent = data.get("ref"), data.get("local_side"), data.get("opponent")
    rating, rated = data.get("rating"), data.get("rated")
    watched = _seats(data.get("watched"))
    if not isinstance(ref, str) or side not in (("",) if watched else ("attackers",
                                                                      "defenders")):
        return None
    return kind, RemoteTerms(settings, time_control, str(side), str(opponent or ""), ref,
                             float(rating) if isinstance(rating, int | float) else None,
                             rated if isinstance(rated, bool) else None, watched)




def disputed(ours: Sequence[Move], theirs: Sequence[Move], confirmed: int) -> int | None:
    """The ply from which the other end's record ``theirs`` would drop moves of this board's
    game ``ours`` on its word alone, or None: it differs from ours (not only longer or shorter),
    or it lacks a move the other end had ``confirmed``. (A record that only lacks moves the
    other end never confirmed is not disputed: they are resent.)"""
    common = 0
    while common < min(len(ours), len(theirs)) and ours[common] == theirs[common]:
        common += 1
    if common < len(ours) and (common < len(theirs) or common < confirmed):
        return common
    return None
