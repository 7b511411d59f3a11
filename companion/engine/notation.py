"""OTN move texts as OTEP carries them: simple (``a4-d4``) or full (``Ka4-d4xd5/d3--``).

One reader for the engine, the host and the search position, so that they agree on what a
move text says.
"""

from __future__ import annotations

# OTN's piece letters: the king, defender and attacker soldiers, and the special pieces of
# exotic variants (commander, knight, mercenary, guard) in both colours
PIECE_LETTERS = frozenset("KTtCcNnMmGg")
# file letters of boards up to 19x19
FILE_LETTERS = frozenset("abcdefghijklmnopqrs")


def simple_move(text: str) -> str:
    """``a4-d4`` from a simple or full OTN move: the piece letter, the captures (after ``x``)
    and the marks (``+``, ``-``, ``++``, ``--``) are dropped.

    A leading letter is a piece letter only when a file letter follows it: ``g3-g2`` is a move
    from the g file, ``tg3-g2`` an attacker's move from g3 (``c``, ``g``, ``m`` and ``n`` are
    both piece and file letters)."""
    body = text.strip()
    if len(body) > 1 and body[0] in PIECE_LETTERS and body[1] in FILE_LETTERS:
        body = body[1:]
    return body.split("x", 1)[0].rstrip("+-")
