"""Square names as a voice says them, per language.

A square written ``d7`` read out by a speech synthesiser as it stands is easily misheard
("the seven"; in English the file ``a`` is read as the article), and tafl files go up to ``s``
on 19x19 boards. So every file letter is spelled as the letter's own name in the language, and
the rank as a number word the synthesiser reads as a number:

>>> spoken_square("d7", "en")
'dee 7'
>>> spoken_square("a11", "en")
'ay 11'
>>> spoken_square("e5", "de")
'eh 5'
>>> spoken_text("Computer: e7 to c7, captures d7.", "en")
'Computer: ee 7 to see 7, captures dee 7.'
"""

from __future__ import annotations

import re

#: File letters a-s (19x19 boards) as their names are said, per language.
LETTER_NAMES: dict[str, dict[str, str]] = {
    "en": {"a": "ay", "b": "bee", "c": "see", "d": "dee", "e": "ee", "f": "ef", "g": "gee",
           "h": "aitch", "i": "eye", "j": "jay", "k": "kay", "l": "el", "m": "em", "n": "en",
           "o": "oh", "p": "pee", "q": "cue", "r": "ar", "s": "ess"},
    "de": {"a": "ah", "b": "beh", "c": "zeh", "d": "deh", "e": "eh", "f": "eff", "g": "geh",
           "h": "hah", "i": "ih", "j": "jott", "k": "kah", "l": "ell", "m": "emm", "n": "enn",
           "o": "oh", "p": "peh", "q": "kuh", "r": "err", "s": "ess"},
}
LANGUAGES = tuple(LETTER_NAMES)

# a square name standing alone: a file letter a-s and a rank 1-19 (not inside a word or a
# longer number, so "level 10" or "h6-h4" are read right: the dash splits the two squares)
_SQUARE = re.compile(r"(?<![A-Za-z0-9])([a-s])(1[0-9]|[1-9])(?![0-9A-Za-z])")


def spoken_square(name: str, lang: str = "en") -> str:
    """``name`` (``"d7"``) as the voice says it in ``lang``; ValueError for a non-square.

    >>> spoken_square("s19", "en")
    'ess 19'
    >>> spoken_square("z1")
    Traceback (most recent call last):
    ...
    ValueError: not a square name: 'z1'
    """
    m = _SQUARE.fullmatch(name)
    if m is None:
        raise ValueError(f"not a square name: {name!r}")
    return f"{LETTER_NAMES[lang][m.group(1)]} {m.group(2)}"


def spoken_text(text: str, lang: str = "en") -> str:
    """``text`` with every square name spelled for the voice (``lang``: en or de); a move
    ``d1-d4`` reads "dee 1 to dee 4" once the dash is a word (the sentences write "to").

    >>> spoken_text("h6-h4", "de")
    'hah 6 bis hah 4'
    """
    letters = LETTER_NAMES[lang]
    to = " to " if lang == "en" else " bis "
    text = re.sub(r"(?<=[0-9])-(?=[a-s][0-9])", to, text)
    return _SQUARE.sub(lambda m: f"{letters[m.group(1)]} {m.group(2)}", text)
