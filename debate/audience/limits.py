"""Request rates per address: a token bucket each, in memory, pure (the clock is passed in for tests).

Why per address and generous: a phone loads a poll a few times a minute (a vote, a reload, the results),
but a room behind one conference NAT reaches the server from a single address, so the default bucket
(`BURST` requests at once, `RATE` a second after that) holds a room of a hundred phones voting together and
still stops one client that floods the port. The table of addresses is bounded too: past `MAX_KEYS`, the
addresses seen least recently are forgotten (a full bucket again, which only favours a returning phone).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

RATE = 20.0  # requests a second, per address, once the burst is spent
BURST = 200  # requests at once, per address
MAX_KEYS = 10_000


class RateLimiter:
    def __init__(
        self,
        rate: float = RATE,
        burst: int = BURST,
        max_keys: int = MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate, self.burst, self.max_keys, self.clock = float(rate), float(burst), max_keys, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)

    def allow(self, key: str) -> tuple[bool, float]:
        """(allowed, seconds to wait before the next request would be) for one request from `key`."""
        now = self.clock()
        tokens, at = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        ok = tokens >= 1.0
        if ok:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return ok, 0.0 if ok else (1.0 - tokens) / self.rate
