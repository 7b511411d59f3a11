"""Stub ``machine`` for tests/hw_shims/micropython/check.py: a diode matrix in class attributes."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    closed = set()  # (row_pin, col_pin) pairs with a closed switch
    shorted = set()  # column pins shorted to ground
    grounded = set()  # input pins held low (pressed buttons)
    pins = {}

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.out = 1 if value is None else value
        Pin.pins[id] = self

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.OUT:
                return self.out
            if self.id in Pin.shorted or self.id in Pin.grounded:
                return 0
            for r, c in Pin.closed:
                if c == self.id and Pin.pins[r].out == 0:
                    return 0
            return 1
        self.out = v


class ADC:
    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        return 32768


def unique_id():
    return b"12345678"
