"""The games endpoints of API.md, every documented error included.

Every refused action is checked to have changed nothing (same version, no new move).
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import engine, services
from games.models import Game, GameStatus, IdempotencyRecord, Move, Round, Score, Seat
from tests.games_support import (
    GAMES,
    actor,
    assert_unchanged,
    by_seat,
    clients,  # noqa: F401 (fixture)
    create_game,
    fix_seeds,
    game_url,
    play_out,
    refused,
    snapshot,
    start_table,
    true_state,
)
from tests.helpers import assert_json, assert_problem
from tests.presets_support import options_of

pytestmark = pytest.mark.django_db

ME = "/api/v1/players/me"


@pytest.fixture
def duel(clients):
    """A started two-player game: (gid, {seat: client}, spectator client)."""
    a, b, spectator = clients(3)
    gid = start_table([a, b], options={"rounds": 1})
    return gid, by_seat(gid, [a, b]), spectator


def view(client, gid) -> dict:
    return assert_json(client.get(game_url(gid)), 200)


# ======================================================================================
# Creating games
# ======================================================================================
def test_create_with_defaults(clients):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": "standard"}, format="json")
    g = assert_json(r, 201)
    assert g["ruleset"] == "standard" and g["status"] == "waiting" and g["version"] == 0
    assert g["max_players"] == 4 and g["turn_seconds"] is None and g["round"] == 0
    assert g["seat"] == 0 and g["creator"] == alice.player.username
    assert g["requested_options"] == {}
    assert g["options"] == {name: spec.default for name, spec in options_of("standard").items()}
    assert g["players"] == [
        {"seat": 0, "username": alice.player.username, "is_bot": False, "bot_level": None,
         "autopilot": False, "left": False, "hand_count": 0, "score": 0, "team": None, "status": "active",
         "deadline": None, "online": True, "time_left": None, "away_until": None}
    ]
    assert g["hand"] == [] and g["legal_actions"] == [] and g["winner"] is None
    assert g["obligations"] == [] and g["deadline"] is None and g["deck"] is None
    assert "seed" not in g
    row = Game.objects.get(pk=g["id"])
    assert row.creator == alice.player and row.state is None and row.seed


def test_create_with_options_on_top_of_a_preset(clients):
    (alice,) = clients(1)
    g = create_game(alice, ruleset="house", options={"stacking": "same", "target_score": 200}, max_players=3)
    assert g["requested_options"] == {"stacking": "same", "target_score": 200}
    assert g["options"]["stacking"] == "same" and g["options"]["target_score"] == 200
    assert g["options"]["uno_penalty"] == 4  # from the preset
    assert g["max_players"] == 3


def test_the_view_describes_the_deck_the_options_made(clients):
    """Issue 10: the game view shows the deck's composition: null while waiting, then
    the preset's base deck and the parts its options added, with the count per rank."""
    alice, bob = clients(2)
    g = create_game(alice, ruleset="standard_112", options={"buzzer_cards": True}, max_players=2)
    assert g["deck"] is None
    assert bob.post(game_url(g["id"], "join")).status_code == 200
    assert alice.post(game_url(g["id"], "start")).status_code == 200
    deck = assert_json(bob.get(game_url(g["id"])), 200)["deck"]
    assert deck["name"] == "standard_112+buzzer" and deck["size"] == 112 + 8
    assert deck["ranks"]["buzzer"] == 8 and deck["ranks"]["wild_shuffle_hands"] == 1
    assert deck["ranks"]["wild_customizable"] == 3 and deck["ranks"]["0"] == 4 and deck["ranks"]["7"] == 8
    assert sum(deck["ranks"].values()) == deck["size"]
    state = true_state(g["id"])
    assert deck["size"] == sum(map(len, state.hands)) + len(state.draw_pile) + len(state.discard)


@pytest.mark.parametrize(
    "options, field",
    [
        ({"stacking": "sometimes"}, "options.stacking"),
        ({"stacking": True}, "options.stacking"),
        ({"target_score": 0}, "options.target_score"),
        ({"target_score": "500"}, "options.target_score"),
        ({"uno_penalty": 2.5}, "options.uno_penalty"),
        ({"seven_zero": "yes"}, "options.seven_zero"),
        ({"no_such_option": 1}, "options.no_such_option"),
        ({"straights": "yes"}, "options.straights"),
        ({"face_down": True}, "options.face_down"),  # named in RULES.md, not played yet
        ({"teams": "yes"}, "options.teams"),
        ({"wild_draw_four": "sometimes"}, "options.wild_draw_four"),
        ({"wild_keeps_color": False}, "options.wild_keeps_color"),  # always true (RULES.md)
        ({"rounds": 2, "target_score": 100}, "options.rounds"),
    ],
)
def test_create_with_invalid_options(clients, options, field):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": "standard", "options": options}, format="json")
    body = assert_problem(r, 400, "invalid_options")
    assert list(body["fields"]) == [field]
    assert Game.objects.count() == 0


@pytest.mark.parametrize("ruleset", ["nope", "decktet", "STANDARD", ""])
def test_create_with_an_unknown_preset(clients, ruleset):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": ruleset}, format="json")
    assert r.status_code == 400
    body = assert_problem(r, 400, r.json()["code"])
    assert body["code"] in ("invalid_options", "invalid")
    assert "ruleset" in body["fields"]
    assert Game.objects.count() == 0


def test_create_needs_a_ruleset(clients):
    (alice,) = clients(1)
    body = assert_problem(alice.post(GAMES, {}, format="json"), 400, "invalid")
    assert "ruleset" in body["fields"]


@pytest.mark.parametrize("max_players", [0, 1, 11, 1000, -2])
def test_create_with_max_players_out_of_range(clients, max_players):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": "standard", "max_players": max_players}, format="json")
    body = assert_problem(r, 400, r.json().get("code"))
    assert body["code"] in ("invalid", "invalid_options") and "max_players" in body["fields"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"ruleset": "standard", "options": ["stacking"]}, "options"),
        ({"ruleset": "standard", "options": "stacking=same"}, "options"),
        ({"ruleset": "standard", "max_players": "4"}, "max_players"),
        ({"ruleset": "standard", "max_players": 4.5}, "max_players"),
        ({"ruleset": "standard", "max_players": True}, "max_players"),
        ({"ruleset": "standard", "turn_seconds": "60"}, "turn_seconds"),
        ({"ruleset": "standard", "turn_seconds": False}, "turn_seconds"),
        ({"ruleset": "standard", "bots": {"level": "easy"}}, "bots"),
        ({"ruleset": "standard", "bots": ["easy"]}, "bots.0"),
        ({"ruleset": 7}, "ruleset"),
        ({"ruleset": ["standard"]}, "ruleset"),
    ],
)
def test_create_with_wrong_types(clients, body, field):
    (alice,) = clients(1)
    problem = assert_problem(alice.post(GAMES, body, format="json"), 400, "invalid")
    assert any(k == field or k.startswith(field + ".") for k in problem["fields"]), problem
    assert Game.objects.count() == 0


@pytest.mark.parametrize("raw", ["[]", '"standard"', "17", "null"])
def test_create_body_not_an_object(clients, raw):
    (alice,) = clients(1)
    assert_problem(alice.post(GAMES, raw, content_type="application/json"), 400, "invalid")


def test_create_malformed_json(clients):
    (alice,) = clients(1)
    assert_problem(alice.post(GAMES, '{"ruleset": ', content_type="application/json"), 400, "malformed_json")


def test_create_form_encoded_is_unsupported(clients):
    (alice,) = clients(1)
    assert_problem(alice.post(GAMES, {"ruleset": "standard"}), 415, "unsupported_media_type")


def test_create_with_bots(clients):
    (alice,) = clients(1)
    g = create_game(alice, bots=[{"level": "easy"}, {"level": "hard"}])
    assert g["max_players"] == 3  # default: 1 + bots
    assert [(p["seat"], p["is_bot"], p["bot_level"], p["username"]) for p in g["players"]] == [
        (0, False, None, alice.player.username), (1, True, "easy", None), (2, True, "hard", None)
    ]
    seats = Seat.objects.filter(game_id=g["id"]).order_by("seat")
    assert [(s.player_id, s.bot_level) for s in seats] == [(alice.player.pk, ""), (None, "easy"), (None, "hard")]


def test_create_with_bots_and_more_seats(clients):
    (alice,) = clients(1)
    g = create_game(alice, bots=[{"level": "random"}], max_players=4)
    assert g["max_players"] == 4 and len(g["players"]) == 2


@pytest.mark.parametrize(
    "bots, max_players, field",
    [
        ([{"level": "genius"}], None, "bots.0.level"),
        ([{}], None, "bots.0.level"),
        ([{"level": "easy"}] * 2, 2, "bots"),  # more bots than free seats
        ([{"level": "easy"}] * 10, None, "max_players"),  # 11 seats
    ],
)
def test_create_with_bad_bots(clients, bots, max_players, field):
    (alice,) = clients(1)
    body = {"ruleset": "standard", "bots": bots}
    if max_players:
        body["max_players"] = max_players
    r = alice.post(GAMES, body, format="json")
    problem = assert_problem(r, 400, r.json()["code"])
    assert field in problem["fields"], problem
    assert Game.objects.count() == 0


@pytest.mark.parametrize("seconds", [None, 1, 30, 14 * 24 * 3600])
def test_create_turn_seconds_in_bounds(clients, seconds):
    (alice,) = clients(1)
    assert create_game(alice, turn_seconds=seconds)["turn_seconds"] == seconds


@pytest.mark.parametrize("seconds", [0, -5, 14 * 24 * 3600 + 1, 10**12])
def test_create_turn_seconds_out_of_bounds(clients, seconds):
    (alice,) = clients(1)
    r = alice.post(GAMES, {"ruleset": "standard", "turn_seconds": seconds}, format="json")
    assert "turn_seconds" in assert_problem(r, 400, "invalid")["fields"]


def test_create_needs_credentials(api):
    assert_problem(api.post(GAMES, {"ruleset": "standard"}, format="json"), 401, "not_authenticated")


# ======================================================================================
# Listing games
# ======================================================================================
def test_list_filters_status_and_mine(clients):
    alice, bob, carol = clients(3)
    waiting = create_game(alice)["id"]
    active = start_table([alice, bob])
    finished = start_table([bob, carol], options={"rounds": 1})
    play_out(finished)
    others = create_game(carol)["id"]

    def ids(client, query=""):
        body = assert_json(client.get(f"{GAMES}{query}"), 200)
        assert body["count"] == len(body["results"])
        return {g["id"] for g in body["results"]}

    assert ids(alice) == {waiting, active, finished, others}
    assert ids(alice, "?status=waiting") == {waiting, others}
    assert ids(alice, "?status=active") == {active}
    assert ids(alice, "?status=finished") == {finished}
    assert ids(alice, "?mine=true") == {waiting, active}
    assert ids(alice, "?mine=false") == {waiting, active, finished, others}
    assert ids(alice, "?mine=true&status=waiting") == {waiting}
    assert ids(carol, "?mine=true") == {finished, others}
    summary = next(g for g in assert_json(alice.get(GAMES), 200)["results"] if g["id"] == active)
    assert summary["seat"] == 0 and summary["seated"] == 2 and summary["status"] == "active"


def test_list_my_turn_orders_by_deadline(clients):
    alice, bob = clients(2)
    now = timezone.now()
    games = {}
    for name, deadline in [("late", now + timedelta(hours=5)), ("none", None), ("soon", now + timedelta(minutes=1)),
                           ("mid", now + timedelta(hours=1))]:
        gid = start_table([alice, bob], turn_seconds=86400)
        # make it alice's decision, with this deadline
        Game.objects.filter(pk=gid).update(deadline=deadline)
        seat = by_seat(gid, [alice, bob])
        alice_seat = next(s for s, c in seat.items() if c is alice)
        if actor(gid) != alice_seat:
            Game.objects.filter(pk=gid).update(current_seat=alice_seat)
        games[name] = gid
    theirs = start_table([alice, bob])
    bob_seat = next(s for s, c in by_seat(theirs, [alice, bob]).items() if c is bob)
    Game.objects.filter(pk=theirs).update(current_seat=bob_seat)
    create_game(alice)  # waiting: never "my turn"

    body = assert_json(alice.get(f"{GAMES}?my_turn=true"), 200)
    assert [g["id"] for g in body["results"]] == [games["soon"], games["mid"], games["late"], games["none"]]
    assert all(g["my_turn"] for g in body["results"])
    body = assert_json(bob.get(f"{GAMES}?my_turn=true"), 200)
    assert [g["id"] for g in body["results"]] == [theirs]


@pytest.mark.parametrize("query, field", [("?status=done", "status"), ("?mine=maybe", "mine"),
                                          ("?mine=", "mine"), ("?my_turn=2", "my_turn")])
def test_list_bad_filters(clients, query, field):
    (alice,) = clients(1)
    assert field in assert_problem(alice.get(f"{GAMES}{query}"), 400, "invalid")["fields"]


def test_list_is_paginated(clients):
    (alice,) = clients(1)
    for _ in range(5):
        create_game(alice)
    body = assert_json(alice.get(f"{GAMES}?page_size=2"), 200)
    assert body["count"] == 5 and len(body["results"]) == 2 and body["next"]
    body = assert_json(alice.get(f"{GAMES}?page_size=2&page=3"), 200)
    assert len(body["results"]) == 1 and body["next"] is None
    assert_problem(alice.get(f"{GAMES}?page=9"), 404, "not_found")


def test_list_reads_a_pages_seats_in_one_query(clients):
    alice, bob = clients(2)
    for _ in range(3):
        start_table([alice, bob])

    def listed() -> int:
        body = assert_json(alice.get(f"{GAMES}?page_size=50"), 200)
        assert all(len(g["players"]) == 2 and g["seated"] == 2 for g in body["results"])
        return len(body["results"])

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as three:
        assert listed() == 3
    for _ in range(4):
        start_table([alice, bob])
    with CaptureQueriesContext(connection) as seven:
        assert listed() == 7
    assert len(seven.captured_queries) == len(three.captured_queries)  # not one per game


def test_list_needs_credentials(api):
    assert_problem(api.get(GAMES), 401, "not_authenticated")


# ======================================================================================
# Join, leave, start
# ======================================================================================
def test_join_takes_the_next_free_seat(clients):
    alice, bob = clients(2)
    gid = create_game(alice, max_players=3)["id"]
    g = assert_json(bob.post(game_url(gid, "join")), 200)
    assert g["seat"] == 1 and [p["username"] for p in g["players"]] == [alice.player.username, bob.player.username]
    assert g["hand"] == [] and g["version"] == 0


def test_join_twice_is_already_seated(clients):
    alice, bob = clients(2)
    gid = create_game(alice)["id"]
    bob.post(game_url(gid, "join"))
    assert_problem(bob.post(game_url(gid, "join")), 409, "already_seated")
    assert_problem(alice.post(game_url(gid, "join")), 409, "already_seated")
    assert Seat.objects.filter(game_id=gid).count() == 2


def test_join_a_full_game(clients):
    alice, bob, carol = clients(3)
    gid = create_game(alice, max_players=2)["id"]
    bob.post(game_url(gid, "join"))
    assert_problem(carol.post(game_url(gid, "join")), 409, "game_full")
    gid = create_game(alice, max_players=2, bots=[{"level": "easy"}])["id"]
    assert_problem(carol.post(game_url(gid, "join")), 409, "game_full")


def test_join_a_running_or_finished_game(clients):
    alice, bob, carol = clients(3)
    gid = start_table([alice, bob], max_players=3, options={"rounds": 1})
    snap = snapshot(gid)
    assert_problem(carol.post(game_url(gid, "join")), 409, "game_not_waiting")
    assert_unchanged(gid, snap)
    play_out(gid)
    assert_problem(carol.post(game_url(gid, "join")), 409, "game_not_waiting")


def unknown_game_and_no_credentials(clients, api, method: str, tail: str = "") -> int:
    """``method`` (``"get"``, ``"post"``) on a game's URL ending in ``tail``: 404
    ``not_found`` for a game that does not exist, 401 ``not_authenticated`` for a real
    one without credentials.  Returns the real game's id."""
    (alice,) = clients(1)
    assert_problem(getattr(alice, method)(game_url(999999, tail)), 404, "not_found")
    gid = create_game(alice)["id"]
    assert_problem(getattr(api, method)(game_url(gid, tail)), 401, "not_authenticated")
    return gid


def test_join_unknown_game_and_credentials(clients, api):
    unknown_game_and_no_credentials(clients, api, "post", "join")


def test_leave_a_waiting_game_frees_the_seat(clients):
    alice, bob, carol = clients(3)
    gid = create_game(alice, max_players=2)["id"]
    bob.post(game_url(gid, "join"))
    g = assert_json(bob.post(game_url(gid, "leave")), 200)
    assert g["seat"] is None and "hand" not in g and len(g["players"]) == 1
    assert_json(carol.post(game_url(gid, "join")), 200)  # the seat is free again


def test_creator_leaving_passes_creatorship(clients):
    alice, bob, carol = clients(3)
    gid = create_game(alice)["id"]
    bob.post(game_url(gid, "join"))
    carol.post(game_url(gid, "join"))
    g = assert_json(alice.post(game_url(gid, "leave")), 200)
    assert g["creator"] == bob.player.username
    assert_problem(alice.post(game_url(gid, "start")), 403, "not_creator")
    g = assert_json(bob.post(game_url(gid, "start")), 200)
    # seats are renumbered without gaps at the start
    assert [p["seat"] for p in g["players"]] == [0, 1]
    assert [p["username"] for p in g["players"]] == [bob.player.username, carol.player.username]
    assert g["status"] == "active" and g["version"] == 1


def test_last_human_leaving_deletes_the_game(clients):
    alice, bob = clients(2)
    gid = create_game(alice)["id"]
    r = alice.post(game_url(gid, "leave"))
    assert r.status_code == 204 and not r.content
    assert_problem(bob.get(game_url(gid)), 404, "not_found")
    gid = create_game(alice, bots=[{"level": "easy"}])["id"]
    assert alice.post(game_url(gid, "leave")).status_code == 204
    assert not Game.objects.filter(pk=gid).exists() and not Seat.objects.filter(game_id=gid).exists()


def test_leave_when_not_seated(clients):
    alice, bob = clients(2)
    gid = create_game(alice)["id"]
    assert_problem(bob.post(game_url(gid, "leave")), 403, "not_seated")
    assert_problem(bob.post(game_url(999999, "leave")), 404, "not_found")


def test_leave_a_running_game_puts_the_seat_on_autopilot(clients):
    alice, bob = clients(2)
    gid = start_table([alice, bob])
    snap = snapshot(gid)
    g = assert_json(bob.post(game_url(gid, "leave")), 200)
    bob_seat = g["seat"]
    assert bob_seat is not None and g["players"][bob_seat]["autopilot"] is True
    assert Seat.objects.get(game_id=gid, seat=bob_seat).autopilot
    assert_unchanged(gid, snap)  # leaving is not a move


def test_leave_a_finished_game(clients):
    alice, bob = clients(2)
    gid = start_table([alice, bob], options={"rounds": 1})
    play_out(gid)
    assert_problem(bob.post(game_url(gid, "leave")), 409, "game_finished")


def test_start_errors(clients):
    alice, bob, carol = clients(3)
    gid = create_game(alice)["id"]
    assert_problem(alice.post(game_url(gid, "start")), 409, "not_enough_players")
    bob.post(game_url(gid, "join"))
    assert_problem(bob.post(game_url(gid, "start")), 403, "not_creator")
    assert_problem(carol.post(game_url(gid, "start")), 403, "not_creator")
    assert Game.objects.get(pk=gid).status == "waiting"
    assert_json(alice.post(game_url(gid, "start")), 200)
    snap = snapshot(gid)
    assert_problem(alice.post(game_url(gid, "start")), 409, "game_not_waiting")
    assert_unchanged(gid, snap)
    assert_problem(alice.post(game_url(999999, "start")), 404, "not_found")


def test_start_with_bots(clients):
    (alice,) = clients(1)
    gid = create_game(alice, bots=[{"level": "easy"}])["id"]
    g = assert_json(alice.post(game_url(gid, "start")), 200)
    assert g["status"] == "active" and len(g["hand"]) == 7
    assert Round.objects.filter(game_id=gid, number=1).exists()
    assert list(Move.objects.filter(game_id=gid).values_list("seq", "action")) == [(1, {"type": "start"})]


# ======================================================================================
# Reading a game
# ======================================================================================
def test_player_and_spectator_views(duel):
    gid, seats, spectator = duel
    state = true_state(gid)
    for seat, client in seats.items():
        g = view(client, gid)
        assert g["seat"] == seat and g["status"] == "active" and g["round"] == 1
        assert [c["id"] for c in g["hand"]] == state.hands[seat]
        assert all(set(c) == {"id", "color", "rank"} for c in g["hand"])
        assert g["legal_actions"] == engine.legal_actions(state, seat)
        assert [p["hand_count"] for p in g["players"]] == [len(h) for h in state.hands]
        assert g["current_seat"] == state.actor()
        assert g["top_card"]["id"] == state.discard[-1]
        assert g["draw_pile_count"] == len(state.draw_pile)
        assert "seed" not in g and g["winner"] is None
    g = view(spectator, gid)
    assert g["seat"] is None and "hand" not in g and g["legal_actions"] == []
    assert g["top_card"]["id"] == state.discard[-1]


def test_unknown_game_and_credentials(clients, api):
    gid = unknown_game_and_no_credentials(clients, api, "get")
    assert_problem(api.get(game_url(gid), HTTP_AUTHORIZATION="Token nope"), 401, "authentication_failed")


def test_etag_and_if_none_match(duel):
    gid, seats, spectator = duel
    seat = actor(gid)
    client = seats[seat]
    r = client.get(game_url(gid))
    etag = r["ETag"]
    assert etag
    r2 = client.get(game_url(gid), HTTP_IF_NONE_MATCH=etag)
    assert r2.status_code == 304 and not r2.content and r2["ETag"] == etag
    assert client.get(game_url(gid), HTTP_IF_NONE_MATCH='W/"other"').status_code == 200
    # another viewer sees another document: another tag
    other = spectator.get(game_url(gid))["ETag"]
    assert other != etag
    assert spectator.get(game_url(gid), HTTP_IF_NONE_MATCH=other).status_code == 304
    # a move changes it
    action = view(client, gid)["legal_actions"][0]
    assert_json(client.post(game_url(gid, "actions"), action, format="json"), 200)
    r3 = client.get(game_url(gid), HTTP_IF_NONE_MATCH=etag)
    assert r3.status_code == 200 and r3["ETag"] != etag
    assert spectator.get(game_url(gid), HTTP_IF_NONE_MATCH=other).status_code == 200


def test_if_none_match_uses_weak_comparison_and_star(duel):
    gid, seats, _ = duel
    client = seats[0]
    etag = client.get(game_url(gid))["ETag"]
    assert etag.startswith('W/"')
    for header in ("*", etag[2:], f'"other", {etag}', f'W/"other", {etag[2:]}'):
        assert client.get(game_url(gid), HTTP_IF_NONE_MATCH=header).status_code == 304, header
    assert client.get(game_url(gid), HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_etag_changes_when_someone_joins(clients):
    alice, bob = clients(2)
    gid = create_game(alice)["id"]
    etag = alice.get(game_url(gid))["ETag"]
    bob.post(game_url(gid, "join"))
    assert alice.get(game_url(gid), HTTP_IF_NONE_MATCH=etag).status_code == 200


# ======================================================================================
# Actions
# ======================================================================================
def _post(client, gid, body, **headers):
    return client.post(game_url(gid, "actions"), body, format="json", **headers)


def test_every_legal_action_posted_verbatim_is_accepted(clients, monkeypatch):
    """At every step of a few games, each seat's every legal action is accepted (then
    rolled back), with and without expected_version; then one is really played."""
    rng = fix_seeds(monkeypatch, 5)
    posted, kinds = 0, set()
    for n, options in [(2, {"rounds": 1}), (3, {"rounds": 1, "jump_in": "super", "seven_zero": True,
                                                "stacking": "any"})]:
        players = clients(n)
        gid = start_table(players, options=options)
        seats = by_seat(gid, players)
        for _ in range(400):
            if Game.objects.get(pk=gid).status == GameStatus.FINISHED:
                break
            for seat, client in seats.items():
                g = view(client, gid)
                for i, action in enumerate(g["legal_actions"]):
                    body = {**action, "expected_version": g["version"]} if i % 2 else action
                    sid = transaction.savepoint()
                    r = _post(client, gid, body)
                    assert r.status_code == 200, (body, r.content)
                    assert r.json()["game"]["version"] == g["version"] + 1
                    transaction.savepoint_rollback(sid)
                    posted += 1
                    kinds.add(action["type"] + ("+target" if "target_seat" in action else "")
                              + ("+uno" if action.get("uno") else "")
                              + ("+out_of_turn" if seat != g["current_seat"] else ""))
            state = true_state(gid)
            seat = state.actor()
            legal = view(seats[seat], gid)["legal_actions"]
            plays = [a for a in legal if a["type"] in ("play", "choose_color")]
            assert_json(_post(seats[seat], gid, rng.choice(plays or legal)), 200)
        assert Game.objects.get(pk=gid).status == GameStatus.FINISHED
    print(f"{posted} legal actions posted: {sorted(kinds)}")
    assert {"play", "draw", "pass", "challenge", "play+target", "play+uno", "play+out_of_turn"} <= kinds


def test_action_response(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    before = view(seats[seat], gid)
    action = {"type": "draw"} if {"type": "draw"} in before["legal_actions"] else before["legal_actions"][0]
    body = assert_json(_post(seats[seat], gid, {**action, "expected_version": before["version"]}), 200)
    assert body["game"]["version"] == before["version"] + 1
    assert body["game"] == view(seats[seat], gid)
    assert isinstance(body["events"], list) and body["events"]
    move = Move.objects.get(game_id=gid, seq=before["version"] + 1)
    assert move.action == action and move.seat == seat and move.by == "player"
    assert move.player == seats[seat].player
    if action == {"type": "draw"}:
        private = [e for e in body["events"] if "private_to" in e]
        assert private and all(e["private_to"] == [seat] for e in private)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"type": "fly"}, "type"),
        ({"type": 3}, "type"),
        ({"type": None}, "type"),
        ({"type": ["play"]}, "type"),
        ({}, "type"),
        ({"type": "play"}, "card"),
        ({"type": "play", "card": "CARD"}, "card"),
        ({"type": "play", "card": 1.0}, "card"),
        ({"type": "play", "card": True}, "card"),
        ({"type": "play", "card": 1, "uno": "yes"}, "uno"),
        ({"type": "play", "card": 1, "uno": 1}, "uno"),
        ({"type": "play", "card": 1, "color": "purple"}, "color"),
        ({"type": "play", "card": 1, "target_seat": "1"}, "target_seat"),
        ({"type": "draw", "card": 1}, "card"),
        ({"type": "draw", "extra": 1}, "extra"),
        ({"type": "catch_uno"}, "target_seat"),
        ({"type": "choose_color"}, "color"),
        ({"type": "draw", "expected_version": "1"}, "expected_version"),
        ({"type": "draw", "expected_version": -1}, "expected_version"),
        ({"type": "draw", "expected_version": 1.0}, "expected_version"),
        ({"type": "draw", "expected_version": True}, "expected_version"),
    ],
)
def test_malformed_actions(duel, body, field):
    gid, seats, _ = duel
    problem = refused(seats[actor(gid)], gid, body, 400, "invalid")
    assert field in problem["fields"], problem


def test_timeout_is_not_accepted_from_a_client(duel):
    gid, seats, _ = duel
    problem = refused(seats[actor(gid)], gid, {"type": "timeout"}, 400, "invalid")
    assert "type" in problem["fields"]


@pytest.mark.parametrize("raw", ['{"type": "draw"', "{'type': 'draw'}", "draw", '{"type": NaN}', "\xff"])
def test_malformed_json_action(duel, raw):
    gid, seats, _ = duel
    refused(seats[actor(gid)], gid, raw, 400, "malformed_json", raw=True)


@pytest.mark.parametrize("raw", ["[]", '[{"type": "draw"}]', '"draw"', "42", "null", "true"])
def test_action_body_not_an_object(duel, raw):
    gid, seats, _ = duel
    refused(seats[actor(gid)], gid, raw, 400, "invalid", raw=True)


def test_action_form_encoded_is_unsupported(duel):
    gid, seats, _ = duel
    snap = snapshot(gid)
    assert_problem(seats[actor(gid)].post(game_url(gid, "actions"), {"type": "draw"}), 415, "unsupported_media_type")
    assert_unchanged(gid, snap)


def test_unknown_card_and_not_your_card(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    state = true_state(gid)
    for card in (108, 5000, -1):
        refused(seats[seat], gid, {"type": "play", "card": card}, 400, "unknown_card")
    theirs = state.hands[1 - seat][0]
    refused(seats[seat], gid, {"type": "play", "card": theirs}, 400, "not_your_card")
    refused(seats[seat], gid, {"type": "play", "card": state.discard[-1]}, 400, "not_your_card")
    refused(seats[seat], gid, {"type": "play", "card": state.draw_pile[-1]}, 400, "not_your_card")


def test_illegal_move(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    state = true_state(gid)
    refused(seats[seat], gid, {"type": "pass"}, 400, "illegal_move")
    refused(seats[seat], gid, {"type": "challenge"}, 400, "illegal_move")
    refused(seats[seat], gid, {"type": "catch_uno", "target_seat": 1 - seat}, 400, "illegal_move")
    legal = {a.get("card") for a in engine.legal_actions(state, seat)}
    unplayable = [c for c in state.hands[seat] if c not in legal]
    if unplayable:
        refused(seats[seat], gid, {"type": "play", "card": unplayable[0]}, 400, "illegal_move")


def test_not_your_turn(duel):
    gid, seats, _ = duel
    other = 1 - actor(gid)
    refused(seats[other], gid, {"type": "draw"}, 409, "not_your_turn")
    refused(seats[other], gid, {"type": "pass"}, 409, "not_your_turn")
    card = true_state(gid).hands[other][0]
    refused(seats[other], gid, {"type": "play", "card": card}, 409, "not_your_turn")


def test_stale_expected_version(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    g = view(seats[seat], gid)
    action = g["legal_actions"][0]
    for stale in (g["version"] - 1, g["version"] + 1, 0, 10**9):
        problem = refused(seats[seat], gid, {**action, "expected_version": stale}, 409, "stale_version")
        assert problem["version"] == g["version"]
    assert_json(_post(seats[seat], gid, {**action, "expected_version": g["version"]}), 200)


def test_action_in_a_waiting_game(clients):
    alice, bob = clients(2)
    gid = create_game(alice)["id"]
    bob.post(game_url(gid, "join"))
    refused(alice, gid, {"type": "draw"}, 409, "game_not_started")
    refused(bob, gid, {"type": "draw", "expected_version": 0}, 409, "game_not_started")


def test_action_in_a_finished_game(duel):
    gid, seats, _ = duel
    play_out(gid)
    for client in seats.values():
        refused(client, gid, {"type": "draw"}, 409, "game_finished")
        assert view(client, gid)["legal_actions"] == []


def test_action_by_a_non_seated_player(duel):
    gid, seats, spectator = duel
    refused(spectator, gid, {"type": "draw"}, 403, "not_seated")
    refused(spectator, gid, {"type": "fly"}, 403, "not_seated")


def test_action_unauthenticated_or_unknown_game(duel, api):
    gid, seats, _ = duel
    refused(api, gid, {"type": "draw"}, 401, "not_authenticated")
    refused(api, gid, {"type": "draw"}, 401, "authentication_failed", HTTP_AUTHORIZATION="Token bad")
    assert_problem(_post(seats[0], 999999, {"type": "draw"}), 404, "not_found")


# -- Idempotency-Key -------------------------------------------------------------------
def test_idempotent_retry_returns_the_first_response(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    g = view(seats[seat], gid)
    body = {**g["legal_actions"][0], "expected_version": g["version"]}
    first = _post(seats[seat], gid, body, HTTP_IDEMPOTENCY_KEY="move-1")
    assert first.status_code == 200, first.content
    snap = snapshot(gid)
    assert snap[0] == g["version"] + 1
    for _ in range(3):
        again = _post(seats[seat], gid, body, HTTP_IDEMPOTENCY_KEY="move-1")
        assert again.status_code == 200 and again["Content-Type"] == "application/json"
        assert again.json() == first.json()
        assert_unchanged(gid, snap)


def test_idempotency_key_reused_with_another_body(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    g = view(seats[seat], gid)
    assert_json(_post(seats[seat], gid, g["legal_actions"][0], HTTP_IDEMPOTENCY_KEY="k"), 200)
    refused(seats[seat], gid, {"type": "draw", "expected_version": 1}, 422, "idempotency_key_reused",
            HTTP_IDEMPOTENCY_KEY="k")
    # the same action with another expected_version is another body too
    refused(seats[seat], gid, {**g["legal_actions"][0], "expected_version": 1}, 422, "idempotency_key_reused",
            HTTP_IDEMPOTENCY_KEY="k")


def test_idempotency_key_of_a_dead_first_request_is_taken_over(duel):
    """A claimed key whose first request died (its record is not locked and has no
    response) is taken over by the retry at once. (A running first request holds the
    record's row lock: see test_games_concurrency.)"""
    gid, seats, _ = duel
    client = seats[actor(gid)]
    body = view(client, gid)["legal_actions"][0]
    record = IdempotencyRecord.objects.create(
        player=client.player, key="dead",
        request_hash=services.fingerprint("POST", game_url(gid, "actions"), body),
    )
    first = assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY="dead"), 200)
    record.refresh_from_db()
    assert record.response_status == 200 and record.response_body == first
    snap = snapshot(gid)
    assert assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY="dead"), 200) == first
    assert_unchanged(gid, snap)


@pytest.mark.parametrize("key", ["x" * 255, "é-\u2603", "with space", "tab\tinside", "a"])
def test_idempotency_key_any_printable_text(duel, key):
    gid, seats, _ = duel
    client = seats[actor(gid)]
    body = view(client, gid)["legal_actions"][0]
    first = assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY=key), 200)
    snap = snapshot(gid)
    assert assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY=key), 200) == first
    assert_unchanged(gid, snap)


def test_idempotency_keys_are_per_player(duel):
    gid, seats, _ = duel
    seat = actor(gid)
    a = view(seats[seat], gid)["legal_actions"][0]
    assert_json(_post(seats[seat], gid, a, HTTP_IDEMPOTENCY_KEY="same"), 200)
    # the other player's request with that key is its own: refused on its merits, not a reuse
    other = seats[1 - seat]
    g = view(other, gid)
    if g["legal_actions"]:
        assert_json(_post(other, gid, g["legal_actions"][0], HTTP_IDEMPOTENCY_KEY="same"), 200)
    else:
        refused(other, gid, {"type": "draw"}, 409, "not_your_turn", HTTP_IDEMPOTENCY_KEY="same")
    assert IdempotencyRecord.objects.filter(key="same").count() == 2


def test_a_refused_first_request_is_replayed_too(duel):
    gid, seats, _ = duel
    other = seats[1 - actor(gid)]
    first = refused(other, gid, {"type": "draw"}, 409, "not_your_turn", HTTP_IDEMPOTENCY_KEY="r")
    assert refused(other, gid, {"type": "draw"}, 409, "not_your_turn", HTTP_IDEMPOTENCY_KEY="r") == first


def test_idempotency_records_are_pruned_after_their_time_to_live(duel):
    from datetime import timedelta

    from django.utils import timezone

    from games import tasks

    gid, seats, _ = duel
    client = seats[actor(gid)]
    g = view(client, gid)
    body = {**g["legal_actions"][0], "expected_version": g["version"]}
    first = assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY="old"), 200)
    assert assert_json(_post(client, gid, body, HTTP_IDEMPOTENCY_KEY="old"), 200) == first  # replayed
    refused(seats[1 - actor(gid)], gid, {"type": "draw"}, 409, "not_your_turn", HTTP_IDEMPOTENCY_KEY="fresh")
    IdempotencyRecord.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    assert tasks.prune_idempotency_records.apply().get() == 1  # the beat task, run eagerly
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    # forgotten: the same request is new now, and its expected_version keeps it from acting twice
    problem = refused(client, gid, body, 409, "stale_version", HTTP_IDEMPOTENCY_KEY="old")
    assert problem["version"] == first["game"]["version"]


@pytest.mark.parametrize("key", ["", "x" * 256, "a\x00b", "line\nbreak", "del\x7f"])
def test_idempotency_key_bounds(duel, key):
    gid, seats, _ = duel
    client = seats[actor(gid)]
    problem = refused(client, gid, {"type": "draw"}, 400, "invalid", HTTP_IDEMPOTENCY_KEY=key)
    assert "Idempotency-Key" in problem["fields"]


# ======================================================================================
# Moves
# ======================================================================================
def _play_steps(gid, seats, n, rng=None):
    rng = rng or random.Random(3)
    for _ in range(n):
        if Game.objects.get(pk=gid).status == GameStatus.FINISHED:
            return
        seat = actor(gid)
        legal = view(seats[seat], gid)["legal_actions"]
        draws = [a for a in legal if a["type"] == "draw"]
        assert_json(_post(seats[seat], gid, rng.choice(draws or legal)), 200)


def test_moves_cursor_pagination(duel):
    gid, seats, spectator = duel
    _play_steps(gid, seats, 6)
    total = Game.objects.get(pk=gid).version
    page = assert_json(spectator.get(game_url(gid, "moves") + "?limit=2"), 200)
    seqs = [m["seq"] for m in page["results"]]
    assert seqs == [1, 2] and page["next_cursor"] == 2
    assert page["next"].endswith(f"/api/v1/games/{gid}/moves?after=2&limit=2")
    while page["next"]:
        page = assert_json(spectator.get(page["next"]), 200)
        seqs += [m["seq"] for m in page["results"]]
    assert seqs == list(range(1, total + 1))
    assert page["next_cursor"] is None
    page = assert_json(spectator.get(game_url(gid, "moves") + f"?after={total - 1}"), 200)
    assert [m["seq"] for m in page["results"]] == [total] and page["next"] is None
    page = assert_json(spectator.get(game_url(gid, "moves") + f"?after={total}"), 200)
    assert page["results"] == [] and page["next"] is None
    move = assert_json(spectator.get(game_url(gid, "moves")), 200)["results"][0]
    assert set(move) == {"seq", "round", "seat", "action", "events", "by", "created_at"}
    assert move["action"] == {"type": "start"} and move["by"] == "player" and move["round"] == 1


@pytest.mark.parametrize("query, field", [("?limit=0", "limit"), ("?limit=501", "limit"), ("?limit=x", "limit"),
                                          ("?after=-1", "after"), ("?after=1.5", "after")])
def test_moves_bad_cursor(duel, query, field):
    gid, seats, _ = duel
    assert field in assert_problem(seats[0].get(game_url(gid, "moves") + query), 400, "invalid")["fields"]


def test_moves_unknown_game_and_credentials(api, duel):
    gid, seats, _ = duel
    assert_problem(seats[0].get(game_url(999999, "moves")), 404, "not_found")
    assert_problem(api.get(game_url(gid, "moves")), 401, "not_authenticated")


PRIVATE = ("hand", "cards_drawn", "hand_revealed")


def _events(client, gid):
    return [e for m in assert_json(client.get(game_url(gid, "moves") + "?limit=500"), 200)["results"]
            for e in m["events"]]


def test_moves_are_redacted_while_running_and_revealed_once_finished(duel):
    gid, seats, spectator = duel
    _play_steps(gid, seats, 8)
    assert Game.objects.get(pk=gid).status == GameStatus.ACTIVE
    stored = [e for m in Move.objects.filter(game_id=gid) for e in m.events]
    assert any("to" in e for e in stored)
    for seat, client in seats.items():
        events = _events(client, gid)
        private = [e for e in events if "private_to" in e]
        assert all(seat in e["private_to"] for e in private)
        assert all(e["type"] not in PRIVATE or "private_to" in e for e in events)
        # the own hand as dealt and every card this seat drew
        mine = [e for e in stored if "to" in e and seat in e["to"]]
        assert len(private) == len(mine) > 0
        assert not any("to" in e for e in events)
    events = _events(spectator, gid)
    assert not any("private_to" in e or e["type"] in PRIVATE for e in events)
    assert len(events) == len([e for e in stored if "to" not in e])
    assert "seed" not in view(spectator, gid)

    play_out(gid)
    finished = Game.objects.get(pk=gid)
    stored = [e for m in Move.objects.filter(game_id=gid) for e in m.events]
    for client in [*seats.values(), spectator]:
        events = _events(client, gid)
        assert len(events) == len(stored)
        assert sum("private_to" in e for e in events) == sum("to" in e for e in stored)
        assert view(client, gid)["seed"] == finished.seed


def test_finished_history_is_enough_to_replay_the_game(duel):
    gid, seats, spectator = duel
    play_out(gid, random.Random(11))
    game = Game.objects.get(pk=gid)
    g = view(spectator, gid)
    moves = assert_json(spectator.get(game_url(gid, "moves") + "?limit=500"), 200)["results"]
    config = engine.make_config(g["ruleset"], g["requested_options"], len(g["players"]), g["seed"])
    state = engine.replay(config, [(m["seat"], m["action"]) for m in moves[1:]])
    assert state.to_dict() == game.state


# ======================================================================================
# Scores and the profile counts
# ======================================================================================
def test_scores_per_round_and_totals(clients):
    alice, bob, carol = clients(3)
    gid = start_table([alice, bob, carol], options={"rounds": 2})
    table = assert_json(alice.get(game_url(gid, "scores")), 200)
    assert table["rounds"] == [] and table["totals"] == [0, 0, 0] and table["rounds_to_play"] == 2
    assert table["target_score"] is None and table["scoring"] == "winner_takes"
    game = play_out(gid)
    table = assert_json(carol.get(game_url(gid, "scores")), 200)
    assert [r["round"] for r in table["rounds"]] == [1, 2]
    for row, stored in zip(table["rounds"], Round.objects.filter(game_id=gid).order_by("number")):
        assert row["winner_seat"] == stored.winner_seat and row["dealer"] == stored.dealer
        assert row["points"] == [s.points for s in Score.objects.filter(round=stored).order_by("seat")]
        assert len(row["points"]) == len(row["hand_points"]) == 3
        # winner takes the points left in the other hands
        w = row["winner_seat"]
        assert row["points"][w] == sum(p for s, p in enumerate(row["hand_points"]) if s != w)
    assert table["totals"] == [sum(r["points"][s] for r in table["rounds"]) for s in range(3)]
    assert table["totals"] == game.state["scores"]
    assert table["winner_seat"] == game.winner_seat == table["totals"].index(max(table["totals"]))
    assert table["status"] == "finished" and len(table["players"]) == 3


def test_scores_with_a_low_target(clients):
    alice, bob = clients(2)
    gid = start_table([alice, bob], ruleset="house", options={"target_score": 30})
    game = play_out(gid)
    table = assert_json(bob.get(game_url(gid, "scores")), 200)
    assert table["scoring"] == "lowest_total" and table["target_score"] == 30
    assert len(table["rounds"]) == game.round
    assert max(table["totals"]) >= 30
    assert table["winner_seat"] == table["totals"].index(min(table["totals"]))


def test_the_score_tables_seats_name_the_players_and_the_bots_levels(clients):
    (alice,) = clients(1)
    gid = create_game(alice, bots=[{"level": "hard"}, {"level": "easy"}])["id"]
    table = assert_json(alice.get(game_url(gid, "scores")), 200)
    name = assert_json(alice.get(ME), 200)["username"]
    assert table["players"] == [
        {"seat": 0, "username": name, "is_bot": False, "bot_level": None},
        {"seat": 1, "username": None, "is_bot": True, "bot_level": "hard"},
        {"seat": 2, "username": None, "is_bot": True, "bot_level": "easy"},
    ]


def test_scores_unknown_game_and_credentials(clients, api):
    unknown_game_and_no_credentials(clients, api, "get", "scores")


def test_profile_counts_games_played_and_won(clients):
    alice, bob, carol = clients(3)
    gid = start_table([alice, bob], options={"rounds": 1})
    create_game(carol)
    before = assert_json(alice.get(ME), 200)
    assert (before["games_played"], before["games_won"]) == (0, 0)
    game = play_out(gid)
    seats = by_seat(gid, [alice, bob])
    winner, loser = seats[game.winner_seat], seats[1 - game.winner_seat]
    assert {k: assert_json(winner.get(ME), 200)[k] for k in ("games_played", "games_won")} == \
        {"games_played": 1, "games_won": 1}
    assert {k: assert_json(loser.get(ME), 200)[k] for k in ("games_played", "games_won")} == \
        {"games_played": 1, "games_won": 0}
    assert {k: assert_json(carol.get(ME), 200)[k] for k in ("games_played", "games_won")} == \
        {"games_played": 0, "games_won": 0}


# ======================================================================================
# Every error is a problem document
# ======================================================================================
def test_error_responses_are_problem_documents(duel, api):
    gid, seats, spectator = duel
    cases = [
        (api.get(game_url(gid)), 401),
        (spectator.get(game_url(999999)), 404),
        (spectator.get(game_url(gid, "nothing")), 404),
        (spectator.put(game_url(gid)), 405),
        (spectator.post(game_url(gid, "actions"), "{", content_type="application/json"), 400),
        (spectator.post(game_url(gid, "actions"), {"type": "draw"}, format="json"), 403),
        (spectator.get(game_url(gid), HTTP_ACCEPT="text/html"), 406),
    ]
    for r, status in cases:
        body = assert_problem(r, status, r.json()["code"])
        assert body["code"]
    for m in ("leave", "start", "join"):
        body = assert_problem(spectator.get(game_url(gid, m)), 405, "method_not_allowed")
        assert body["code"]
