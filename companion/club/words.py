"""The room page's words in English and German (the page's own small catalogue: the room is a
separate app from the board's page; the language is chosen as there: ``?lang=``, the
``tafl-lang`` cookie, then Accept-Language)."""

from __future__ import annotations

#: English -> German. Keys are the English text the page shows.
GERMAN: dict[str, str] = {
    "Tournament room": "Turniersaal",
    "Club": "Verein",
    "All boards": "Alle Bretter",
    "Attackers": "Angreifer",
    "Defenders": "Verteidiger",
    "to move": "am Zug",
    "Attackers win": "Angreifer gewinnen",
    "Defenders win": "Verteidiger gewinnen",
    "Draw": "Remis",
    "Ongoing": "Läuft",
    "Finished": "Beendet",
    "Last move": "Letzter Zug",
    "Moves": "Züge",
    "Move": "Zug",
    "offline": "nicht verbunden",
    "No board has published a game yet.": "Noch kein Brett hat eine Partie veröffentlicht.",
    "Waiting for the broker…": "Warte auf den Broker …",
    "The room has lost the club's broker (its own link is down): reconnecting. The boards "
    "below may be out of date.":
        "Der Turniersaal hat die Verbindung zum Broker des Vereins verloren und verbindet sich "
        "neu. Die Bretter unten sind womöglich nicht aktuell.",
    "This page has lost the room's server: reconnecting.":
        "Die Seite hat die Verbindung zum Server des Turniersaals verloren und verbindet sich "
        "neu.",
    "This board's state cannot be shown.": "Der Stand dieses Bretts kann nicht angezeigt werden.",
    "Review": "Nachspielen",
    "Start": "Anfang",
    "Back": "Zurück",
    "Forward": "Vor",
    "End": "Ende",
    "Live": "Live",
    "Game": "Partie",
    "reason": "Grund",
    "Language": "Sprache",
}

WORDS = {"en": {k: k for k in GERMAN}, "de": GERMAN}


def words(lang: str) -> dict[str, str]:
    """Every word of the page in ``lang`` (English when there is no such catalogue)."""
    return WORDS.get(lang, WORDS["en"])
