"""Ratings (issue 27): a finished rated game updates every seat's rating as ``openskill``
computes it for the game's places, once; teams are one faction, shared wins tie, a
seat whose player left is last, unrated games change nothing; the game's view shows
each seat's change."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from games import engine, services as game_services
from games.models import Game, Seat
from standing import services
from standing.models import RankBucket, Rating, RatingChange
from tests.games_support import clients, create_game, game_url, play_out_every_seat, start_table  # noqa: F401

pytestmark = pytest.mark.django_db

SHORT = {"target_score": 60}


def finished(gid: int) -> tuple[Game, list[Seat], engine.State]:
    game = Game.objects.get(pk=gid)
    seats = list(Seat.objects.filter(game=game).order_by("seat"))
    return game, seats, engine.State.from_dict(game.state)


def rating_of(player=None, level: str = "", pool: str = "standard") -> Rating:
    if player is not None:
        return Rating.objects.get(pool=pool, player=player)
    return Rating.objects.get(pool=pool, player__isnull=True, bot_level=level)


def test_four_players_are_rated_as_openskill_rates_their_places(clients):
    people = clients(4)
    gid = start_table(people, options=SHORT, rated=True)
    play_out_every_seat(gid, random.Random(1))
    game, seats, state = finished(gid)
    places = engine.standings(state)
    assert sorted(places)[0] == 0 and places[state.winners[0]] == 0
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[float(p) for p in places])
    for c, seat in zip(people, range(4)):
        r = rating_of(c.player)
        assert r.mu == pytest.approx(expected[seat][0].mu) and r.sigma == pytest.approx(expected[seat][0].sigma)
        assert (r.games, r.wins, r.established) == (1, int(seat in state.winners), False)
    changes = {c.seat: c for c in RatingChange.objects.filter(game_id=gid)}
    assert sorted(changes) == [0, 1, 2, 3]
    assert [changes[s].place for s in range(4)] == places
    # the game's view shows each seat's change, the winner's up
    view = people[0].get(game_url(gid)).json()
    assert view["rated"] is True
    shown = view["rating_changes"]
    assert [e["seat"] for e in shown] == [0, 1, 2, 3]
    winner = shown[state.winners[0]]
    assert winner["place"] == 1 and winner["change"] > 0
    assert winner["rating_after"] == pytest.approx(rating_of(people[state.winners[0]].player).ordinal, abs=0.01)
    assert [e["place"] for e in shown] == [p + 1 for p in places]


def test_a_second_rating_of_the_same_end_changes_nothing(clients):
    people = clients(2)
    gid = start_table(people, options=SHORT, rated=True)
    play_out_every_seat(gid, random.Random(2))
    before = [(r.mu, r.sigma, r.games) for r in Rating.objects.order_by("id")]
    game, seats, state = finished(gid)
    assert services.rate_game(game, seats, state) == []  # the hook rated it: a retried end is a no-op
    assert services.rate_missed(grace=__import__("datetime").timedelta(0)) == 0
    assert [(r.mu, r.sigma, r.games) for r in Rating.objects.order_by("id")] == before
    assert RatingChange.objects.filter(game_id=gid).count() == 2


def test_a_game_the_hook_could_not_rate_is_rated_by_the_sweeper(clients, monkeypatch):
    people = clients(2)
    gid = start_table(people, options=SHORT, rated=True)

    def broken(game, seats, state):
        raise RuntimeError("the ratings' database went away")

    from games import signals
    monkeypatch.setattr(signals, "_finish_hooks", {})
    signals.on_finish("ratings", broken)
    game = play_out_every_seat(gid, random.Random(3))
    assert game.status == "finished"  # the move that ended it was recorded all the same
    assert not RatingChange.objects.filter(game_id=gid).exists()
    from datetime import timedelta
    etag = people[0].get(game_url(gid))["ETag"]
    assert people[0].get(game_url(gid)).json()["rating_changes"] is None
    assert services.rate_missed(grace=timedelta(0)) == 1
    # its view changed: a new ETag, with every seat's change
    fresh = people[0].get(game_url(gid), HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and len(fresh.json()["rating_changes"]) == 2
    assert RatingChange.objects.filter(game_id=gid).count() == 2
    assert services.rate_missed(grace=timedelta(0)) == 0


def test_unrated_games_change_nothing(clients):
    people = clients(2)
    gid = start_table(people, options=SHORT)
    assert people[0].get(game_url(gid)).json()["rated"] is False
    play_out_every_seat(gid, random.Random(4))
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    view = people[0].get(game_url(gid)).json()
    assert view["rating_changes"] is None


def test_bots_are_rated_per_level_and_a_level_in_several_seats_sums_its_moves(clients):
    (me,) = clients(1)
    gid = create_game(me, options=SHORT, rated=True, bots=[{"level": "random"}, {"level": "random"},
                                                              {"level": "easy"}])["id"]
    assert me.post(game_url(gid, "start")).status_code == 200
    play_out_every_seat(gid, random.Random(5))
    game, seats, state = finished(gid)
    places = engine.standings(state)
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[float(p) for p in places])
    mine = rating_of(me.player)
    assert mine.mu == pytest.approx(expected[0][0].mu)
    rnd = rating_of(level="random")
    assert rnd.mu == pytest.approx(25 + (expected[1][0].mu - 25) + (expected[2][0].mu - 25))
    assert rnd.sigma == pytest.approx(25 / 3 * (expected[1][0].sigma / (25 / 3)) * (expected[2][0].sigma / (25 / 3)))
    assert rnd.games == 1 and rating_of(level="easy").games == 1
    assert Rating.objects.count() == 3


def test_a_team_is_one_faction_and_a_leaver_is_last_alone(clients):
    people = clients(4)
    gid = start_table(people, options={**SHORT, "teams": True}, rated=True)
    # seat 3's player leaves the running game: the autopilot plays the seat, rated last
    assert people[3].post(game_url(gid, "leave")).status_code in (200, 204)
    play_out_every_seat(gid, random.Random(6))
    game, seats, state = finished(gid)
    teams = engine.lasting_teams(state)
    assert teams == [0, 1, 0, 1]
    factions = services.factions_of(seats, state)
    assert sorted(map(sorted, factions)) == [[0, 2], [1], [3]]
    places = services.places_of(seats, state)
    assert places[3] == max(places) and places[3] > places[1]
    model = PlackettLuce()
    team_a, team_b, leaver = [model.rating(), model.rating()], [model.rating()], [model.rating()]
    team_places = [min(places[0], places[2]), places[1], places[3]]
    exp = model.rate([team_a, team_b, leaver], ranks=[float(p) for p in team_places])
    assert rating_of(people[0].player).mu == pytest.approx(exp[0][0].mu)
    assert rating_of(people[2].player).mu == pytest.approx(exp[0][1].mu)
    assert rating_of(people[1].player).mu == pytest.approx(exp[1][0].mu)
    assert rating_of(people[3].player).mu == pytest.approx(exp[2][0].mu)
    assert rating_of(people[3].player).mu < 25


def test_a_shared_win_is_a_tie():
    # Decktet-Uno: equal top scores share the win; the engine's standings tie them
    state = engine.new_game("decktet_uno", {}, 3, 1)
    state.phase, state.scores, state.winners, state.winner = engine.GAME_OVER, [12, 12, 5], [0, 1], 0
    assert engine.standings(state) == [0, 0, 2]
    model = PlackettLuce()
    a, b, c = model.rate([[model.rating()] for _ in range(3)], ranks=[0.0, 0.0, 2.0])
    assert a[0].mu == pytest.approx(b[0].mu) and a[0].mu > c[0].mu


def test_elimination_ranks_the_later_eliminated_higher():
    state = engine.new_game("standard", {"scoring": "elimination", "target_score": 60}, 4, 1)
    rounds = [[0, 24, 113, 76], [56, 0, 0, 0], [72, 0, 0, 0]]  # seats 2, 3 out after round 1, seat 0 after round 3
    state.history = [{"round": i + 1, "winner": 0, "points": row} for i, row in enumerate(rounds)]
    state.scores = [sum(col) for col in zip(*rounds)]
    state.eliminated, state.winners, state.winner, state.phase = [0, 2, 3], [1], 1, engine.GAME_OVER
    # the last one left, then seat 0 (out last), then seat 3 (76) before seat 2 (113), out together
    assert engine.standings(state) == [1, 0, 3, 2]


def test_winner_takes_orders_the_others_by_points_then_cards_left():
    state = engine.new_game("standard", {}, 4, 1)
    state.phase, state.scores, state.winners, state.winner = engine.GAME_OVER, [510, 40, 40, 0], [0], 0
    points = engine.build_rules(state.config).deck.points
    cards = sorted(range(len(points)), key=lambda c: points[c])
    state.hands = [[], [cards[-1]], [cards[0]], [cards[1]]]  # seat 1 is left a wild, seat 2 a zero
    assert engine.standings(state) == [0, 2, 1, 3]
    state.hands[1], state.hands[2] = [cards[0]], [cards[1]]  # equal points left: a tie
    assert points[cards[0]] == points[cards[1]] == 0
    assert engine.standings(state) == [0, 1, 1, 3]


def test_standings_of_a_running_game_are_refused():
    state = engine.new_game("standard", {}, 2, 1)
    with pytest.raises(engine.GameOver):
        engine.standings(state)


def test_rank_buckets_count_the_established_ratings(clients, settings):
    settings.UNO_RATING_PROVISIONAL_GAMES = 2
    people = clients(2)
    for seed in (7, 8, 9):
        gid = start_table(people, options=SHORT, rated=True)
        play_out_every_seat(gid, random.Random(seed))
    ratings = list(Rating.objects.filter(pool="standard"))
    assert all(r.established and r.games == 3 for r in ratings)
    counted = {(b.bucket): b.count for b in RankBucket.objects.filter(pool="standard") if b.count}
    expected: dict[int, int] = {}
    for r in ratings:
        expected[r.bucket] = expected.get(r.bucket, 0) + 1
    assert counted == expected
    assert game_services  # (the module the hook lives beside)
