"""The names of the sides and the pieces, in English and German: the one table the board's
display (:mod:`companion.panel.words`), the voice (:mod:`companion.voice.sentences`) and the
tracker's English sentences (:mod:`companion.messages`) take them from. It imports nothing of
the project, so that every part may use it (the voice may not import the session, which the
display's package does)."""

from __future__ import annotations

#: side (``attackers``/``defenders``) -> its name inside a sentence, per language
SIDES: dict[str, dict[str, str]] = {
    "en": {"attackers": "attackers", "defenders": "defenders"},
    "de": {"attackers": "Angreifer", "defenders": "Verteidiger"},
}

#: piece (OTN letter: ``t`` attacker, ``T`` defender, ``K`` king) -> its name, per language
PIECES: dict[str, dict[str, str]] = {
    "en": {"t": "attacker", "T": "defender", "K": "king"},
    "de": {"t": "Angreifer", "T": "Verteidiger", "K": "König"},
}


def names(lang: str) -> dict[str, str]:
    """The sides' and pieces' names in ``lang`` (English for another language): the sides as
    inside a sentence (``attackers``) and, under their capitalised key (``Attackers``), as a
    sentence starts; the pieces under their OTN letters.

    >>> names("de")["Attackers"], names("en")["Attackers"], names("en")["K"]
    ('Angreifer', 'Attackers', 'king')
    """
    sides = SIDES.get(lang, SIDES["en"])
    starts = {side.capitalize(): name[:1].upper() + name[1:] for side, name in sides.items()}
    return {**sides, **starts, **PIECES.get(lang, PIECES["en"])}
