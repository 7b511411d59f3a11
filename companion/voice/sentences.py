"""What the voice says, as data first: sentences chosen from what changed between two published
states of the session (the same document the page and the display read), in English or German.

Nothing here speaks or waits: :class:`Narrator` turns ``(before, now)`` into
:class:`Utterance`s, which the speaker (:mod:`companion.voice.speaker`) says in order. The
sentences name squares as letters and digits (``e7``); the speaker spells them for the
synthesiser (:mod:`companion.voice.names`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.side_words import names

State = Mapping[str, Any]  # the session's published state (JSON: /api/state)

#: Low-time warnings, seconds left on the clock of the side to move.
LOW_TIME = (60.0, 10.0)

T: dict[str, dict[str, str]] = {
    "en": {
        **names("en"),  # the sides and the pieces
        "computer": "Computer", "engine": "The engine", "online": "{name}", "club": "{name}",
        "page": "{name}", "puzzle": "Puzzle",
        "make": "{who}: {frm} to {to}.", "make_captures": "{who}: {frm} to {to}, captures {caps}.",
        "played": "{frm} to {to}.", "played_captures": "{frm} to {to}, captures {caps}.",
        "lift": "Lift the captured {pieces}.",
        "put_back": "Put back the captured {pieces}.",
        "illegal": "Illegal: {why} Put it back on {back}.",
        "illegal_short": "Illegal move. Put it back on {back}.",
        "wrong_piece": "Put the {piece} back on {wrong}. The move to make is {frm} to {to}.",
        "setup_move": "Move the {piece} from {frm} back to {to}.",
        "setup_place": "Place the {piece} on {square}.",
        "setup_clear": "Clear {square}.",
        "setup_many": "Set up the board: {n} squares to fix.",
        "hint": "Hint: {frm} to {to}.",
        "minute": "{side}: one minute left.", "seconds": "{side}: ten seconds left.",
        "clocks": "Attackers {a}. Defenders {d}.",
        "win": "{side} win: {why}.", "draw": "Draw: {why}.",
        "match": "Match score: {score}.",
        "to_move": "{side} to move.",
        "page_at": "The board's page is at {url}.",
        "nothing": "Nothing said yet.",
        "pieces_on": "{what} on {squares}", "and": "and",
        "king_lines": "The king on {square} has free lines to {ends}.",
        "king_no_lines": "The king on {square} has no free line to an edge.",
        "coach_escape_1": "Careful: {frm} to {to} lets the king reach {square} at once.",
        "coach_escape": "Careful: {frm} to {to} lets the king reach {square} in {n} moves.",
        "coach_capture_1": "Careful: {frm} to {to} lets the attackers capture the king at once.",
        "coach_capture": "Careful: {frm} to {to} lets the attackers capture the king in {n} "
                         "moves.",
        "coach_loss": "Careful: {frm} to {to} loses by force in {n} moves.",
        "coach_drop": "Careful: {frm} to {to} costs about {drop} soldiers.",
        "coach_back": "You can take it back.",
        "pz_right": "Right.", "pz_solved": "Solved!", "pz_wrong": "Wrong.",
        "pz_answer": "The puzzle answers {frm} to {to}: {why}.",
        "pz_escape": "the king escapes", "pz_capture": "the king is captured",
        "pz_win": "the other side wins", "pz_holds": "the goal can no longer be reached",
        "pz_solution": "The right move was {frm} to {to}.",
    },
    "de": {
        **names("de"),
        "computer": "Computer", "engine": "Die Engine", "online": "{name}", "club": "{name}",
        "page": "{name}", "puzzle": "Rätsel",
        "make": "{who}: {frm} nach {to}.",
        "make_captures": "{who}: {frm} nach {to}, schlägt {caps}.",
        "played": "{frm} nach {to}.", "played_captures": "{frm} nach {to}, schlägt {caps}.",
        "lift": "Nimm den geschlagenen {pieces} vom Brett.",
        "put_back": "Stelle den geschlagenen {pieces} zurück.",
        "illegal": "Ungültig: {why} Stelle den Stein zurück auf {back}.",
        "illegal_short": "Ungültiger Zug. Stelle den Stein zurück auf {back}.",
        "wrong_piece": "Stelle den {piece} zurück auf {wrong}. Zu ziehen ist {frm} nach {to}.",
        "setup_move": "Ziehe den {piece} von {frm} zurück nach {to}.",
        "setup_place": "Stelle einen {piece} auf {square}.",
        "setup_clear": "Räume {square}.",
        "setup_many": "Stelle das Brett auf: {n} Felder sind zu richten.",
        "hint": "Tipp: {frm} nach {to}.",
        "minute": "{side}: noch eine Minute.", "seconds": "{side}: noch zehn Sekunden.",
        "clocks": "Angreifer {a}. Verteidiger {d}.",
        "win": "Die {side} gewinnen: {why}.", "draw": "Remis: {why}.",
        "match": "Stand im Match: {score}.",
        "to_move": "{side} am Zug.",
        "page_at": "Die Webseite des Bretts ist unter {url}.",
        "nothing": "Noch nichts gesagt.",
        "pieces_on": "{what} auf {squares}", "and": "und",
        "king_lines": "Der König auf {square} hat freie Linien nach {ends}.",
        "king_no_lines": "Der König auf {square} hat keine freie Linie zum Rand.",
        "coach_escape_1": "Vorsicht: Nach {frm} nach {to} erreicht der König sofort {square}.",
        "coach_escape": "Vorsicht: Nach {frm} nach {to} erreicht der König {square} in {n} "
                        "Zügen.",
        "coach_capture_1": "Vorsicht: Nach {frm} nach {to} schlagen die Angreifer den König "
                           "sofort.",
        "coach_capture": "Vorsicht: Nach {frm} nach {to} schlagen die Angreifer den König in "
                         "{n} Zügen.",
        "coach_loss": "Vorsicht: {frm} nach {to} verliert zwingend in {n} Zügen.",
        "coach_drop": "Vorsicht: Mit {frm} nach {to} steht deine Partei um etwa {drop} Steine "
                      "schlechter.",
        "coach_back": "Du kannst den Zug zurücknehmen.",
        "pz_right": "Richtig.", "pz_solved": "Gelöst!", "pz_wrong": "Falsch.",
        "pz_answer": "Das Rätsel antwortet {frm} nach {to}: {why}.",
        "pz_escape": "der König entkommt", "pz_capture": "der König wird gefangen",
        "pz_win": "die andere Partei gewinnt", "pz_holds": "das Ziel ist nicht mehr zu erreichen",
        "pz_solution": "Richtig war {frm} nach {to}.",
    },
}

#: Why a game ended (the state's ``reason``), per language.
WHY: dict[str, dict[str, str]] = {
    "en": {"king_captured": "the king is captured", "escape": "the king escaped",
           "exit_fort": "the king built an exit fort",
           "encirclement": "the attackers encircled every defender",
           "repetition": "the position occurred a third time",
           "no_moves": "the side to move has no legal move",
           "agreement": "both players agreed", "resignation": "the other side resigned",
           "resign": "the other side resigned", "time": "the other side ran out of time"},
    "de": {"king_captured": "der König ist gefangen", "escape": "der König ist entkommen",
           "exit_fort": "der König hat eine Randfestung gebaut",
           "encirclement": "die Angreifer haben alle Verteidiger eingeschlossen",
           "repetition": "die Stellung kam zum dritten Mal vor",
           "no_moves": "die Partei am Zug kann nicht ziehen",
           "agreement": "beide Spieler sind einverstanden",
           "resignation": "die andere Partei hat aufgegeben",
           "resign": "die andere Partei hat aufgegeben",
           "time": "die Zeit der anderen Partei ist abgelaufen"},
}

#: Why a move is illegal (the guidance's ``code``), short, per language.
ILLEGAL_WHY: dict[str, dict[str, str]] = {
    "en": {"game_over": "the game is over.", "no_piece": "there is no piece on {square}.",
           "not_your_turn": "it is the {turn}' turn.", "did_not_move": "the piece did not move.",
           "occupied": "{square} is occupied.", "diagonal": "pieces move in straight lines.",
           "jump": "the piece cannot jump over {square}.",
           "corner_pass": "nobody may pass through the corner {square}.",
           "throne_pass": "this piece may not pass through the throne.",
           "corner_stop": "only the king may stop on the corner {square}.",
           "throne_return": "the king may not return to the throne.",
           "throne_stop": "only the king may stop on the throne.",
           "not_legal": "that move is not legal.", "off_board": "the move leaves the board.",
           "not_the_move_to_make": "that is not the move to make.",
           "moved_too_early": "the other side's move was not finished."},
    "de": {"game_over": "die Partie ist vorbei.", "no_piece": "auf {square} steht kein Stein.",
           "not_your_turn": "die {turn} sind am Zug.",
           "did_not_move": "der Stein hat sich nicht bewegt.",
           "occupied": "{square} ist besetzt.", "diagonal": "Steine ziehen nur gerade.",
           "jump": "der Stein kann nicht über {square} springen.",
           "corner_pass": "niemand darf durch die Ecke {square} ziehen.",
           "throne_pass": "dieser Stein darf nicht über den Thron ziehen.",
           "corner_stop": "nur der König darf auf der Ecke {square} stehen.",
           "throne_return": "der König darf nicht auf den Thron zurück.",
           "throne_stop": "nur der König darf auf dem Thron stehen.",
           "not_legal": "dieser Zug ist nicht erlaubt.",
           "off_board": "der Zug verlässt das Brett.",
           "not_the_move_to_make": "das ist nicht der Zug, der zu machen ist.",
           "moved_too_early": "der Zug der anderen Partei war noch nicht fertig."},
}


@dataclass(frozen=True)
class Utterance:
    """One sentence to say: ``kind`` says what it is about (a newer ``make`` replaces an older
    one not yet said), ``text`` the words with squares as letters and digits."""

    kind: str
    text: str


def words(lang: str) -> Mapping[str, str]:
    return T.get(lang, T["en"])


def join(items: Sequence[str], lang: str) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {words(lang)['and']} " + items[-1]


def pieces_text(squares: Sequence[str], pieces: Sequence[str], lang: str) -> str:
    """``defender on h10`` / ``attackers on c3 and e3`` (one word per kind, as the page)."""
    w = words(lang)
    by: dict[str, list[str]] = {}
    for s, p in zip(squares, pieces, strict=False):
        by.setdefault(p, []).append(s)
    parts = []
    for p, sqs in by.items():
        what = w.get(p, p)
        if lang == "en" and len(sqs) > 1 and p != "K":
            what += "s"
        parts.append(w["pieces_on"].format(what=what, squares=join(sqs, lang)))
    return join(parts, lang)


def who_word(mtm: State, st: State, lang: str) -> str:
    w = words(lang)
    by = str(mtm.get("by") or "")
    side = str(mtm.get("side") or st.get("turn") or "")
    name = str(((st.get("players") or {}).get(side) or {}).get("name") or w.get(side, side))
    return w.get(by, "{name}").format(name=name)


def clock_text(seconds: float) -> str:
    """``4:07`` (minutes and seconds; under ten seconds with tenths: ``9.4``)."""
    seconds = max(0.0, seconds)
    if seconds < 10:
        return f"{seconds:.1f}"
    m, s = divmod(int(seconds), 60)
    return f"{m}:{s:02d}"
