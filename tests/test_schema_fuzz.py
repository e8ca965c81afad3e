"""Schemathesis over the published OpenAPI schema (/api/schema/), in process (WSGI).

Every operation gets generated requests (valid and invalid ones; 25 per operation,
reproducible: FUZZ_EXAMPLES=300 FUZZ_RANDOM=1 for a longer, random hunt), signed in with a
real token; the game ids are mapped onto real games in every status (and one that
does not exist), so that the happy paths are reached too.  Checks: no 500, the
status code is documented, the content type is documented for it, and the body
matches the documented schema (problem+json errors included).
"""

from __future__ import annotations

import contextlib
import copy
import os

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections, transaction
from django.test import override_settings
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from drf_spectacular.generators import SchemaGenerator

from config.wsgi import application
from games import engine
from games.models import Game, GameStatus
from players import throttling
from players.models import Player
from players.tokens import token_issue
from tests.conftest import GENEROUS_THROTTLE_RATES
from tests.games_support import (
    by_seat,
    client_for,
    clients,  # noqa: F401 (fixture)
    create_game,
    fix_seeds,
    play_out,
    start_table,
    walk,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@contextlib.contextmanager
def connection_kept():
    """Requests go through the real WSGI handler, whose request signals close the
    database connection when it is inside a transaction (as every test's is): on
    PostgreSQL that would end the test's transaction.  Django's test client
    disconnects them the same way around each of its requests (and connects them
    again after, hence not a fixture)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The fuzzing player's token, and games of every kind for the game ids: made once for
    the module's tests, in a transaction of its own that each test's rolls back to and
    that is rolled back after the last (as Django's ``TestCase.setUpTestData``): every
    test starts from the same world, nothing of it is ever committed."""
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch, \
            override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        patch.setattr(throttling.FixedWindowThrottle, "THROTTLE_RATES", dict(GENEROUS_THROTTLE_RATES))
        outer = transaction.atomic()
        outer.__enter__()
        try:
            me, other, third = (client_for(player, token_issue(player=player, name="test").key) for player in (
                Player.objects.create_user(username=f"fuzzer{n}", password="correct-horse-battery") for n in range(3)))
            waiting = create_game(me, max_players=3)["id"]
            running = start_table([me, other], options={"rounds": 1, "seven_zero": True, "jump_in": "exact"})
            not_mine = start_table([other, third])
            finished = start_table([me, third], options={"rounds": 1})
            play_out(finished)
            with_bots = create_game(me, bots=[{"level": "easy"}])["id"]
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    yield {"token": me.token, "games": [waiting, running, not_mine, finished, with_bots, 10**9]}
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


pytestmark = pytest.mark.django_db



def strict(raw: dict) -> dict:
    """The published schema, with every documented object closed (``additionalProperties:
    false`` unless it says otherwise): a response member the schema does not describe
    is a failure too."""
    raw = copy.deepcopy(raw)
    for node in walk(raw):
        if isinstance(node, dict) and node.get("type") == "object" and "properties" in node:
            node.setdefault("additionalProperties", False)
    return raw


# Built at collection (schemathesis' lazy fixture loader does not work with pytest 9) by
# drf-spectacular's generator, as /api/schema/ serves it, without a request: no
# middleware (e.g. the rate limiter, which counts in the database without Redis) runs
# before the test database exists.
def without_waiting(raw: dict) -> dict:
    """The schema less what waits: the event streams (open until the client leaves) and the
    long-poll's parameters (up to a minute per example).  tests/test_live_events.py tests
    them, bad inputs included, against the real server."""
    raw["paths"] = {path: item for path, item in raw["paths"].items() if not path.endswith("/events")}
    detail = raw["paths"]["/api/v1/games/{game_id}"]["get"]
    detail["parameters"] = [p for p in detail["parameters"] if p["name"] not in ("wait_for_version", "timeout")]
    return raw


schema = schemathesis.openapi.from_dict(
    strict(without_waiting(SchemaGenerator().get_schema(request=None, public=True)))
)
schema.app = application


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", 25)),
    deadline=None,
    derandomize=not os.environ.get("FUZZ_RANDOM"),
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case, world, fresh_heartbeats):
    game_id = (case.path_parameters or {}).get("game_id")
    if isinstance(game_id, int) and not isinstance(game_id, bool):
        case.path_parameters["game_id"] = world["games"][game_id % len(world["games"])]
    with connection_kept():
        case.call_and_validate(headers={"Authorization": f"Token {world['token']}"}, checks=CHECKS)


def test_a_played_game_conforms_to_the_schema(clients, monkeypatch):
    """Every kind of response a real game produces, validated against the schema:
    player and spectator views in every phase, action results (with and without an
    Idempotency-Key, and the replay), refusals, history pages, scores and lists."""
    rng = fix_seeds(monkeypatch, 2)  # a reproducible deal
    players = clients(3)
    (spectator,) = clients(1)
    gid = start_table(players, options={"rounds": 2, "seven_zero": True, "jump_in": "super", "stacking": "any"})
    seats = by_seat(gid, players)
    game_op = schema["/api/v1/games/{game_id}"]["GET"]
    actions_op = schema["/api/v1/games/{game_id}/actions"]["POST"]
    moves_op = schema["/api/v1/games/{game_id}/moves"]["GET"]
    scores_op = schema["/api/v1/games/{game_id}/scores"]["GET"]
    list_op = schema["/api/v1/games"]["GET"]
    ids = {"game_id": gid}

    def call(op, client, **kw):
        case = op.Case(path_parameters=ids if "{game_id}" in op.path else None, **kw)
        with connection_kept():
            return case.call_and_validate(headers={"Authorization": f"Token {client.token}"}, checks=CHECKS)

    pendings = set()
    for step in range(2000):
        game = Game.objects.get(pk=gid)
        if game.status == GameStatus.FINISHED:
            break
        for client in [*seats.values(), spectator]:
            r = call(game_op, client)
            g = r.json()
            if g["pending"]:
                pendings.add(g["pending"]["type"])
            if step % 10 == 0:
                assert call(game_op, client, headers={"If-None-Match": r.headers["etag"][0]}).status_code == 304
        if step % 10 == 0:
            call(moves_op, spectator, query={"limit": 5, "after": max(0, game.version - 5)})
            call(moves_op, seats[0], query={"limit": 500})
            call(scores_op, seats[1])
            call(list_op, seats[0], query={"mine": "true", "my_turn": "true"})
        state = engine.State.from_dict(game.state)
        seat, action = state.actor(), None
        legal = engine.legal_actions(state, seat)
        plays = [a for a in legal if a["type"] in ("play", "choose_color")]
        action = rng.choice(plays or legal)
        if step % 5 == 0:  # a refusal first: stale version
            r = call(actions_op, seats[seat], body={**action, "expected_version": game.version + 1})
            assert r.status_code == 409
        key = {"Idempotency-Key": f"k{step}"} if step % 3 == 0 else {}
        r = call(actions_op, seats[seat], body=action, headers=key)
        assert r.status_code == 200, r.text
        if key:
            assert call(actions_op, seats[seat], body=action, headers=key).json() == r.json()
    assert Game.objects.get(pk=gid).status == GameStatus.FINISHED
    assert pendings  # some special phase was seen
    for client in [*seats.values(), spectator]:
        call(game_op, client)
        call(moves_op, client, query={"limit": 500})
        call(scores_op, client)
    call(list_op, spectator, query={"status": "finished"})
