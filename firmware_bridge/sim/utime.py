"""CPython stand-in for MicroPython's ``utime`` (ticks wrap at 2**30 like on the Pico)."""

import time as _time

_PERIOD = 1 << 30
_HALF = _PERIOD // 2


def ticks_ms():
    return int(_time.monotonic() * 1000) % _PERIOD


def ticks_us():
    return int(_time.monotonic() * 1_000_000) % _PERIOD


def ticks_add(ticks, delta):
    return (ticks + delta) % _PERIOD


def ticks_diff(later, earlier):
    return ((later - earlier + _HALF) % _PERIOD) - _HALF


def sleep_ms(ms):
    _time.sleep(ms / 1000)


def sleep_us(us):
    _time.sleep(us / 1_000_000)


def sleep(seconds):
    _time.sleep(seconds)


def time():
    return int(_time.time())
