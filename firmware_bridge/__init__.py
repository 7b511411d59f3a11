"""Pico bridge: MicroPython firmware (``main.py`` and the modules it imports) and the line
protocol shared with the host (``protocol.py``). ``firmware_bridge.sim`` runs the same firmware
under CPython on a pty."""

#: the files the Pico holds, as top-level modules (``firmware_bridge/README.md``: flashing)
PICO_FILES = ("protocol.py", "buttons.py", "config.py", "console.py", "sensors.py", "leds.py",
              "main.py")
