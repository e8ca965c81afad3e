"""Two rated games that end at once and share a rating (a bot level, or a player in two
games) are both rated, one after the other: no update is lost, nothing deadlocks, and
the leaderboard's rank counts stay right.  Real transactions in two threads."""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection, connections, transaction

from games import engine, selectors as game_selectors
from games.models import Game
from standing import ratings, services
from standing.models import RankBucket, Rating, RatingChange
from tests.games_support import clients, create_game, game_url, play_out_every_seat  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def finished_unrated(client, level: str, seed: int) -> int:
    gid = create_game(client, options={"target_score": 40}, bots=[{"level": level}])["id"]
    assert client.post(game_url(gid, "start")).status_code == 200
    play_out_every_seat(gid, random.Random(seed))
    # rated once over: as if its end were being recorded now (rate_game is what the hook calls)
    Game.objects.filter(pk=gid).update(rated=True)
    return gid


def rate_in_thread(gid: int, hold: float, started: threading.Event | None, errors: list) -> None:
    try:
        with transaction.atomic():
            game = game_selectors.load_seats(game_selectors.read_game(gid, lock=True))
            services.rate_game(game, game_selectors.seats_of(game), engine.State.from_dict(game.state))
            if started is not None:
                started.set()
            time.sleep(hold)  # the first transaction holds its rating locks a while
    except Exception as exc:  # pragma: no cover - reported below
        errors.append(exc)
    finally:
        connections.close_all()


def test_two_games_of_one_bot_level_ending_at_once_are_both_counted(clients, settings):
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL (SQLite's writers take turns)")
    settings.UNO_RATING_PROVISIONAL_GAMES = 1
    me, you = clients(2)
    first, second = finished_unrated(me, "easy", 1), finished_unrated(you, "easy", 2)
    started, errors = threading.Event(), []
    t1 = threading.Thread(target=rate_in_thread, args=(first, 1.0, started, errors))
    t1.start()
    assert started.wait(30)
    t2 = threading.Thread(target=rate_in_thread, args=(second, 0.0, None, errors))
    t2.start()
    t1.join(60)
    t2.join(60)
    assert not errors, errors
    bot = Rating.objects.get(pool="standard", player__isnull=True, bot_level="easy")
    assert bot.games == 2  # neither update lost
    # the second game was rated from the first one's result: the changes chain
    c1 = RatingChange.objects.get(game_id=first, seat=1)
    c2 = RatingChange.objects.get(game_id=second, seat=1)
    assert (c2.mu_before, c2.sigma_before) == pytest.approx((c1.mu_after, c1.sigma_after))
    assert (bot.mu, bot.sigma) == pytest.approx((c2.mu_after, c2.sigma_after))
    # and each game's update is openskill's for its places from those priors
    game = Game.objects.get(pk=second)
    places = engine.standings(engine.State.from_dict(game.state))
    mine = RatingChange.objects.get(game_id=second, seat=0)
    expected = ratings.rate([[(mine.mu_before, mine.sigma_before)], [(c2.mu_before, c2.sigma_before)]], places)
    assert (mine.mu_after, c2.mu_after) == pytest.approx((expected[0][0][0], expected[1][0][0]))
    # three established ratings, each counted once in the rank buckets
    counts = {b.bucket: b.count for b in RankBucket.objects.filter(pool="standard") if b.count}
    expected_counts: dict[int, int] = {}
    for r in Rating.objects.filter(pool="standard", established=True):
        expected_counts[r.bucket] = expected_counts.get(r.bucket, 0) + 1
    assert counts == expected_counts and sum(counts.values()) == 3
