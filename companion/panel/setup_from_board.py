"""A game from the position on the board, chosen with the buttons (the menu's "Start from:
This position"): what the board reads as a position, and why the rules refuse one, in the
display's short words.

While the menu says so, the session reads the board (``read_board``: the pieces are neither
guided back to the game nor judged) and the state's ``reading`` guidance has the occupied
squares and, where the sensors tell them, their colours. Each piece's kind is taken as the
phone page's editor takes it (``static/setup.js``): from its colour where the sensors tell it
(a defender is the king where the game or the variant has its king), else the game's piece on
that square, else the variant's, else an attacker; a piece on a corner or the throne is the
king (only he may stand there). A reed board cannot tell colours: once the game has started,
the board's colour check shows the position the game believes (``check_pieces``).

The session checks the position for the variant (``companion.rules.start``); its refusal's
reason is put in a few words for the display by :func:`refusal`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from companion.rules.board import Board
from companion.rules.otn import PositionError, parse_otn
from companion.rules.ruleset import RuleSet
from companion.rules.start import placement
from companion.squares import SquareError, parse_square

#: (pattern of the session's ``bad_position`` message, the display's words for it)
_REASONS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"there is no king"), "no_king", ""),
    (re.compile(r"two kings"), "two_kings", ""),
    (re.compile(r"(?P<n>\d+) (?P<side>attackers|defenders) \(not counting the king\): .* has "
                r"(?P<m>\d+) at most"), "n_{side}", "at_most"),
    (re.compile(r"has already escaped"), "escaped", ""),
    (re.compile(r"already encircled"), "encircled", ""),
    (re.compile(r"exit fort"), "exit_fort", ""),
    (re.compile(r"the (?P<side>attackers|defenders) \(to move\) have no legal move"),
     "no_move", "for_{side}"),
    (re.compile(r"stands on the (?:throne|corner) (?P<square>[a-s]\d+)"), "soldier_on", ""),
    (re.compile(r"rows|squares|longer than"), "other_size", ""),
)


def reading_squares(st: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The occupied squares the board reads and their colours (``a``/``d``, where known):
    the reading's while the session reads the board, else the occupied squares."""
    guidance = st.get("guidance") or {}
    if guidance.get("kind") == "reading":
        return list(guidance.get("squares") or []), dict(guidance.get("colours") or {})
    return list(st.get("occupied") or []), {}


def _piece(position: tuple[int, int, int], square: int) -> str | None:
    att, dfn, king = position
    if square == king:
        return "K"
    if att >> square & 1:
        return "t"
    return "T" if dfn >> square & 1 else None


def board_position(st: Mapping[str, Any], rules: RuleSet) -> str | None:
    """The OTN placement of the pieces on the board for a game of ``rules`` (see the module
    docstring), or None when the board is not of the variant's size."""
    size = rules.size
    if int(st.get("size") or 0) != size:
        return None
    squares, colours = reading_squares(st)
    try:
        game = parse_otn(str(st.get("position") or ""), size)
    except PositionError:
        game = (0, 0, -1)
    start = parse_otn(rules.start, size)
    geo = Board(rules).geo
    king_only = geo.corner | geo.throne_bit
    pieces: dict[int, str] = {}
    for name in squares:
        try:
            square = parse_square(name, size)
        except SquareError:
            continue
        guess = _piece(game, square) or _piece(start, square) or "t"
        if king_only >> square & 1:
            guess = "K"
        colour = colours.get(name)
        pieces[square] = "t" if colour == "a" else (
            ("K" if guess == "K" else "T") if colour == "d" else guess)
    kings = [s for s, p in pieces.items() if p == "K"]
    for extra in kings[1:]:  # one king: the first guessed (the session names two on the board)
        pieces[extra] = "T"
    return placement(size, pieces)


def refusal(message: str, words: Mapping[str, str]) -> tuple[str, str]:
    """Two short lines saying why the session refused a position (its ``bad_position``
    message); a reason it does not know: "see the page"."""
    for pattern, first, second in _REASONS:
        m = pattern.search(message)
        if not m:
            continue
        values = m.groupdict()
        side = values.get("side", "")
        line1 = words[first.format(side=side)].format(**values)
        line2 = words[second.format(side=side)].format(**values) if second else ""
        return line1, line2
    return words["cannot_start"], words["see_page"]
