"""Stand-in for MicroPython's ``utime`` on CPython (ticks wrap at 2**30 like on the Pico).
Under MicroPython the built-in module is used instead; this file re-exports it if reached."""

import time as _time

if hasattr(_time, "ticks_ms"):  # MicroPython: the real thing
    from time import sleep, sleep_ms, sleep_us, ticks_add, ticks_diff, ticks_ms, ticks_us, time
else:
    _PERIOD = 1 << 30
    _HALF = _PERIOD // 2

    def ticks_ms():
        return int(_time.monotonic() * 1000) % _PERIOD

    def ticks_us():
        return int(_time.monotonic() * 1000000) % _PERIOD

    def ticks_add(ticks, delta):
        return (ticks + delta) % _PERIOD

    def ticks_diff(later, earlier):
        return ((later - earlier + _HALF) % _PERIOD) - _HALF

    def sleep_ms(ms):
        _time.sleep(ms / 1000)

    def sleep_us(us):
        _time.sleep(us / 1000000)

    def sleep(seconds):
        _time.sleep(seconds)

    def time():
        return int(_time.time())
