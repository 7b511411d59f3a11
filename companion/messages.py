"""English sentences for the tracker's structured events and guidance, made at the edge.

The tracker describes everything as data: a kind or a stable ``code`` plus squares, pieces and
sides (docs/events.md lists them all). This module turns that data into the English the log,
the replay command and ``tracker.message`` show; the page renders the same data in the viewer's
language from its own catalogues. Pieces are OTN letters (``t`` attacker, ``T`` defender, ``K``
king); sides are ``attackers``/``defenders``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .rules.board import ILLEGAL_TEXT
from .rules.outcome import REASON_TEXT
from .side_words import PIECES

PIECE_WORD = PIECES["en"]
COLOUR_WORD = {"a": "an attacker", "d": "a defender"}

#: Why a check of the pieces' kinds is asked (``check_pieces`` guidance) -> how it starts.
CHECK_TEXT = {
    "setup": "The board is set up: check the pieces",
    "resume": "The game goes on: check the pieces",
    "takeback": "After the takeback, check the pieces",
}

#: Why the session suspended the tracker (``tracker.suspend(reason)``) -> English; any other
#: reason text is shown as it is.
SUSPEND_TEXT = {
    "storage": "moves cannot be saved (the store is failing)",
}


# -- words ----------------------------------------------------------------------------------
def side_word(side: str) -> str:
    """``"Attackers"`` / ``"Defenders"``."""
    return side.capitalize()


def join(words: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def article(word: str) -> str:
    """``an attacker``, ``a defender``, ``the king``."""
    if word == "king":
        return "the king"
    return ("an " if word[0] in "aeiou" else "a ") + word


def pieces_on(pieces: Mapping[str, str]) -> str:
    """``attacker on e2``, ``attackers on e2 and g4``, ``king on f6``; mixed kinds are listed one
    by one (``pieces``: square -> piece letter)."""
    kinds = {PIECE_WORD[p] for p in pieces.values()}
    squares = sorted(pieces)
    if len(kinds) == 1:
        word = kinds.pop()
        plural = len(squares) > 1 and word != "king"
        return f"{word}{'s' if plural else ''} on {join(squares)}"
    return join(f"{PIECE_WORD[pieces[s]]} on {s}" for s in squares)


def _pairs(data: Mapping[str, Any]) -> dict[str, str]:
    """The ``squares``/``pieces`` lists of a data dict as square -> piece."""
    return dict(zip(data["squares"], data["pieces"]))


def setup_message(fill: Mapping[str, str], clear: Iterable[str],
                  recolour: Mapping[str, str],
                  back: Iterable[Mapping[str, str]] = ()) -> str:
    """Guidance to make the board match a position: ``fill`` maps squares to the piece letter to
    place there, ``clear`` squares to empty, ``recolour`` squares holding the wrong kind of piece
    (square -> the piece letter that belongs there); ``back``: pieces a takeback carries home
    (``piece``, ``from``, ``to``), said first as moves (their squares are not repeated)."""
    carried = list(back)
    parts = [f"move the {PIECE_WORD[b['piece']]} from {b['from']} back to {b['to']}"
             for b in carried]
    fill = {s: p for s, p in fill.items() if not any(b["to"] == s for b in carried)}
    clear = sorted(s for s in clear if not any(b["from"] == s for b in carried))
    if len(fill) > 6:
        counts: dict[str, int] = {}
        for p in fill.values():
            counts[p] = counts.get(p, 0) + 1
        words = []
        for p in ("t", "T", "K"):
            n = counts.get(p, 0)
            if n:
                w = PIECE_WORD[p]
                words.append(article(w) if n == 1 else f"{n} {w}s")
        parts.append(f"place {join(words)} on the lit squares")
    else:
        by_kind: dict[str, list[str]] = {}
        for sq, p in sorted(fill.items()):
            by_kind.setdefault(p, []).append(sq)
        for p, squares in by_kind.items():
            w = PIECE_WORD[p]
            what = article(w) if len(squares) == 1 else f"{w}s"
            parts.append(f"place {what} on {join(squares)}")
    if clear:
        parts.append(f"clear {join(clear) if len(clear) <= 6 else f'{len(clear)} lit squares'}")
    for sq, p in sorted(recolour.items()):
        parts.append(f"{sq} should hold {article(PIECE_WORD[p])}")
    return ("Takeback: " if carried else "Setup: ") + "; ".join(parts)


def termination_text(reason: str) -> str:
    """``the king escaped``: why a game ended (a Termination value; others verbatim)."""
    return REASON_TEXT.get(reason, reason)


# -- faults (illegal and warning events) -----------------------------------------------------
def _move_reason(code: str, d: Mapping[str, Any]) -> str:
    """Why one piece may not stand where it was put (the single-move codes)."""
    if code == "not_your_turn":
        return f"it is the {d['turn']}' turn, and that piece belongs to the {d['side']}"
    if code == "not_the_move_to_make":
        return f"that is not the move to make: {d['expected_from']} to {d['expected_to']}"
    if code == "wrong_piece_placed":
        return (f"the piece put on {d['to']} is {COLOUR_WORD[d['colour']]}, but "
                f"{article(PIECE_WORD[d['piece']])} left {d['from']}")
    if code == "moved_too_early":
        return "the piece was moved before the other side's move was finished"
    return ILLEGAL_TEXT[code].format(**d)


def fault_reason(code: str, data: Mapping[str, Any]) -> str:
    """The ``reason`` of an ``illegal`` or ``warning`` event: what happened."""
    d = data
    if code == "capture_pending":
        return f"the {d['turn']} moved before the captured {pieces_on(_pairs(d))} was removed"
    if code == "several_pieces":
        return "several pieces moved at once"
    if code == "lifted_before_captures_removed":
        return (f"the {d['turn']} started moving before the captured {pieces_on(_pairs(d))} "
                "was removed")
    if code == "wrong_piece_lifted":
        return (f"wrong piece lifted: the {PIECE_WORD[d['piece']]} on {d['square']} was not "
                "captured")
    if code == "lifted_out_of_turn":
        return f"the {PIECE_WORD[d['piece']]} on {d['square']} was lifted out of turn"
    if code == "unexpected_piece":
        return f"unexpected piece on {join(d['squares'])}"
    if code == "pieces_missing":
        return f"pieces missing from {join(d['squares'])}"
    if code == "knocked":
        knocks = d["knocks"]
        if len(knocks) == 1:
            (k,) = knocks
            return f"{article(PIECE_WORD[k['piece']])} was knocked from {k['from']} to {k['to']}"
        return f"pieces knocked from {join(sorted(k['from'] for k in knocks))}"
    if code == "wrong_colour":
        return f"wrong kind of piece on {join(d['squares'])}"
    return _move_reason(code, d)


def fault_message(kind: str, code: str, data: Mapping[str, Any]) -> str:
    """The guidance shown while an ``illegal`` or ``warning`` fault stands: what to do."""
    d = data
    if code == "capture_pending":
        return (f"Illegal: remove the captured {pieces_on(_pairs(d))} first, or put the piece "
                f"back on {d['from']}")
    if code == "several_pieces":
        back = join(f"the {PIECE_WORD[p]} on {s}" for s, p in zip(d["squares"], d["pieces"]))
        return f"Illegal: several pieces moved — put back {back}; clear {join(d['new'])}"
    if code == "lifted_before_captures_removed":
        return f"Remove the captured {pieces_on(_pairs(d))} first"
    if code == "wrong_piece_lifted":
        return (f"Wrong piece: put the {PIECE_WORD[d['piece']]} back on {d['square']}, then "
                f"lift the captured {pieces_on(_pairs(d))}")
    if code == "lifted_out_of_turn":
        return (f"Put the {PIECE_WORD[d['piece']]} back on {d['square']} — "
                f"{side_word(d['turn'])} to move")
    if code == "unexpected_piece":
        return f"Clear {join(d['squares'])}: no piece belongs there"
    if code == "pieces_missing":
        back = join(f"the {PIECE_WORD[p]} on {s}" for s, p in zip(d["squares"], d["pieces"]))
        return f"Put back {back}"
    if code == "knocked":
        knocks = d["knocks"]
        if len(knocks) == 1:
            (k,) = knocks
            return (f"Knocked piece: put the {PIECE_WORD[k['piece']]} from {k['to']} back on "
                    f"{k['from']}")
        what = join(f"the {PIECE_WORD[k['piece']]} from {k['to']} back on {k['from']}"
                    for k in knocks)
        return f"Knocked pieces: put {what}"
    if code == "wrong_colour":
        parts = [f"{s} should hold {article(PIECE_WORD[p])}"
                 for s, p in zip(d["squares"], d["pieces"])]
        lead = "Swapped pieces? " if len(parts) == 2 else "Wrong piece: "
        return lead + "; ".join(parts)
    return f"Illegal: {_move_reason(code, d)} — put the piece back on {d['from']}"


# -- guidance ---------------------------------------------------------------------------------
def guidance_text(guidance: Any) -> str:
    """The English sentence for a :class:`~companion.tracker.events.Guidance` (or its JSON)."""
    g = guidance.to_json() if hasattr(guidance, "to_json") else dict(guidance)
    kind = g["kind"]
    if kind == "waiting":
        return "Waiting for the board"
    if kind == "setup":
        return setup_message(g["fill"], g["clear"], g["recolour"], g.get("back") or ())
    if kind == "setup_complete":
        return "Setup complete"
    if kind == "to_move":
        return f"{side_word(g['side'])} to move"
    if kind == "lifted":
        return f"{side_word(g['side'])} to move: {PIECE_WORD[g['piece']]} from {g['square']}"
    if kind == "moving_again":
        return f"Moving the {PIECE_WORD[g['piece']]} from {g['square']} again"
    if kind == "make_move":
        word = PIECE_WORD[g["piece"]]
        if g.get("wrong"):
            return (f"Put the {PIECE_WORD[g['wrong_piece']]} back on {g['wrong']}: the move "
                    f"to make is {g['from']} to {g['to']}")
        if g.get("lifted"):
            return f"Put the {word} on {g['to']}"
        return f"Move the {word} from {g['from']} to {g['to']}"
    if kind == "lift_captured":
        return f"Lift the captured {pieces_on(_pairs(g))}"
    if kind == "takeback":
        return f"Takeback: put the captured {pieces_on(_pairs(g))} back"
    if kind in ("illegal", "warning"):
        return fault_message(kind, g["code"], g)
    if kind == "game_over":
        winner = g["winner"]
        head = "Draw" if winner is None else f"{side_word(winner)} win"
        text = f"Game over: {head} ({termination_text(g['reason'])})"
        if g["squares"]:
            text += f" — lift the captured {pieces_on(_pairs(g))}"
        return text
    if kind == "check_pieces":
        lead = CHECK_TEXT.get(g.get("reason", ""), "Check the pieces")
        pieces = _pairs(g)
        defenders = sorted(s for s, p in pieces.items() if p == "T")
        kings = [s for s, p in pieces.items() if p == "K"]
        parts = ([f"defender{'s' if len(defenders) > 1 else ''} on {join(defenders)}"]
                 if defenders else []) + [f"the king on {s}" for s in kings]
        return (f"{lead}: {', '.join(parts) or 'no defenders'}; every other piece is an attacker. "
                f"{side_word(g['side'])} to move")
    if kind == "reading":
        n = len(g["squares"])
        return (f"Set up any position: {n} piece{'s' if n != 1 else ''} on the board; say on "
                "the page which is which and who moves")
    if kind == "suspended":
        reason = g.get("reason") or ""
        return f"Paused: {SUSPEND_TEXT.get(reason, reason)}. No move is accepted until then"
    raise ValueError(f"unknown guidance kind {kind!r}")

