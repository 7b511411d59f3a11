"""A token bucket: the one type behind every rate bound of the project (the web server's turns
per address, the costly requests' budget per device, the wrong PINs, the club link's messages
and bytes a second, the club players' documents a second). Standard library only, so any part
may import it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TokenBucket:
    """At most ``capacity`` tokens, refilled at ``rate`` a second since ``at``; what is let
    through takes tokens."""

    capacity: float
    rate: float
    tokens: float
    at: float

    @classmethod
    def full(cls, capacity: float, rate: float, now: float) -> TokenBucket:
        return cls(capacity, rate, capacity, now)

    def level(self, now: float) -> float:
        """The tokens there are at ``now`` (nothing changes)."""
        return min(self.capacity, self.tokens + (now - self.at) * self.rate)

    def refill(self, now: float) -> float:
        """Bring the bucket to ``now``; its tokens."""
        self.tokens, self.at = self.level(now), now
        return self.tokens

    def take(self, n: float = 1.0) -> None:
        """Spend ``n`` tokens (the bucket may go below zero: the debt refills first)."""
        self.tokens -= n

    def wait(self, n: float = 1.0) -> float:
        """Seconds from the last refill until ``n`` tokens are there (0 if they are; with
        ``n=0``, until a debt is paid)."""
        return max(0.0, (n - self.tokens) / self.rate)

    def is_full(self, now: float) -> bool:
        return self.level(now) >= self.capacity
