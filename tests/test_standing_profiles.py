"""Profiles, a player's games and rating history (issue 27): the numbers of real games
played to their end, the lists' filters and cursors, who sees which games (hidden
lists, others' unfinished games), bot levels' profiles, the caller's setting, and bad
input answered with clear problems."""

from __future__ import annotations

import base64
import json
import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Game, GameStatus, Seat
from standing.models import Rating, RatingChange
from tests.games_support import create_game, game_url, play_out_every_seat, start_table
from tests.helpers import assert_json, assert_problem

pytestmark = pytest.mark.django_db

PLAYERS = "/api/v1/players"
ONE_ROUND = {"rounds": 1}


def profile_url(name: str, tail: str = "") -> str:
    return f"{PLAYERS}/{name}{'/' + tail if tail else ''}"


def played(players, seed: int, **body) -> int:
    """A game of ``players`` (and ``bots``) started and played to its end through the services."""
    body.setdefault("options", ONE_ROUND)
    gid = start_table(players, **body)
    play_out_every_seat(gid, random.Random(seed))
    return gid


def every_page(client, url: str, limit: int) -> list[list[dict]]:
    """Each page of a cursor-paged list, following ``next_cursor`` to the end."""
    pages, after = [], None
    while True:
        sep = "&" if "?" in url else "?"
        page = assert_json(client.get(f"{url}{sep}limit={limit}" + (f"&after={after}" if after else "")), 200)
        pages.append(page["results"])
        after = page["next_cursor"]
        if after is None:
            return pages
        assert len(pages) < 50


def seats_of(gid: int) -> dict[int, Seat]:
    return {s.seat: s for s in Seat.objects.filter(game_id=gid)}


@pytest.fixture
def table(named_clients):
    """alice, bob and carol, and their games: a rated one of alice and bob, an unrated one
    of alice and carol (house), a rated one of alice, bob and a random bot (finished,
    newest to oldest: ``third``, ``second``, ``first``), bob and carol's running game, and
    alice's waiting one."""
    alice, bob, carol = (named_clients(n) for n in ("alice", "bob", "carol"))
    first = played([alice, bob], 1, rated=True)
    second = played([alice, carol], 2, ruleset="house")
    third = played([alice, bob], 3, rated=True, bots=[{"level": "random"}])
    running = start_table([bob, carol], options=ONE_ROUND)
    waiting = create_game(alice, options=ONE_ROUND, max_players=3)["id"]
    return {"alice": alice, "bob": bob, "carol": carol, "first": first, "second": second, "third": third,
            "running": running, "waiting": waiting}


def test_a_profile_shows_the_players_finished_games_ratings_and_last_games(table):
    alice, bob = table["alice"], table["bob"]
    finished = [table["third"], table["second"], table["first"]]
    won = {g: Seat.objects.get(game_id=g, player=alice.player).won for g in finished}
    p = assert_json(bob.get(profile_url("alice")), 200)
    assert p["username"] == "alice" and p["is_bot"] is False and p["bot_level"] is None
    assert p["joined"] == alice.player.date_joined.isoformat().replace("+00:00", "Z")
    assert p["online"] is True  # alice made requests (her games): seen
    assert p["games"]["played"] == 3 and p["games"]["won"] == sum(won.values())
    by_ruleset = {e["ruleset"]: e for e in p["games"]["by_ruleset"]}
    assert list(by_ruleset) == ["house", "standard"]
    assert by_ruleset["house"] == {"ruleset": "house", "played": 1, "won": int(won[table["second"]])}
    assert by_ruleset["standard"]["played"] == 2
    rating = Rating.objects.get(player=alice.player, pool="standard")
    assert p["ratings"] == [{
        "ruleset": "standard", "rating": round(rating.ordinal, 2), "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3), "games": 2, "wins": rating.wins, "provisional": True, "rank": None}]
    assert rating.wins == int(won[table["first"]]) + int(won[table["third"]])
    assert p["games_public"] is True
    # the last finished games, newest first: not the waiting one, nor bob's running one
    assert [g["id"] for g in p["last_games"]] == finished
    newest = p["last_games"][0]
    assert newest["ruleset"] == "standard" and newest["status"] == "finished" and newest["rated"] is True
    assert newest["result"] == ("won" if won[table["third"]] else "lost")
    seats = seats_of(table["third"])  # (the bot sits down at the game's creation: seat 1)
    assert [(s["seat"], s["username"], s["is_bot"], s["bot_level"]) for s in newest["seats"]] == [
        (0, "alice", False, None), (1, None, True, "random"), (2, "bob", False, None)]
    assert [s["won"] for s in newest["seats"]] == [seats[x].won for x in range(3)]
    # each seat's rating change is the game view's
    view = assert_json(alice.get(game_url(table["third"])), 200)
    assert [s["rating_change"] for s in newest["seats"]] == view["rating_changes"]
    assert newest["rating_change"] == view["rating_changes"][0]
    unrated = p["last_games"][1]
    assert unrated["rated"] is False and unrated["rating_change"] is None
    assert all(s["rating_change"] is None for s in unrated["seats"])


def test_profiles_are_public_and_found_as_log_in_finds_names(table, make_player):
    anonymous = APIClient()
    p = assert_json(anonymous.get(profile_url("ALICE")), 200)  # any case
    assert p["username"] == "alice" and len(p["last_games"]) == 3
    make_player("quiet")  # never made a request
    q = assert_json(anonymous.get(profile_url("quiet")), 200)
    assert q["online"] is False and q["games"] == {"played": 0, "won": 0, "by_ruleset": []}
    assert q["ratings"] == [] and q["last_games"] == []
    assert_problem(anonymous.get(profile_url("nobody-at-all")), 404, "not_found")
    assert_problem(anonymous.get(profile_url("bot:grandmaster")), 404, "not_found")
    assert_problem(anonymous.get(profile_url("x" * 151)), 404, "not_found")
    assert_problem(anonymous.get(profile_url("ali%00ce")), 404, "not_found")
    # a bad token is refused, though none is needed
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_problem(bad.get(profile_url("alice")), 401, "authentication_failed")


def test_a_deactivated_account_has_no_profile_nor_place(make_player):
    gone, _ = make_player("gone")
    assert_json(APIClient().get(profile_url("gone")), 200)
    gone.is_active = False
    gone.save(update_fields=["is_active"])
    assert_problem(APIClient().get(profile_url("gone")), 404, "not_found")
    assert_problem(APIClient().get(f"{PLAYERS}/gone/games"), 404, "not_found")
    assert_problem(APIClient().get("/api/v1/leaderboards/standard?around=gone"), 404, "not_found")


def test_an_api_bot_account_is_a_bot(make_player):
    make_player("robo", is_bot=True)
    assert assert_json(APIClient().get(profile_url("robo")), 200)["is_bot"] is True


def test_a_bot_level_has_a_profile_its_games_and_its_rating_history(table):
    p = assert_json(APIClient().get(profile_url("bot:random")), 200)
    rating = Rating.objects.get(player__isnull=True, bot_level="random", pool="standard")
    assert p["username"] == "bot:random" and p["is_bot"] is True and p["bot_level"] == "random"
    assert p["joined"] is None and p["online"] is None and p["games_public"] is True
    assert p["games"] == {"played": 1, "won": rating.wins,
                          "by_ruleset": [{"ruleset": "standard", "played": 1, "won": rating.wins}]}
    assert [r["ruleset"] for r in p["ratings"]] == ["standard"]
    assert [g["id"] for g in p["last_games"]] == [table["third"]]
    assert p["last_games"][0]["result"] == ("won" if seats_of(table["third"])[1].won else "lost")
    assert p["last_games"][0]["rating_change"]["seat"] == 1
    listed = assert_json(APIClient().get(profile_url("bot:random", "games")), 200)
    assert listed["username"] == "bot:random" and [g["id"] for g in listed["results"]] == [table["third"]]
    history = assert_json(APIClient().get(profile_url("bot:random", "ratings/standard")), 200)
    assert [e["game"] for e in history["results"]] == [table["third"]]
    assert assert_json(APIClient().get(profile_url("bot:hard")), 200)["last_games"] == []


def test_a_bot_level_in_several_seats_is_listed_once_per_game(named_clients):
    alice = named_clients("alice")
    gid = played([alice], 4, rated=True, bots=[{"level": "easy"}, {"level": "easy"}])
    listed = assert_json(APIClient().get(profile_url("bot:easy", "games")), 200)["results"]
    assert [g["id"] for g in listed] == [gid]
    easy_won = any(s.won for s in Seat.objects.filter(game_id=gid, player__isnull=True))
    assert listed[0]["result"] == ("won" if easy_won else "lost")
    assert listed[0]["rating_change"]["seat"] == 1
    history = assert_json(APIClient().get(profile_url("bot:easy", "ratings/standard")), 200)["results"]
    assert [e["game"] for e in history] == [gid]  # one entry for the game, not one per seat
    assert RatingChange.objects.filter(game_id=gid, rating__bot_level="easy").count() == 2
    # opponent=bot:easy on the level's own list: games where another easy seat sat too
    again = assert_json(APIClient().get(profile_url("bot:easy", "games") + "?opponent=bot:easy"), 200)
    assert [g["id"] for g in again["results"]] == [gid]
    assert assert_json(APIClient().get(profile_url("bot:easy", "games") + f"?opponent={alice.player.username}"),
                       200)["results"][0]["id"] == gid


def test_own_list_has_every_status_others_only_finished_games(table):
    alice, bob, carol = table["alice"], table["bob"], table["carol"]
    mine = assert_json(alice.get(profile_url("me", "games")), 200)
    assert mine["username"] == "alice"
    assert [g["id"] for g in mine["results"]] == [table["waiting"], table["third"], table["second"], table["first"]]
    assert mine["results"][0]["status"] == "waiting" and mine["results"][0]["result"] is None
    assert mine["results"][0]["finished_at"] is None
    # by name is the same list for its owner
    assert assert_json(alice.get(profile_url("alice", "games")), 200)["results"] == mine["results"]
    # bob's running game is his own list's, never carol's list as alice sees it, nor anyone's but theirs
    assert table["running"] in [g["id"] for g in assert_json(bob.get(profile_url("me", "games")), 200)["results"]]
    for viewer in (alice, APIClient(), carol):
        for name in ("bob", "carol"):
            if viewer is carol and name == "carol":
                continue
            ids = [g["id"] for g in assert_json(viewer.get(profile_url(name, "games")), 200)["results"]]
            assert table["running"] not in ids
    others = assert_json(bob.get(profile_url("alice", "games")), 200)["results"]
    assert [g["id"] for g in others] == [table["third"], table["second"], table["first"]]
    assert assert_json(bob.get(profile_url("alice", "games") + "?status=waiting"), 200)["results"] == []
    assert [g["id"] for g in assert_json(alice.get(profile_url("me", "games") + "?status=waiting"),
                                          200)["results"]] == [table["waiting"]]
    assert_problem(APIClient().get(profile_url("me", "games")), 401, "not_authenticated")
    assert_problem(APIClient().get(profile_url("me", "ratings/standard")), 401, "not_authenticated")


def test_filters(table):
    alice, bob = table["alice"], table["bob"]

    def ids(query: str, viewer=bob, name="alice") -> list[int]:
        return [g["id"] for g in assert_json(viewer.get(profile_url(name, "games") + query), 200)["results"]]

    first, second, third = table["first"], table["second"], table["third"]
    assert ids("?ruleset=house") == [second]
    assert ids("?ruleset=standard") == [third, first]
    assert ids("?ruleset=standard&rated=false") == []
    assert ids("?rated=true") == [third, first]
    assert ids("?rated=false") == [second]
    alice_won = {g for g in (first, second, third)
                 if Seat.objects.get(game_id=g, player=alice.player).won}
    assert set(ids("?result=won")) == alice_won
    assert set(ids("?result=lost")) == {first, second, third} - alice_won
    assert ids("?result=won", viewer=alice, name="me") == [g for g in (third, second, first) if g in alice_won]
    assert ids("?opponent=bob") == [third, first]
    assert ids("?opponent=BOB") == [third, first]
    assert ids("?opponent=carol") == [second]
    assert ids("?opponent=bot:random") == [third]
    assert ids("?opponent=bot:hard") == []
    assert ids("?opponent=alice") == []  # (nobody sits twice)
    assert ids("?opponent=bob&rated=true&ruleset=standard&status=finished") == [third, first]
    # dates: the games' creation, spread over three days
    now = timezone.now().replace(microsecond=0)
    for days, gid in ((3, first), (2, second), (1, third)):
        Game.objects.filter(pk=gid).update(created_at=now - timedelta(days=days))
    day = lambda n: (now - timedelta(days=n)).date().isoformat()  # noqa: E731
    assert ids(f"?since={day(2)}") == [third, second]
    assert ids(f"?until={day(2)}") == [second, first]  # a date: up to that day's end
    assert ids(f"?since={day(2)}&until={day(2)}") == [second]
    stamp = (now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert ids(f"?since={stamp}") == [third, second]
    assert ids(f"?until={stamp}") == [first]  # a date-time: before it
    offset = (now - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%S") + "%2B00:00"
    assert ids(f"?since={offset}") == [third, second]


@pytest.mark.parametrize("query, field", [
    ("ruleset=uno", "ruleset"), ("ruleset=", "ruleset"), ("status=done", "status"), ("rated=yes", "rated"),
    ("rated=1", "rated"), ("result=draw", "result"), ("opponent=nobody-here", "opponent"),
    ("opponent=bot:grandmaster", "opponent"), ("opponent=", "opponent"), ("since=yesterday", "since"),
    ("until=2026-13-01", "until"), ("since=2026-01-31T25:00:00Z", "since"), ("since=" + "1" * 41, "since"),
    ("since=2026-02-01&until=2026-01-01", "since"), ("limit=0", "limit"), ("limit=101", "limit"),
    ("limit=ten", "limit"), ("after=not-a-cursor", "after"), ("after=", "after"), ("after=" + "A" * 101, "after"),
])
def test_bad_filters_are_refused_naming_the_field(named_clients, query, field):
    named_clients("alice")
    body = assert_problem(named_clients("bob").get(profile_url("alice", "games") + "?" + query), 400, "invalid")
    assert list(body["fields"]) == [field]


def test_a_cursor_of_another_list_or_forged_is_refused(table):
    bob = table["bob"]
    history = assert_json(bob.get(profile_url("bob", "ratings/standard") + "?limit=1"), 200)
    assert history["next_cursor"] is not None
    for cursor in (history["next_cursor"],
                   base64.urlsafe_b64encode(json.dumps(["player_games", "7"]).encode()).decode(),
                   base64.urlsafe_b64encode(json.dumps(["player_games", 0]).encode()).decode(),
                   base64.urlsafe_b64encode(json.dumps(["player_games", 2**63]).encode()).decode(),
                   base64.urlsafe_b64encode(b"[1, 2, 3]").decode(), "%%%"):
        body = assert_problem(bob.get(profile_url("alice", "games") + f"?after={cursor}"), 400, "invalid")
        assert list(body["fields"]) == ["after"]
    games_cursor = assert_json(bob.get(profile_url("alice", "games") + "?limit=1"), 200)["next_cursor"]
    assert_problem(bob.get(profile_url("bob", "ratings/standard") + f"?after={games_cursor}"), 400, "invalid")


def test_pages_chain_without_repeats_or_gaps(named_clients):
    alice, bob = named_clients("alice"), named_clients("bob")
    finished = [played([alice, bob], 10 + i, rated=i % 2 == 0) for i in range(5)]
    waiting = [create_game(alice, options=ONE_ROUND, max_players=3)["id"] for _ in range(2)]
    newest_first = (finished + waiting)[::-1]
    pages = every_page(alice, profile_url("me", "games"), 2)
    assert [len(p) for p in pages] == [2, 2, 2, 1]
    assert [g["id"] for p in pages for g in p] == newest_first
    # a game created between two pages shifts nothing: it is newer than the cursor
    first = assert_json(alice.get(profile_url("me", "games") + "?limit=3"), 200)
    create_game(alice, options=ONE_ROUND, max_players=3)
    rest = every_page(alice, profile_url("me", "games") + f"?after={first['next_cursor']}", 3)
    assert [g["id"] for g in first["results"]] + [g["id"] for p in rest for g in p] == newest_first
    # with filters, as another player sees them
    rated = every_page(bob, profile_url("alice", "games") + "?rated=true", 1)
    assert [g["id"] for p in rated for g in p] == [finished[4], finished[2], finished[0]]
    # the rating history: one change per rated game, newest first, paged
    history = every_page(bob, profile_url("alice", "ratings/standard"), 1)
    assert [e["game"] for p in history for e in p] == [finished[4], finished[2], finished[0]]
    changes = [e for p in history for e in p]
    assert changes[0]["rating_before"] == changes[1]["rating_after"]
    assert changes[1]["rating_before"] == changes[2]["rating_after"]
    whole = assert_json(bob.get(profile_url("alice", "ratings/standard")), 200)
    assert whole["username"] == "alice" and whole["next_cursor"] is None
    assert whole["rating"]["games"] == 3 and whole["rating"]["rating"] == changes[0]["rating_after"]
    view = assert_json(alice.get(game_url(finished[4])), 200)["rating_changes"]
    seat = Seat.objects.get(game_id=finished[4], player=alice.player).seat
    assert {k: v for k, v in changes[0].items() if k not in ("game", "at")} == view[seat]


def test_a_page_costs_three_queries_whatever_its_size(named_clients):
    alice, bob = named_clients("alice"), named_clients("bob")
    for i in range(4):
        played([alice, bob], 20 + i, rated=True)

    def statements(limit: int) -> list[str]:
        with CaptureQueriesContext(connection) as ctx:
            assert_json(bob.get(profile_url("alice", "games") + f"?limit={limit}"), 200)
        return [q["sql"] for q in ctx.captured_queries]

    for limit in (1, 4):
        sql = statements(limit)
        assert len([s for s in sql if '"games_seat"' in s]) == 2, sql  # the page, its seats
        assert len([s for s in sql if '"standing_ratingchange"' in s]) == 1, sql
        assert len([s for s in sql if s.startswith("SELECT") and '"games_game"' in s
                    and '"games_seat"' not in s]) == 0, sql


def test_hidden_games_are_shown_only_to_those_who_played_them(table, named_clients):
    alice, bob, carol = table["alice"], table["bob"], table["carol"]
    dave = named_clients("dave")
    assert assert_json(alice.get(f"{PLAYERS}/me/profile"), 200) == {"games_public": True}  # the default
    assert assert_json(alice.patch(f"{PLAYERS}/me/profile", {"games_public": False}, format="json"),
                       200) == {"games_public": False}
    assert assert_json(alice.get(f"{PLAYERS}/me/profile"), 200) == {"games_public": False}
    # others: only the finished games they sat in with alice
    ids = lambda viewer: [g["id"] for g in assert_json(viewer.get(profile_url("alice", "games")),  # noqa: E731
                                                        200)["results"]]
    assert ids(bob) == [table["third"], table["first"]]
    assert ids(carol) == [table["second"]]
    assert ids(dave) == [] and ids(APIClient()) == []
    assert ids(alice) == [table["waiting"], table["third"], table["second"], table["first"]]
    # the profile: counts and ratings still, no last games but for alice herself
    seen = assert_json(bob.get(profile_url("alice")), 200)
    assert seen["games_public"] is False and seen["last_games"] is None and seen["games"]["played"] == 3
    assert assert_json(APIClient().get(profile_url("alice")), 200)["last_games"] is None
    assert len(assert_json(alice.get(profile_url("alice")), 200)["last_games"]) == 3
    # the rating history hides which games
    history = assert_json(carol.get(profile_url("alice", "ratings/standard")), 200)["results"]
    assert len(history) == 2 and all(e["game"] is None for e in history)
    assert all(e["game"] for e in assert_json(alice.get(profile_url("me", "ratings/standard")), 200)["results"])
    # shown again
    alice.patch(f"{PLAYERS}/me/profile", {"games_public": True}, format="json")
    assert ids(dave) == [table["third"], table["second"], table["first"]]


@pytest.mark.parametrize("body", [{"games_public": "false"}, {"games_public": 0}, {"games_public": None}, {},
                                  {"games_public": [False]}, [True]])
def test_games_public_takes_a_json_boolean_only(auth_client, body):
    problem = assert_problem(auth_client.patch(f"{PLAYERS}/me/profile", body, format="json"), 400, "invalid")
    assert "games_public" in problem["fields"] or "non_field_errors" in problem["fields"]
    assert assert_json(auth_client.get(f"{PLAYERS}/me/profile"), 200) == {"games_public": True}


def test_the_schema_says_games_public_is_required(api):
    """As the view answers an empty body (400): drf-spectacular made a PATCH's fields optional."""
    operation = api.get("/api/schema/?format=json").json()["paths"]["/api/v1/players/me/profile"]["patch"]
    assert operation["requestBody"]["required"] is True
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
    assert api.get("/api/schema/?format=json").json()["components"]["schemas"][ref]["required"] == ["games_public"]


def test_the_profile_setting_needs_credentials_and_json(auth_client):
    assert_problem(APIClient().get(f"{PLAYERS}/me/profile"), 401, "not_authenticated")
    assert_problem(APIClient().patch(f"{PLAYERS}/me/profile", {"games_public": False}, format="json"), 401,
                   "not_authenticated")
    assert_problem(auth_client.patch(f"{PLAYERS}/me/profile", "games_public=false",
                                     content_type="application/x-www-form-urlencoded"), 415, "unsupported_media_type")
    assert_problem(auth_client.patch(f"{PLAYERS}/me/profile", "{", content_type="application/json"), 400,
                   "malformed_json")


def test_rating_history_refusals(table):
    bob = table["bob"]
    assert "standard" in assert_problem(bob.get(profile_url("alice", "ratings/uno")), 404, "unknown_ruleset")["detail"]
    assert_problem(bob.get(profile_url("alice", "ratings/house")), 404, "not_found")  # unrated house game only
    assert_problem(bob.get(profile_url("carol", "ratings/standard")), 404, "not_found")
    assert_problem(bob.get(profile_url("nobody-here", "ratings/standard")), 404, "not_found")
    assert_problem(bob.get(profile_url("bot:hard", "ratings/standard")), 404, "not_found")
    assert list(assert_problem(bob.get(profile_url("alice", "ratings/standard") + "?limit=0"), 400,
                               "invalid")["fields"]) == ["limit"]
    assert list(assert_problem(bob.get(profile_url("alice", "ratings/standard") + "?after=xyz"), 400,
                               "invalid")["fields"]) == ["after"]


def test_a_finished_game_that_is_still_being_rated_lists_no_change(table):
    """A rated game whose rating the finishing move could not record (beat's sweeper rates
    it later) is listed, its changes null until then."""
    RatingChange.objects.filter(game_id=table["first"]).delete()
    entry = assert_json(table["bob"].get(profile_url("alice", "games") + "?rated=true"), 200)["results"][-1]
    assert entry["id"] == table["first"] and entry["status"] == GameStatus.FINISHED
    assert entry["rating_change"] is None and all(s["rating_change"] is None for s in entry["seats"])
