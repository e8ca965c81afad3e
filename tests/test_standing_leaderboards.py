"""Leaderboards (issue 27): ``GET /api/v1/leaderboards/{ruleset}`` ranks a preset's
established ratings by the conservative estimate (the older rating first on a tie),
pages by cursor without repeats or gaps, and answers ``around`` (the caller, a player
or a bot level) with the entries around theirs and their own; provisional ratings are
not ranked.  Ratings come from real rated games, or (where many are needed) from
:func:`rated`, which keeps the RankBuckets as the product does."""

from __future__ import annotations

import base64
import json
import random

import pytest
from django.conf import settings as django_settings

from games import engine
from standing import ratings, services
from standing.models import RankBucket, Rating
from tests.games_support import clients, create_game, game_url, play_out_every_seat, start_table  # noqa: F401
from tests.helpers import assert_json, assert_problem

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards"
SHORT = {"target_score": 60}


def rated(*, player=None, level: str = "", mu: float = 25.0, sigma: float = 5.0, games: int = 10, wins: int = 0,
          pool: str = "standard") -> Rating:
    """A rating as rated games leave it, its RankBucket counted as ``standing.services``
    counts it (``games`` below UNO_RATING_PROVISIONAL_GAMES: provisional, not counted)."""
    o = ratings.ordinal(mu, sigma)
    r = Rating.objects.create(pool=pool, player=player, bot_level=level, mu=mu, sigma=sigma, ordinal=o,
                              bucket=services.bucket_of(o), games=games, wins=wins,
                              established=games >= django_settings.UNO_RATING_PROVISIONAL_GAMES)
    if r.established:
        services._count_buckets(pool, {r.bucket: 1})
    return r


def full_order(pool: str = "standard") -> list[Rating]:
    """The board as it must be: established ratings by ordinal, best first, then by id."""
    return sorted(Rating.objects.filter(pool=pool, established=True).select_related("player"),
                  key=lambda r: (-r.ordinal, r.pk))


def name_of(r: Rating) -> str:
    return r.player.username if r.player_id else f"bot:{r.bot_level}"


def whole_board(client, ruleset: str = "standard", limit: int = 50) -> list[dict]:
    """Every entry, page after page (following next_cursor); asserts each page's shape."""
    url = f"{BOARD}/{ruleset}?limit={limit}"
    entries: list[dict] = []
    for _ in range(1000):
        page = assert_json(client.get(url), 200)
        assert page["ruleset"] == ruleset and page["me"] is None
        assert len(page["results"]) <= limit
        entries += page["results"]
        if page["next_cursor"] is None:
            return entries
        assert len(page["results"]) == limit
        url = f"{BOARD}/{ruleset}?limit={limit}&after={page['next_cursor']}"
    raise AssertionError("the pages never end")


def assert_board(entries: list[dict], pool: str = "standard") -> None:
    """``entries`` are the whole board: every established rating once, in order, ranked
    by position, each as rating_entry shows it."""
    order = full_order(pool)
    assert [e["username"] for e in entries] == [name_of(r) for r in order]
    assert [e["rank"] for e in entries] == list(range(1, len(order) + 1))
    for e, r in zip(entries, order):
        assert e == {"rank": e["rank"], "username": name_of(r), "is_bot": r.player_id is None,
                     "bot_level": r.bot_level or None, "rating": round(r.ordinal, 2), "mu": round(r.mu, 3),
                     "sigma": round(r.sigma, 3), "games": r.games, "wins": r.wins, "provisional": False}


@pytest.fixture
def board(make_player):
    """23 players and the four bot levels rated in ``standard`` (ordinals from about -10
    to 29, over many rank buckets; three groups of equal ratings, created out of order),
    2 provisional players, and a rating in another preset.  Returns the players by name."""
    rng = random.Random(27)
    people = {}
    for i in range(23):
        player, token = make_player(f"p{i:02d}")
        player.token = token
        people[player.username] = player
    spec = {}
    for i, name in enumerate(people):
        spec[name] = (rng.uniform(18, 32), rng.uniform(1, 7))
    for tie in (["p03", "p11", "p07"], ["p20", "p01"], ["p15", "p16", "p05", "p09"]):
        for name in tie:
            spec[name] = spec[tie[0]]
    spec["p22"] = (15.0, 8.0)  # a negative ordinal (-9)
    for name in sorted(people, key=lambda n: rng.random()):  # ids in no particular order of the names
        mu, sigma = spec[name]
        rated(player=people[name], mu=mu, sigma=sigma, games=rng.randint(10, 90))
    for level, mu in zip(("random", "easy", "normal", "hard"), (20.0, 23.0, 26.0, 29.0)):
        rated(level=level, mu=mu, sigma=3.0, games=100)
    for i in range(2):
        player, token = make_player(f"new{i}")
        player.token = token
        people[player.username] = player
        rated(player=player, mu=30.0, sigma=6.0, games=3)
    rated(player=people["p00"], mu=40.0, sigma=1.0, games=50, pool="house")
    return people


def as_player(player):
    from rest_framework.test import APIClient

    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    return c


# --- the board, from real rated games ------------------------------------------------


def test_real_rated_games_make_the_board_and_its_ranks(clients, api, settings):
    """Ratings of people and bot levels from rated games played to their end: the board
    is the established ones, best first, ranks 1, 2, ...; the provisional are apart."""
    settings.UNO_RATING_PROVISIONAL_GAMES = 2
    people = clients(4)
    rng = random.Random(7)
    for i in range(3):
        gid = start_table(people[:3] if i == 2 else people, options=SHORT, rated=True,
                          bots=[{"level": "random"}] if i < 2 else [])
        play_out_every_seat(gid, rng)
    # one more game for three of them, unrated: it changes nothing
    play_out_every_seat(start_table(people[:3], options=SHORT), rng)
    assert {r.games for r in Rating.objects.filter(player=people[3].player)} == {2}
    entries = whole_board(api, limit=2)
    assert_board(entries)
    assert {e["username"] for e in entries} == {c.player.username for c in people} | {"bot:random"}
    assert sum(RankBucket.objects.filter(pool="standard").values_list("count", flat=True)) == len(entries)
    page = assert_json(api.get(f"{BOARD}/standard"), 200)
    assert page["count"] == 5 and page["next_cursor"] is None and page["results"] == entries
    # a rated game of a new player: provisional, not on the board
    newcomer = clients(1)[0]
    play_out_every_seat(start_table([newcomer, people[0]], options=SHORT, rated=True), rng)
    assert newcomer.player.username not in {e["username"] for e in whole_board(api)}
    mine = assert_json(newcomer.get(f"{BOARD}/standard?around=me"), 200)
    assert mine["me"]["provisional"] is True and mine["me"]["rank"] is None and mine["me"]["games"] == 1
    assert_board(whole_board(api, limit=3))
    # the other presets' boards are empty
    other = assert_json(api.get(f"{BOARD}/house"), 200)
    assert other == {"ruleset": "house", "count": 0, "results": [], "next_cursor": None, "me": None}


# --- pages -------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 4, 5, 27, 100])
def test_pages_chain_without_repeats_or_gaps(board, api, limit):
    entries = whole_board(api, limit=limit)
    assert len(entries) == 27
    assert_board(entries)


def test_the_first_page_by_default_holds_50_and_counts_the_board(board, api):
    page = assert_json(api.get(f"{BOARD}/standard"), 200)
    assert page["count"] == 27 and len(page["results"]) == 27 and page["next_cursor"] is None
    assert page["results"][0]["rank"] == 1


def test_equal_ratings_are_ordered_by_id_also_across_a_page_boundary(board, api):
    order = full_order()
    tie = [r for r in order if r.player_id and r.player.username in ("p15", "p16", "p05", "p09")]
    assert len({(r.mu, r.sigma) for r in tie}) == 1 and [r.pk for r in tie] == sorted(r.pk for r in tie)
    start = order.index(tie[0])
    # a page that ends inside the tie: its cursor carries an ordinal that three others share
    first = assert_json(api.get(f"{BOARD}/standard?limit={start + 2}"), 200)
    assert [e["username"] for e in first["results"][-2:]] == [name_of(r) for r in tie[:2]]
    rest = assert_json(api.get(f"{BOARD}/standard?limit=3&after={first['next_cursor']}"), 200)
    assert [e["username"] for e in rest["results"][:2]] == [name_of(r) for r in tie[2:]]
    assert [e["rank"] for e in rest["results"]] == [start + 3, start + 4, start + 5]
    assert len({e["rating"] for e in first["results"][-2:] + rest["results"][:2]}) == 1


def test_a_page_is_read_from_where_the_cursor_points_even_after_the_board_changed(board, api):
    """The cursor is a position (ordinal, id): a rating that moves above it meanwhile
    neither repeats nor shifts the entries after it."""
    first = assert_json(api.get(f"{BOARD}/standard?limit=10"), 200)
    below = full_order()[10:]
    name = next(e["username"] for e in first["results"] if not e["is_bot"])
    moved = Rating.objects.get(player__username=name)
    was = moved.bucket
    moved.mu -= 20
    moved.ordinal = ratings.ordinal(moved.mu, moved.sigma)
    moved.bucket = services.bucket_of(moved.ordinal)
    moved.save()
    services._count_buckets("standard", {was: -1, moved.bucket: 1})
    page = assert_json(api.get(f"{BOARD}/standard?limit=30&after={first['next_cursor']}"), 200)
    names = [e["username"] for e in page["results"]]
    assert moved.player.username in names  # it fell below the cursor: listed once, at its new place
    assert [n for n in names if n != moved.player.username] == [name_of(r) for r in below]


# --- around ----------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_around_me_lists_the_entries_around_the_caller(board, where):
    order = full_order()
    at = {"first": 0, "middle": 13, "last": len(order) - 1}[where]
    me = order[at]
    if me.player_id is None:  # a bot level holds that place: take the next player
        at += 1 if at < len(order) - 1 else -1
        me = order[at]
    answer = assert_json(as_player(board[me.player.username]).get(f"{BOARD}/standard?around=me&limit=6"), 200)
    assert answer["me"]["username"] == me.player.username and answer["me"]["rank"] == at + 1
    assert answer["me"]["provisional"] is False and answer["count"] == len(order)
    lo, hi = max(0, at - 3), min(len(order), at + 4)
    assert [e["username"] for e in answer["results"]] == [name_of(r) for r in order[lo:hi]]
    assert [e["rank"] for e in answer["results"]] == list(range(lo + 1, hi + 1))
    assert answer["me"] in answer["results"]
    if hi == len(order):
        assert answer["next_cursor"] is None
    else:  # the board goes on from the last entry listed
        more = assert_json(as_player(board[me.player.username]).get(
            f"{BOARD}/standard?limit=2&after={answer['next_cursor']}"), 200)
        assert [e["username"] for e in more["results"]] == [name_of(r) for r in order[hi:hi + 2]]
        assert [e["rank"] for e in more["results"]] == [hi + 1, hi + 2]


def test_around_gives_every_rank_as_the_full_ordering_does(board, api):
    """rank_of (RankBuckets above, the few above in the same bucket) for every entry:
    ties, a negative ordinal, entries sharing a bucket."""
    order = full_order()
    assert min(r.bucket for r in order) < 0 < max(r.bucket for r in order)
    assert len({r.bucket for r in order}) < len(order)  # some share a bucket
    for position, r in enumerate(order, start=1):
        answer = assert_json(api.get(f"{BOARD}/standard?around={name_of(r)}&limit=1"), 200)
        assert answer["me"]["rank"] == position
        assert answer["results"] == [answer["me"]]


def test_limit_one_around_lists_the_entry_alone(board):
    me = board["p10"]
    answer = assert_json(as_player(me).get(f"{BOARD}/standard?around=me&limit=1"), 200)
    assert [e["username"] for e in answer["results"]] == ["p10"]


def test_a_provisional_caller_gets_their_entry_unranked_and_no_list(board):
    answer = assert_json(as_player(board["new0"]).get(f"{BOARD}/standard?around=me"), 200)
    assert answer["results"] == [] and answer["next_cursor"] is None and answer["count"] == 27
    me = answer["me"]
    assert (me["username"], me["rank"], me["provisional"], me["games"]) == ("new0", None, True, 3)
    assert me["rating"] == round(ratings.ordinal(30.0, 6.0), 2)


def test_a_caller_without_a_rating_in_the_preset_gets_no_entry(board, auth_client):
    answer = assert_json(auth_client.get(f"{BOARD}/standard?around=me"), 200)
    assert answer == {"ruleset": "standard", "count": 27, "results": [], "next_cursor": None, "me": None}
    # p01 is rated in standard only; p00 in house too
    answer = assert_json(as_player(board["p01"]).get(f"{BOARD}/duo?around=me"), 200)
    assert answer["me"] is None and answer["results"] == []
    house = assert_json(as_player(board["p00"]).get(f"{BOARD}/house?around=me"), 200)
    assert house["me"]["rank"] == 1 and [e["username"] for e in house["results"]] == ["p00"]


def test_around_a_username_or_a_bot_level(board, api):
    by_name = assert_json(api.get(f"{BOARD}/standard?around=P07&limit=2"), 200)  # as log-in finds names
    assert by_name["me"]["username"] == "p07"
    bot = assert_json(api.get(f"{BOARD}/standard?around=bot:hard&limit=2"), 200)
    assert bot["me"]["username"] == "bot:hard" and bot["me"]["is_bot"] is True and bot["me"]["bot_level"] == "hard"
    position = [name_of(r) for r in full_order()].index("bot:hard") + 1
    assert bot["me"]["rank"] == position
    provisional = assert_json(api.get(f"{BOARD}/standard?around=new1"), 200)
    assert provisional["me"]["provisional"] is True and provisional["results"] == []
    assert assert_json(api.get(f"{BOARD}/duo?around=bot:easy"), 200)["me"] is None


def test_around_me_needs_credentials(board, api):
    body = assert_problem(api.get(f"{BOARD}/standard?around=me"), 401, "not_authenticated")
    assert "credentials" in body["detail"]
    r = api.get(f"{BOARD}/standard?around=me")
    assert r["WWW-Authenticate"] == "Token"
    api.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert_problem(api.get(f"{BOARD}/standard"), 401, "authentication_failed")


# --- bad input -------------------------------------------------------------------------


def test_an_unknown_ruleset_is_404_naming_the_presets(api):
    body = assert_problem(api.get(f"{BOARD}/uno-deluxe"), 404, "unknown_ruleset")
    assert all(name in body["detail"] for name in engine.PRESETS)
    assert_problem(api.get(f"{BOARD}/Standard"), 404, "unknown_ruleset")


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten", "1.5", "", "9" * 5000])
def test_a_bad_limit_is_400(board, api, limit):
    body = assert_problem(api.get(f"{BOARD}/standard?limit={limit}"), 400, "invalid")
    assert list(body["fields"]) == ["limit"]
    body = assert_problem(api.get(f"{BOARD}/standard?around=p01&limit={limit}"), 400, "invalid")
    assert list(body["fields"]) == ["limit"]


def cursor_of(*parts) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(parts)).encode()).decode().rstrip("=")


@pytest.mark.parametrize("after", [
    "", "x", "not base64!", "A" * 201, cursor_of("board", "standard", 1.0, 1),
    cursor_of("board", "house", 20.0, 1, 5),  # another board's
    cursor_of("newest", "standard", 20.0, 1, 5), cursor_of("board", "standard", "20", 1, 5),
    cursor_of("board", "standard", 20.0, 0, 5), cursor_of("board", "standard", 20.0, 1, 0),
    cursor_of("board", "standard", 20.0, True, 5), cursor_of("board", "standard", 20.0, 2**63, 5),
    base64.urlsafe_b64encode(b'["board","standard",NaN,1,5]').decode(),
    base64.urlsafe_b64encode(b'["board","standard",Infinity,1,5]').decode(),
    base64.urlsafe_b64encode(b'{"board": 1}').decode(),
])
def test_a_bad_cursor_is_400(board, api, after):
    body = assert_problem(api.get(f"{BOARD}/standard", {"after": after}), 400, "invalid")
    assert list(body["fields"]) == ["after"]


def test_a_cursor_of_another_board_is_refused(board, api):
    page = assert_json(api.get(f"{BOARD}/standard?limit=2"), 200)
    assert_problem(api.get(f"{BOARD}/house?after={page['next_cursor']}"), 400, "invalid")
    assert assert_json(api.get(f"{BOARD}/standard?after={page['next_cursor']}"), 200)["results"]


def test_around_with_after_is_400(board):
    page = assert_json(as_player(board["p01"]).get(f"{BOARD}/standard?limit=2"), 200)
    body = assert_problem(as_player(board["p01"]).get(f"{BOARD}/standard?around=me&after={page['next_cursor']}"),
                          400, "invalid")
    assert list(body["fields"]) == ["after"]


@pytest.mark.parametrize("around", ["nobody", "bot:", "bot:expert", "bot:Hard", "", "x" * 151, "a\x00b"])
def test_around_nobody_is_404(board, api, around):
    assert_problem(api.get(f"{BOARD}/standard", {"around": around}), 404, "not_found")


def test_the_board_is_read_anonymously_under_the_anonymous_throttle(board, api, throttle_rates):
    throttle_rates(anon="2/min")
    for _ in range(2):
        assert_json(api.get(f"{BOARD}/standard?limit=1"), 200)
    assert_problem(api.get(f"{BOARD}/standard?limit=1"), 429, "throttled")
    # a player's requests count against their own rate
    assert_json(as_player(board["p01"]).get(f"{BOARD}/standard?around=me"), 200)


def test_the_operation_is_typed_in_the_schema(api):
    schema = api.get("/api/schema/?format=json").json()
    op = schema["paths"]["/api/v1/leaderboards/{ruleset}"]["get"]
    assert op["tags"] == ["standing"]
    params = {p["name"]: p for p in op["parameters"]}
    assert sorted(params["ruleset"]["schema"]["enum"]) == sorted(engine.PRESETS)
    assert params["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert {"after", "around"} <= set(params)
    assert {"200", "400", "401", "404", "429"} <= set(op["responses"])
    assert {} in op["security"]  # readable without credentials
    body = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    entry = schema["components"]["schemas"][body]["properties"]
    assert set(entry) == {"ruleset", "count", "results", "next_cursor", "me"}
