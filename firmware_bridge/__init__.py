"""Pico bridge: MicroPython firmware (``main.py``) and the line protocol shared with the host
(``protocol.py``). ``firmware_bridge.sim`` runs the same firmware under CPython on a pty."""
