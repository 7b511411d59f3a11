"""Hardware edges: board sources (sensors) and LED sinks.

Only the protocols are imported here; every concrete driver lives in its own module and imports its
hardware library lazily, so ``import companion.drivers`` works on any machine. Build drivers from
configuration with :func:`companion.hardware_drivers.open_board` and ``open_leds``.
"""

from companion.drivers.base import BoardSource, LedSink, colour_changes

__all__ = ["BoardSource", "LedSink", "colour_changes"]
