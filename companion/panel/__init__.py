"""The board's panel: its buttons and small display, above the session (like the web layer).

:class:`~companion.panel.panel.Panel` turns presses into the session's controls and the
session's published state into the display's text; :mod:`companion.panel.menu` is the menu
for the next game, :mod:`companion.panel.text` the text, :mod:`companion.panel.web` the
simulated board's ``POST /api/button``.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.panel.panel import Panel, PanelSession

if TYPE_CHECKING:
    from companion.config import DaemonConfig
    from companion.drivers.base import BoardSource
    from companion.parts import PartsWatch
    from companion.web.hub import StateHub

__all__ = ["Panel", "build_panel"]

ALL_INTERFACES = ("0.0.0.0", "::", "")


def page_address(host: str, port: int) -> str:
    """The page's address as a phone on the network would type it."""
    if host in ALL_INTERFACES:
        host = f"{socket.gethostname()}.local"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def build_panel(cfg: DaemonConfig, session: PanelSession, hub: StateHub, board: BoardSource,
                port: int, *, pin_factory: Any = None, serial: Any = None,
                parts: PartsWatch | None = None) -> Panel | None:
    """The panel of the board in ``cfg`` (None when it has neither buttons nor a display),
    wired to the session and the state hub; not started. A configured button set or display
    that cannot be opened raises PartMissing, or with ``parts`` is left to it: the panel
    runs without it and gets it once it is found (companion.parts)."""
    from companion.hardware_drivers import PartMissing, open_buttons, open_display
    from companion.panel.words import short_name
    from companion.rules import PRESETS

    def buttons_now() -> Any:
        return open_buttons(cfg.buttons, board, pin_factory=pin_factory)

    def display_now() -> Any:
        return open_display(cfg.display, board, serial=serial)

    missing: list[tuple[PartMissing, Callable[[], Any], str]] = []
    buttons = display = None
    with contextlib.ExitStack() as opened:
        for opener, name in ((buttons_now, "buttons"), (display_now, "display")):
            try:
                part = opener()
            except PartMissing as exc:
                if parts is None:
                    raise
                missing.append((exc, opener, name))
                continue
            if part is not None:
                opened.callback(part.close)
            if name == "buttons":
                buttons = part
            else:
                display = part
        opened.pop_all()
    if buttons is None and display is None and not missing:
        return None
    sim = board.kind == "sim"
    # a real board plays the variants of its own size; the simulated one resizes to any
    variants = [(r.id, short_name(r.id, cfg.display.language, r.name)) for r in PRESETS.values()
                if sim or r.size == board.size]
    panel = Panel(session, session.state, buttons=buttons,
                  display=display, action=cfg.buttons.action, variants=variants,
                  lang=cfg.display.language, url=page_address(cfg.host, port),
                  press_to_end=cfg.buttons.press_to_end_move)
    for error, opener, name in missing:
        assert parts is not None
        parts.missing(error, opener,
                      panel.attach_buttons if name == "buttons" else panel.attach_display)
    hub.subscribe(panel.wake)
    return panel
