"""Quick play's speed classes: the turn time of their tables and how long a request waits."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

REALTIME, CORRESPONDENCE = "realtime", "correspondence"
SPEEDS = (REALTIME, CORRESPONDENCE)


def turn_seconds(speed: str) -> int:
    """The ``turn_seconds`` of a speed class's tables (``UNO_QUICKPLAY_REALTIME_TURN_SECONDS``,
    30 by default; ``UNO_QUICKPLAY_CORRESPONDENCE_TURN_SECONDS``, a day)."""
    if speed == "realtime":
        return settings.UNO_QUICKPLAY_REALTIME_TURN_SECONDS
    return settings.UNO_QUICKPLAY_CORRESPONDENCE_TURN_SECONDS


def max_wait_seconds(speeds: Sequence[str]) -> int:
    """How long a request that accepts ``speeds`` waits before it expires (a request that
    accepts correspondence tables: the longer wait)."""
    if "correspondence" in speeds:
        return settings.UNO_QUICKPLAY_CORRESPONDENCE_MAX_WAIT_SECONDS
    return settings.UNO_QUICKPLAY_MAX_WAIT_SECONDS
