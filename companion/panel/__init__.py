"""The board's panel: its buttons and small display, above the session (like the web layer).

:class:`~companion.panel.panel.Panel` turns presses into the session's controls and the
session's published state into the display's text; :mod:`companion.panel.menu` is the menu
for the next game, :mod:`companion.panel.text` the text, :mod:`companion.panel.web` the
simulated board's ``POST /api/button``.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

from companion.panel.panel import Panel, PanelSession

if TYPE_CHECKING:
    from companion.config import DaemonConfig
    from companion.drivers.base import BoardSource
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
                port: int, *, pin_factory: Any = None, serial: Any = None) -> Panel | None:
    """The panel of the board in ``cfg`` (None when it has neither buttons nor a display),
    wired to the session and the state hub; not started. ConfigError when a configured
    button or display cannot be opened."""
    from companion.hardware_drivers import open_buttons, open_display
    from companion.panel.words import short_name
    from companion.rules import PRESETS

    buttons = open_buttons(cfg.buttons, board, pin_factory=pin_factory)
    try:
        display = open_display(cfg.display, board, serial=serial)
    except Exception:
        if buttons is not None:
            buttons.close()
        raise
    if buttons is None and display is None:
        return None
    sim = board.kind == "sim"
    # a real board plays the variants of its own size; the simulated one resizes to any
    variants = [(r.id, short_name(r.id, cfg.display.language, r.name)) for r in PRESETS.values()
                if sim or r.size == board.size]
    panel = Panel(session, session.state, buttons=buttons,
                  display=display, action=cfg.buttons.action, variants=variants,
                  lang=cfg.display.language, url=page_address(cfg.host, port),
                  press_to_end=cfg.buttons.press_to_end_move)
    hub.subscribe(panel.wake)
    return panel
