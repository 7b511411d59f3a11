"""Stand-ins for the ``spidev`` module and ``spidev.SpiDev`` that record what is sent."""

from __future__ import annotations


class FakeSpi:
    """Records what a spidev.SpiDev would send (xfer2 / writebytes, no writebytes2)."""

    def __init__(self):
        self.sent: list[bytes] = []
        self.closed = False
        self.opened = None
        self.max_speed_hz = 0
        self.mode = None

    def open(self, bus, device):
        self.opened = (bus, device)

    def writebytes(self, data):
        assert isinstance(data, list) and len(data) <= 4096
        self.sent.append(bytes(data))

    def xfer2(self, data):
        self.sent.append(bytes(data))
        return [0] * len(data)

    def close(self):
        self.closed = True


class FakeSpidevModule:
    def __init__(self):
        self.devices: list[FakeSpi] = []

    def SpiDev(self):  # noqa: N802 - spidev's name
        dev = FakeSpi()
        self.devices.append(dev)
        return dev
