"""The table talk's rate limit: ``UNO_CHAT_RATE`` ("5/10s,30/1m": at most 5 messages in
10 seconds and 30 a minute), per player, counted in the rate limiter's shared store
(players.throttling: Redis, else the database) in fixed windows, tier by tier (a request
refused by one tier charges no later one, as the log-in lock-out's tiers)."""

from __future__ import annotations

import time

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from players.lockout import parse_tiers
from players.throttling import _record, counter_key, measure


class ChatThrottle(BaseThrottle):
    """POSTs only (reading the chat is the ordinary user rate's)."""

    _wait: int | None = None

    def allow_request(self, request, view) -> bool:
        if request.method != "POST" or not request.user.is_authenticated:
            return True
        now = time.time()
        for tier in parse_tiers(settings.UNO_CHAT_RATE):
            key = counter_key(f"chat:{request.user.pk}:{tier.limit}/{tier.window}")
            usage = measure(key, tier.limit, tier.window, now)
            _record(request, usage)  # the RateLimit-* headers report the tightest policy
            if not usage.allowed:
                self._wait = usage.reset
                return False
        return True

    def wait(self) -> float | None:
        return self._wait
