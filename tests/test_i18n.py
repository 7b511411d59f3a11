"""The page's languages: the catalogues are complete and current with the sources, their
placeholders match, the language is negotiated as documented, and the server serves them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from werkzeug.datastructures import LanguageAccept

from companion import i18n

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def source_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every marked string in the page's sources, as pybabel extracts."""
    method_map = [("companion/web/static/**.js", "javascript"),
                  ("companion/web/templates/**.html", "jinja2")]
    keywords = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
    options = {"companion/web/static/**.js": {"parse_template_string": "true"}}
    out = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options, keywords=keywords):
        out.add((context, message[0] if isinstance(message, tuple) else message))
    return out


def template() -> set[tuple[str | None, str]]:
    with (i18n.HERE / "messages.pot").open("rb") as fh:
        pot = read_po(fh)
    return {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in pot if m.id}


def test_the_template_is_current_with_the_sources() -> None:
    extracted, pot = source_messages(), template()
    assert extracted - pot == set(), "run pybabel extract (docs/page.md)"
    assert pot - extracted == set(), "stale entries: run pybabel extract (docs/page.md)"


def test_no_marked_string_escapes_extraction() -> None:
    """pybabel cannot see _() inside `${...}` of a template literal: every literal first argument
    of _(), N_() and ngettext() in the scripts must be in the template."""
    pot = {msgid for _, msgid in template()}
    call = re.compile(r"\b(?:_|N_|ngettext)\(\"((?:[^\"\\]|\\.)*)\"")
    for path in (ROOT / "companion/web/static").glob("*.js"):
        for text in call.findall(path.read_text(encoding="utf-8")):
            if text == "...":
                continue  # the example in core.js's header comment
            assert text.encode().decode("unicode_escape") in pot or text in pot, (path.name, text)


@pytest.mark.parametrize("lang", [code for code in i18n.languages() if code != "en"])
def test_every_language_is_complete_and_keeps_placeholders(lang: str) -> None:
    path = i18n.LOCALES / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as fh:
        po = read_po(fh, locale=lang)
    ids = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in po if m.id}
    assert template() <= ids, f"{lang}: run pybabel update (docs/page.md)"
    for m in po:
        if not m.id:
            continue
        assert not m.fuzzy, (lang, m.id)
        sources = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strings), f"{lang}: no translation for {m.id!r}"
        want = set(PLACEHOLDER.findall(sources[-1]))
        for s in strings:
            assert set(PLACEHOLDER.findall(s)) <= set(PLACEHOLDER.findall(" ".join(sources))), \
                (lang, m.id, s)
            if "n" not in want:
                assert set(PLACEHOLDER.findall(s)) == want, (lang, m.id, s)


def test_german_catalogue_and_plurals() -> None:
    de = i18n.catalogue("de")
    assert de.name == "Deutsch"
    assert de.gettext("Attackers to move") == "Angreifer am Zug"
    assert de.ngettext("{n} move", "{n} moves", 1) == "{n} Zug"
    assert de.ngettext("{n} move", "{n} moves", 2) == "{n} Züge"
    assert de.plural == {"one": 0, "other": 1}
    assert de.script.startswith(b"window.TAFL_I18N=") and b"Angreifer am Zug" in de.script
    en = i18n.catalogue("en")
    assert en.gettext("Attackers to move") == "Attackers to move" and en.messages == {}


@pytest.mark.parametrize(("query", "cookie", "accept", "want"), [
    (None, None, "de-DE,de;q=0.9,en;q=0.8", "de"),
    (None, None, "en-GB,en;q=0.9", "en"),
    (None, None, "fr-FR,fr;q=0.9", "en"),          # nothing matches: English
    (None, None, "fr-FR,de;q=0.5", "de"),
    (None, "en", "de-DE", "en"),                   # the page's switch beats the browser
    ("de", "en", "en-US", "de"),                   # ?lang= beats both
    ("xx", None, "de", "de"),                      # unknown wishes are ignored
    (None, None, "", "en"),
])
def test_language_negotiation(query, cookie, accept, want) -> None:
    header = LanguageAccept(
        [(p.split(";")[0].strip(), float(p.split("q=")[1]) if "q=" in p else 1.0)
         for p in accept.split(",") if p.strip()])
    assert i18n.choose(query, cookie, header) == want


def test_unknown_language_has_no_catalogue() -> None:
    with pytest.raises(KeyError):
        i18n.catalogue("xx")


def test_the_scripts_catalogue_is_split_by_when_the_page_loads_them() -> None:
    """/i18n/<code>.js holds what the first-load scripts say, /i18n/<code>-more.js what only
    the lazily loaded ones say; every message of every script is in one of them (the split
    finds a message by its literal in the script's source), and the template's own sentences
    (rendered by the server) are in neither."""
    from babel.messages.extract import extract

    keywords = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
    eager, lazy = i18n.script_messages()
    assert not eager & lazy
    for path in i18n.STATIC.glob("*.js"):
        with path.open("rb") as fh:
            found = extract("javascript", fh, keywords=keywords,
                            options={"parse_template_string": True})
            for _line, message, _comments, context in found:
                msgid = message[0] if isinstance(message, tuple) else message
                key = f"{context}\x04{msgid}" if context else msgid
                where = eager | lazy if path.name in i18n.LAZY_SCRIPTS else eager
                assert key in where, (path.name, msgid)
    de = i18n.catalogue("de")
    assert b"Diese Partie analysieren" not in de.script + de.more_script  # template only
    assert b"(wie die Variante)" in de.more_script and b"(wie die Variante)" not in de.script
    assert de.more_script.startswith(b"Object.assign(window.TAFL_I18N.m,")


def test_catalogue_keys_hash_without_collisions() -> None:
    """The page looks translations up by a hash of the English text: no two may share one."""
    keys = {(f"{c}\x04{m}" if c else m) for c, m in template()}
    hashes = {i18n.key_hash(k) for k in keys}
    assert len(hashes) == len(keys)
    assert i18n.key_hash("Attackers to move") == "1f6ld5l"  # core.js hashes the same way (e2e)
