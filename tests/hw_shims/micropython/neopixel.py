class NeoPixel:
    def __init__(self, pin, n):
        self.n = n
        self.buf = [(0, 0, 0)] * n
        self.writes = 0

    def __setitem__(self, i, v):
        self.buf[i] = v

    def fill(self, v):
        for i in range(self.n):
            self.buf[i] = v

    def write(self):
        self.writes += 1
