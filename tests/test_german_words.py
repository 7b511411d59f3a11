"""The German catalogue read as a native speaker reads it (issue 26, 15): the rules of
docs/glossary.md that a test can check, over the page's catalogue and the display's words."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

from companion.panel.words import WORDS

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "companion/i18n/locales/de/LC_MESSAGES/messages.po"


def entries() -> list[tuple[str, list[str]]]:
    with PO.open("rb") as f:
        cat = read_po(f)
    out = []
    for m in cat:
        if not m.id:
            continue
        mid = m.id if isinstance(m.id, str) else m.id[0]
        strings = list(m.string) if isinstance(m.string, (list, tuple)) else [m.string]
        out.append((mid, [s or "" for s in strings]))
    return out


GEOMETRY = re.compile(r"(four|three other|all four) sides|sides of", re.I)


def test_a_side_of_the_game_is_a_partei_never_a_seite() -> None:
    """"Seite" is a web page (or a square's side); the attackers or the defenders are a
    "Partei": "Deine Seite", "Seiten tauschen", "Die Seite am Zug" read as a page."""
    wrong = [(mid, s) for mid, ss in entries() for s in ss
             if re.search(r"\bsides?\b", mid) and not GEOMETRY.search(mid)
             and re.search(r"\bSeiten?\b", s)]
    assert wrong == []
    assert not [s for s in WORDS["de"].values() if re.search(r"(?<!Web)[Ss]eite", s)]


AVOID = {  # what the glossary says not to write, and why
    r"\bGrundstellung\b": "the start position is the Ausgangsstellung",
    r"\bunentschieden\b": "a draw is Remis",
    r"feste Bedenkzeit": "sudden death is ohne Zeitzuschlag",
    r"\bSteine verloren\b": "an evaluation is 'um … Steine schlechter', not pieces lost",
    r"^(Frage|[Vv]erbinde|Warte)\b": "a status line describes, it does not command",
    r"\ban sie\.": "daran, for a thing",
    r"^Gespielt\b": "the verb goes last: '… gespielt'",
    r"ist schon angeboten": "wurde schon angeboten",
    r"(Ein Stein|Der König) ist geschlagen, wenn": "a rule: wird geschlagen",
    r"^live$": "verbunden",
}


def test_the_glossary_is_followed() -> None:
    found = [(why, mid, s) for mid, ss in entries() for s in ss
             for pattern, why in AVOID.items() if re.search(pattern, s)]
    assert found == []


def test_the_words_a_native_reader_stumbled_on() -> None:
    de = {mid: ss for mid, ss in entries()}
    assert de["Abandon this game and play {board}'s?"] == [
        "Diese Partie abbrechen und die von {board} spielen?"]
    assert de["Proposed to {board}: the game starts when {board} agrees."][0].startswith(
        "An {board} vorgeschlagen: ")
    assert de["Played {time} after the previous move."] == ["{time} nach dem vorigen Zug gespielt."]
    assert de["found from the file"] == ["aus der Datei erkannt"]
    assert de["loses for the defenders"] == ["die Verteidiger verlieren"]
    assert de["computer, level {n} ({name})"] == ["Stufe {n} ({name})"]  # not "Computer Computer"
    assert de["Match over: drawn"] == ["Match beendet: Remis"]
    assert WORDS["de"]["from_start"] == "Ausgangsstellung"
    assert WORDS["de"]["setup_1"] == "1 Feld falsch"
    assert "halten: neu" not in WORDS["de"]["new_game"] and WORDS["de"]["not_saving"] != \
        "Speicher fehlt"


def test_the_glossary_is_in_the_docs() -> None:
    text = (ROOT / "docs/glossary.md").read_text()
    for word in ("Partei", "Ausgangsstellung", "Remis", "Seite", "abbrechen"):
        assert word in text
