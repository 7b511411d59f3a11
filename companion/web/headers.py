"""The headers of the project's Flask apps, the board's page (:mod:`companion.web`) and the
club's room page (:mod:`companion.club.room_web`): every answer is never sniffed, framed or
sent on with more than the origin as referrer, and an API answer is never cached; a page is
revalidated on every load and runs under :data:`CSP` (its own scripts and styles only)."""

from __future__ import annotations

from flask import Response, request

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def add_headers(resp: Response) -> Response:
    """The headers every answer carries (an app's ``after_request``)."""
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/"):
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp


def page(html: str) -> Response:
    """A page's answer: ``html``, revalidated on every load, under :data:`CSP`."""
    resp = Response(html, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Content-Security-Policy"] = CSP
    return resp
