"""The languages of the phone page: gettext catalogues maintained with Babel.

Every sentence players see on the page is written in English in the page's sources
(``web/static/*.js`` with ``_()``, ``ngettext()``, ``pgettext()`` and ``N_()`` markers, and
``web/templates/*.html`` with ``{{ _("...") }}``). ``pybabel extract`` collects them into
``messages.pot``; each language is ONE file, ``locales/<code>/LC_MESSAGES/messages.po``
(``pybabel init`` creates it, ``pybabel update`` refreshes it; see docs/page.md). Sentences
about what happened on the board are built from structured data (event kinds and codes,
squares, pieces), never parsed from English.

The ``.po`` files ship as they are: when the web app starts, :func:`catalogue` reads each with
Babel's ``read_po`` (no compile step, so a fresh ``pip install`` works) and keeps

- the translations for the server-side template (Jinja's i18n extension), and
- a small script ``/i18n/<code>.js`` (``window.TAFL_I18N = {...}``) that the page loads before
  its own scripts: the translations its first-load scripts use, plus a table from CLDR plural
  categories (what the browser's ``Intl.PluralRules`` answers) to the ``.po`` file's plural
  forms; and ``/i18n/<code>-more.js``, the translations used only by the scripts the page loads
  later (:data:`LAZY_SCRIPTS`: review, analysis, rules cards, the owner's controls, a player
  link's page, the words for refused controls, after a game, the computer's thoughts and
  hints), fetched with
  them. Sentences only the server's template uses are never sent as script.

The language is chosen per request: ``?lang=xx``, then the ``tafl-lang`` cookie (the page's
switch sets it), then the browser's ``Accept-Language``; English when nothing matches. The
Python side (log, command line) stays English.
"""

from __future__ import annotations

import functools
import gettext as _gettext
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

HERE = Path(__file__).parent
LOCALES = HERE / "locales"
DOMAIN = "messages"
DEFAULT = "en"
COOKIE = "tafl-lang"
STATIC = HERE.parent / "web" / "static"
#: The page's scripts loaded on demand (core.js ``T.load``), not on the first load.
LAZY_SCRIPTS = ("review.js", "rules.js", "analysis.js", "owner.js", "errors.js", "remote.js",
                "over.js", "advice.js", "online.js", "club.js", "setup.js",
                "check.js", "explorer.js", "puzzles.js", "coach.js")
#: CLDR plural categories, in the order the table is filled
_CATEGORIES = ("zero", "one", "two", "few", "many", "other")


@dataclass(frozen=True)
class Catalogue:
    """One language: its code, its own name for itself, translations and plural table."""

    lang: str
    name: str
    #: msgid (``ctx\\x04msgid`` with a context) -> translation, or the list of plural forms
    messages: dict[str, str | list[str]] = field(default_factory=dict)
    #: CLDR plural category -> index into a plural message's forms
    plural: dict[str, int] = field(default_factory=dict)
    plural_fn: Any = None

    def gettext(self, msgid: str) -> str:
        got = self.messages.get(msgid)
        return got if isinstance(got, str) and got else msgid

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        forms = self.messages.get(singular)
        if isinstance(forms, list) and self.plural_fn is not None:
            index = int(self.plural_fn(n))
            if 0 <= index < len(forms) and forms[index]:
                return forms[index]
        return singular if n == 1 else plural

    def pgettext(self, context: str, msgid: str) -> str:
        got = self.messages.get(f"{context}\x04{msgid}")
        return got if isinstance(got, str) and got else msgid

    def _part(self, keys: frozenset[str]) -> dict[str, str | list[str]]:
        """The translations of ``keys``, keyed by :func:`key_hash` (the page hashes the
        English text it looks up the same way: 7 characters instead of a whole sentence)."""
        return {key_hash(k): v for k, v in self.messages.items() if k in keys}

    @functools.cached_property
    def script(self) -> bytes:
        """The first-load catalogue as a script defining ``window.TAFL_I18N``."""
        eager, _ = script_messages()
        doc = {"lang": self.lang, "name": self.name, "plural": self.plural,
               "m": self._part(eager)}
        return _script("window.TAFL_I18N=", doc)

    @functools.cached_property
    def more_script(self) -> bytes:
        """The translations only the lazily loaded scripts use, added to ``TAFL_I18N``."""
        _, lazy = script_messages()
        return _script("Object.assign(window.TAFL_I18N.m,", self._part(lazy), ")")

    @functools.cached_property
    def version(self) -> str:
        return hashlib.sha1(self.script + self.more_script).hexdigest()[:10]


def key_hash(key: str) -> str:
    """A catalogue key as the page looks it up (core.js ``hash``): FNV-1a (32 bits) over the
    key's UTF-16 code units, in base 36. tests/test_i18n.py checks that no two keys collide."""
    h = 0x811C9DC5
    data = key.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | data[i + 1] << 8
        h = (h * 0x01000193) & 0xFFFFFFFF
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        h, r = divmod(h, 36)
        out = digits[r] + out
        if not h:
            return out


def _script(head: str, doc: object, tail: str = "") -> bytes:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # "</" cannot end a script here (it is served as a file), but keep it inert anyway
    return (head + text.replace("</", "<\\/") + tail + ";\n").encode()


@functools.cache
def script_messages() -> tuple[frozenset[str], frozenset[str]]:
    """Catalogue keys (``msgid``, or ``context\\x04msgid``) the page's scripts use:
    ``(first load, only the lazily loaded scripts)``. A key belongs to a script whose source
    holds its msgid as a string literal (tests/test_i18n.py checks that this finds every
    message pybabel extracts from each script)."""
    from babel.messages.pofile import read_po

    texts = {p.name: p.read_text(encoding="utf-8") for p in STATIC.glob("*.js")}
    with (HERE / "messages.pot").open("rb") as fh:
        pot = read_po(fh)
    eager: set[str] = set()
    lazy: set[str] = set()
    for msg in pot:
        if not msg.id:
            continue
        msgid = msg.id[0] if isinstance(msg.id, tuple | list) else msg.id
        literal = json.dumps(msgid, ensure_ascii=False)
        users = {name for name, text in texts.items() if literal in text}
        key = _key(msg.context, msgid)
        if users - set(LAZY_SCRIPTS):
            eager.add(key)
        elif users:
            lazy.add(key)
    return frozenset(eager), frozenset(lazy)


def preload() -> None:
    """Read every catalogue now (the daemon keeps serving them if the files change under it)."""
    for lang in languages():
        _ = catalogue(lang).version  # both scripts made (and kept)


@functools.cache
def languages() -> list[str]:
    """Codes of every language the page speaks: English and each ``.po`` file's."""
    found = sorted(p.parent.parent.name for p in LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return [DEFAULT] + [code for code in found if code != DEFAULT]


def _own_name(lang: str) -> str:
    from babel import Locale

    name = Locale.parse(lang).get_display_name(lang) or lang
    return name[:1].upper() + name[1:]


@functools.cache
def catalogue(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (read once). KeyError for a language without a ``.po``."""
    if lang not in languages():
        raise KeyError(f"no catalogue for language {lang!r}")
    if lang == DEFAULT:
        return Catalogue(DEFAULT, _own_name(DEFAULT), {}, {"one": 0, "other": 1},
                         _gettext.c2py("n != 1"))
    from babel.messages.pofile import read_po

    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as fh:
        po = read_po(fh, locale=lang)
    messages: dict[str, str | list[str]] = {}
    for msg in po:
        if not msg.id or msg.fuzzy:
            continue
        if isinstance(msg.id, tuple | list):  # a plural message: keyed by its singular
            forms = [str(s) for s in msg.string or ()]
            if all(forms):
                messages[_key(msg.context, msg.id[0])] = forms
        elif msg.string:
            messages[_key(msg.context, msg.id)] = str(msg.string)
    plural_fn = _gettext.c2py(po.plural_expr)
    return Catalogue(lang, _own_name(lang), messages, _plural_table(lang, plural_fn), plural_fn)


def _key(context: str | None, msgid: str) -> str:
    return f"{context}\x04{msgid}" if context else msgid


def _plural_table(lang: str, plural_fn: Any) -> dict[str, int]:
    """CLDR category -> gettext plural index, found by asking both for the same numbers."""
    from babel import Locale

    locale = Locale.parse(lang)
    table: dict[str, int] = {}
    for n in range(0, 1000):
        table.setdefault(locale.plural_form(n), int(plural_fn(n)))
    return {c: table[c] for c in _CATEGORIES if c in table}


def choose(query: str | None, cookie: str | None, accept: Any) -> str:
    """The language of a request: ``?lang=``, the cookie, then the Accept-Language header
    (werkzeug's ``request.accept_languages``); English by default."""
    known = languages()
    for wish in (query, cookie):
        if wish and wish in known:
            return wish
    if accept is not None:
        best = accept.best_match(known)
        if best:
            return str(best)
    return DEFAULT


def init_app(app: Flask) -> None:
    """Give a Flask app the page's languages: the ``/i18n/<code>.js`` catalogues, ``_()``
    in templates (in the request's language) and ``lang``/``languages`` in their context."""
    from flask import Response, abort, g, request

    app.jinja_env.add_extension("jinja2.ext.i18n")

    def current() -> Catalogue:
        lang = getattr(g, "tafl_lang", None)
        if lang is None:
            lang = g.tafl_lang = choose(request.args.get("lang"), request.cookies.get(COOKIE),
                                        request.accept_languages)
        return catalogue(lang)

    # the i18n extension (added above) puts this method on the environment at run time
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda s: current().gettext(s),
        lambda s, p, n: current().ngettext(s, p, n),
        pgettext=lambda c, s: current().pgettext(c, s),
        newstyle=True,
    )

    @app.context_processor
    def _language() -> dict[str, object]:
        cat = current()
        return {"lang": cat.lang, "i18n_v": cat.version,
                "languages": [(code, catalogue(code).name) for code in languages()]}

    @app.get("/i18n/<lang>.js")
    def i18n_script(lang: str) -> Response:
        more = lang.endswith("-more")
        lang = lang.removesuffix("-more")
        if lang not in languages():
            abort(404, f"no catalogue for language {lang!r}")
        cat = catalogue(lang)
        resp = Response(cat.more_script if more else cat.script, mimetype="text/javascript")
        resp.headers["Cache-Control"] = "public, max-age=31536000, immutable" \
            if request.args.get("v") == cat.version else "no-cache"
        return resp

    @app.after_request
    def _vary(resp: Response) -> Response:
        if resp.mimetype == "text/html":
            resp.headers.add("Vary", "Accept-Language, Cookie")
            resp.headers["Content-Language"] = current().lang
        return resp
