"""The hub's count of each player's streams (``LIVE_MAX_STREAMS_PER_PLAYER``), without a
server: closed and abandoned streams are given back, and the count stays exact when every
stream a player held was abandoned."""

from __future__ import annotations

import asyncio

import pytest

from games import live


def quiet_hub() -> live.Hub:
    hub = live.Hub()
    hub._kick = lambda *args, **kwargs: None  # no listener or processor thread
    return hub


def test_the_limit_counts_game_streams_and_feeds_and_gives_back_closed_and_abandoned_ones():
    async def scenario() -> None:
        hub = quiet_hub()
        feeds = [hub.subscribe_player(7, limit=2) for _ in range(2)]
        with pytest.raises(live.TooManyStreams) as refused:
            hub.subscribe_game(1, 7, None, limit=2)
        assert refused.value.limit == 2
        hub.subscribe_game(1, 8, None, limit=2)  # another player's are their own
        for feed in feeds:  # both dropped unsent: given back at the next subscription
            hub.abandon(feed)
        stream = hub.subscribe_game(1, 7, None, limit=2)
        assert hub._open[7] == {stream} and all(f.closed for f in feeds)
        feed = hub.subscribe_player(7, limit=2)
        with pytest.raises(live.TooManyStreams):
            hub.subscribe_player(7, limit=2)
        hub.unsubscribe(stream)
        hub.unsubscribe(stream)  # (twice: nothing more is given back)
        assert hub._open[7] == {feed}
        hub.subscribe_player(7, limit=2)
        with pytest.raises(live.TooManyStreams):
            hub.subscribe_game(1, 7, None, limit=2)

    asyncio.run(scenario())
