"""``GET /api/v1/games`` paged two ways (games/pagination.py): by page number as always
(``page``, ``page_size``; ``count``, ``next``, ``previous``), and by cursor as ``/moves``
is (``after``, ``limit``; ``next_cursor``, ``next``), over one ordering, with every
answer carrying ``next_cursor``.  A bad cursor is a 400 problem naming ``after``."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from tests.games_support import GAMES, clients, create_game, start_table  # noqa: F401 (fixture)
from tests.helpers import assert_json, assert_problem

pytestmark = pytest.mark.django_db

KEYS = {"count", "next", "previous", "results", "next_cursor"}


def walk(client, query: str) -> tuple[list[int], list[dict]]:
    """Every game id of the list from ``GAMES?query`` on, following ``next``; and each answer."""
    answers = [assert_json(client.get(f"{GAMES}?{query}"), 200)]
    while answers[-1]["next"]:
        answers.append(assert_json(client.get(answers[-1]["next"]), 200))
    return [g["id"] for answer in answers for g in answer["results"]], answers


def cursor(*parts: object) -> str:
    """A cursor as the server writes them (base64url of a JSON list, unpadded)."""
    return base64.urlsafe_b64encode(json.dumps(parts).encode()).decode().rstrip("=")


def test_the_cursor_lists_what_the_pages_list(clients):
    alice, bob = clients(2)
    created = [create_game(alice)["id"] for _ in range(6)] + [start_table([alice, bob])]
    newest_first = created[::-1]

    by_page, pages = walk(alice, "page_size=3")
    by_cursor, answers = walk(alice, "limit=3")
    assert by_page == by_cursor == newest_first
    assert [len(a["results"]) for a in answers] == [3, 3, 1]
    for answer in pages + answers:
        assert set(answer) == KEYS and answer["count"] == 7
    assert pages[1]["previous"] and all(a["previous"] is None for a in answers)  # cursors go forward only
    assert answers[0]["next"].endswith(f"{GAMES}?after={answers[0]['next_cursor']}&limit=3")
    assert pages[-1]["next_cursor"] is answers[-1]["next_cursor"] is None

    # a page's next_cursor goes on where the page ends, by cursor
    page = assert_json(alice.get(f"{GAMES}?page_size=2"), 200)
    rest = assert_json(alice.get(f"{GAMES}?after={page['next_cursor']}&limit=2"), 200)
    assert [g["id"] for g in rest["results"]] == newest_first[2:4]
    # without limit, a cursor pages by the default page size
    assert [g["id"] for g in assert_json(alice.get(f"{GAMES}?after={page['next_cursor']}"), 200)["results"]] \
        == newest_first[2:]

    # the filters are kept in ``next``
    waiting, answers = walk(alice, "status=waiting&mine=true&limit=4")
    assert waiting == newest_first[1:] and "status=waiting" in answers[0]["next"] and answers[0]["count"] == 6


def test_a_cursor_neither_repeats_nor_skips_games_created_meanwhile(clients):
    (alice,) = clients(1)
    older = [create_game(alice)["id"] for _ in range(5)][::-1]

    first = assert_json(alice.get(f"{GAMES}?limit=2"), 200)
    create_game(alice)
    create_game(alice)
    ids, _ = walk(alice, f"after={first['next_cursor']}&limit=2")

    assert [g["id"] for g in first["results"]] + ids == older
    # (a page number counts from the newest: page 2 now repeats what page 1 showed)
    assert [g["id"] for g in assert_json(alice.get(f"{GAMES}?page=2&page_size=2"), 200)["results"]] == older[:2]


def test_the_my_turn_list_by_cursor_follows_the_deadlines(clients):
    alice, bob = clients(2)
    now = timezone.now()
    games = {}
    for name, deadline in [("late", now + timedelta(hours=5)), ("none", None), ("soon", now + timedelta(minutes=1)),
                           ("none_too", None), ("late_too", now + timedelta(hours=5))]:
        games[name] = start_table([alice, bob], turn_seconds=86400)
        Game.objects.filter(pk=games[name]).update(current_seat=0, deadline=deadline)  # alice's decision
    most_urgent = [games[n] for n in ("soon", "late", "late_too", "none", "none_too")]

    by_cursor, answers = walk(alice, "my_turn=true&limit=1")
    by_page, _ = walk(alice, "my_turn=true&page_size=1")
    assert by_cursor == by_page == most_urgent
    assert len(answers) == 5 and all("my_turn=true" in a["next"] for a in answers[:-1])
    assert walk(bob, "my_turn=true&limit=1")[0] == []


def test_a_cursor_of_another_ordering_is_refused(clients):
    alice, bob = clients(2)
    for _ in range(2):
        Game.objects.filter(pk=start_table([alice, bob])).update(current_seat=0)
    urgent = assert_json(alice.get(f"{GAMES}?my_turn=true&limit=1"), 200)["next_cursor"]
    newest = assert_json(alice.get(f"{GAMES}?limit=1"), 200)["next_cursor"]

    assert_json(alice.get(f"{GAMES}?after={urgent}&my_turn=true"), 200)
    assert_json(alice.get(f"{GAMES}?after={newest}&status=active"), 200)  # other filters, same ordering
    for query in (f"after={urgent}", f"after={newest}&my_turn=true"):
        assert assert_problem(alice.get(f"{GAMES}?{query}"), 400, "invalid")["fields"] == {
            "after": ["the next_cursor of an earlier answer of this list"]}


WHEN = "2020-01-01T00:00:00+00:00"


@pytest.mark.parametrize("after", [
    "", "x", "%25%25", "%C3%A9", "A" * 201,
    base64.urlsafe_b64encode(b"\xff\xfe").decode(),  # not JSON
    cursor(), cursor("newest", WHEN), cursor("newest", WHEN, 1, 2), cursor("recent", WHEN, 1),
    cursor("newest", "2020-01-01T00:00:00", 1),  # no time zone
    cursor("newest", "yesterday", 1), cursor("newest", None, 1), cursor("newest", 17, 1),
    cursor("newest", WHEN, True), cursor("newest", WHEN, 0), cursor("newest", WHEN, 2**63), cursor("newest", WHEN, 1.5),
    base64.urlsafe_b64encode(json.dumps({"a": 1, "b": 2, "c": 3}).encode()).decode(),
])
def test_bad_cursors_are_a_400_naming_after(clients, after):
    (alice,) = clients(1)
    create_game(alice)

    body = assert_problem(alice.get(f"{GAMES}?after={after}"), 400, "invalid")
    assert body["fields"] == {"after": ["the next_cursor of an earlier answer of this list"]}


def test_a_well_formed_cursor_of_no_game_is_a_position_like_any(clients):
    (alice,) = clients(1)
    ids = [create_game(alice)["id"] for _ in range(3)]

    after_all = assert_json(alice.get(f"{GAMES}?after={cursor('newest', WHEN, 1)}"), 200)
    before_all = assert_json(alice.get(f"{GAMES}?after={cursor('newest', '9999-01-01T00:00:00+00:00', 2**62)}"), 200)

    assert after_all["results"] == [] and after_all["next"] is None and after_all["count"] == 3
    assert [g["id"] for g in before_all["results"]] == ids[::-1]


@pytest.mark.parametrize("query, fields", [
    ("limit=0", ["limit"]), ("limit=101", ["limit"]), ("limit=ten", ["limit"]), ("after=x&page=1", ["page"]),
    ("limit=5&page_size=5", ["page_size"]), ("after=x&limit=5&page=2&page_size=5", ["page", "page_size"]),
])
def test_limit_out_of_bounds_and_mixed_styles_are_refused(clients, query, fields):
    (alice,) = clients(1)
    assert sorted(assert_problem(alice.get(f"{GAMES}?{query}"), 400, "invalid")["fields"]) == fields


def test_the_schema_documents_both_styles(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"][GAMES]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    moves = {p["name"]: p for p in schema["paths"][f"{GAMES}/{{game_id}}/moves"]["get"]["parameters"]}

    assert {"after", "limit"} <= set(params) & set(moves)  # the names of /moves
    assert (params["limit"]["schema"]["minimum"], params["limit"]["schema"]["maximum"]) == (1, 100)
    assert "next_cursor" in params["after"]["description"] and "after" in operation["description"]
    # no defaults a generated client would send (page and page_size take no cursor)
    assert not any("default" in params[name]["schema"] for name in ("page", "page_size", "after", "limit"))
    page = schema["components"]["schemas"]["GamePage"]
    assert set(page["properties"]) == KEYS and set(page["required"]) == KEYS
    assert page["properties"]["next_cursor"] == {"type": "string", "nullable": True,
                                                 "description": page["properties"]["next_cursor"]["description"]}
    assert "next_cursor" in schema["components"]["schemas"]["MovePage"]["properties"]
