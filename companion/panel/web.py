"""``POST /api/button``: press a button of the simulated board; ``GET /api/display``: the
display's frame (docs/http-api.md).

A blueprint the daemon adds to the page's app: like every control it needs ``X-Tafl-Request: 1``
and the owner's PIN (the app's guard refuses a blueprint's POST from anyone but the owner).
Body ``{"button": "clock"|"hint"|"takeback"|"new", "press": "short"|"long"}`` (``press``
defaults to short); the answer is ``{"button", "press", "display": [lines]}`` once the press
has been handled. A real board's buttons are pressed by hand: 409 ``real_board``.
"""

from __future__ import annotations

import base64
import io

from flask import Blueprint, Response, jsonify, request

from companion.drivers.buttons import SimButtons
from companion.panel.panel import Panel
from companion.panel.words import WORDS


def _error(status: int, message: str, code: str) -> tuple[Response, int]:
    return jsonify(error=message, code=code), status


def blueprint(panel: Panel) -> Blueprint:
    """The ``/api/button`` and ``/api/display`` routes for ``panel``."""
    bp = Blueprint("panel", __name__)

    @bp.get("/api/display")
    def display() -> tuple[Response, int]:
        """``{"lines", "lang", "width", "height", "image"}``: the frame the display was given
        (``image`` a PNG data URL, null before the first), so the page's mirror shows exactly
        what the hardware shows, cut where the hardware cuts; ``?lang=de`` draws the
        simulated display in the page's language (a real one stays in its own)."""
        lang = request.args.get("lang") or None
        if lang is not None and lang not in WORDS:
            return _error(400, f'"lang" must be one of {", ".join(WORDS)}, not {lang!r}',
                          "bad_lang")
        lines, image = panel.frame(lang)
        shown = lang if lang and panel.display is not None and panel.display.kind == "capture" \
            else panel.lang
        out: dict[str, object] = {"lines": lines, "lang": shown, "width": 128, "height": 64,
                                  "image": None}
        if image is not None:
            buf = io.BytesIO()
            image.save(buf, "PNG")
            out.update(width=image.width, height=image.height,
                       image="data:image/png;base64," + base64.b64encode(buf.getvalue()).decode())
        resp = jsonify(out)
        resp.headers["Cache-Control"] = "no-store"
        return resp, 200

    @bp.post("/api/button")
    def button() -> tuple[Response, int]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            return _error(400, "the request body must be a JSON object", "bad_json")
        unknown = sorted(set(data) - {"button", "press"})
        if unknown:
            return _error(400, f"unknown field {unknown[0]!r}; a press takes button and press",
                          "bad_field")
        buttons = panel.buttons
        if not isinstance(buttons, SimButtons):
            return _error(409, "the board's buttons are pressed by hand: only the simulated "
                               "board's can be pressed from here", "real_board")
        name = data.get("button")
        if not isinstance(name, str) or name not in buttons.names:
            return _error(400, f'"button" must be one of {", ".join(buttons.names)}, not '
                               f"{name!r}", "bad_button")
        press = data.get("press", "short")
        if press not in ("short", "long"):
            return _error(400, f'"press" must be short or long, not {press!r}', "bad_press")
        return jsonify(panel.press(name, long=press == "long")), 200

    return bp
