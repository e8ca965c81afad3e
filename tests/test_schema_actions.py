"""The OpenAPI schema types every action: one variant per action type of the engine's
registry, discriminated by ``type``; the actions endpoint's body and ``legal_actions``
items are the same type, so an entry is posted verbatim."""

from __future__ import annotations

import copy
import json
import random

import jsonschema
import pytest

from games import engine
from tests.helpers import openapi_schema

pytestmark = pytest.mark.django_db


#: the schema, read once for the module's tests (each gets a copy)
_SCHEMA: dict[str, dict] = {}


@pytest.fixture
def schema(api) -> dict:
    if "doc" not in _SCHEMA:
        _SCHEMA["doc"] = openapi_schema(api)
    return copy.deepcopy(_SCHEMA["doc"])


def json_schema(node):
    """OpenAPI 3.0's ``nullable`` as JSON Schema (a ``null`` type beside the other)."""
    if isinstance(node, list):
        return [json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def validator(schema: dict, name: str) -> jsonschema.Draft7Validator:
    """A validator of the component ``name`` that resolves the schema's ``$ref``s."""
    root = {"components": json_schema(schema["components"]), "$ref": f"#/components/schemas/{name}"}
    return jsonschema.Draft7Validator(root)


def test_every_player_action_type_of_the_engine_is_a_typed_variant(schema):
    action = schema["components"]["schemas"]["Action"]
    mapping = action["discriminator"]["mapping"]
    assert action["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(engine.ACTION_FIELDS)  # every player action type, no system one
    assert "timeout" not in mapping
    for kind, ref in mapping.items():
        variant = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"]["enum"] == [kind]
        assert set(variant["properties"]) == {"type", "expected_version", *engine.ACTION_FIELDS[kind]}
        assert set(variant["required"]) == {"type", *(f for f, req in engine.ACTION_FIELDS[kind].items() if req)}
        assert variant["additionalProperties"] is False


def test_the_actions_body_and_legal_actions_items_are_one_type(schema):
    body = schema["paths"]["/api/v1/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Action"}
    legal = schema["components"]["schemas"]["Game"]["properties"]["legal_actions"]
    assert legal["items"] == {"$ref": "#/components/schemas/Action"}


def test_the_schema_accepts_what_the_engine_lists_and_refuses_malformed_actions(schema):
    check = validator(schema, "Action")
    rng = random.Random(7)
    seen: set[str] = set()
    checked: set[str] = set()  # each distinct action once (validating a repeat was most of the time)
    for seed in range(30):
        options = {"jump_in": "exact", "seven_zero": True} if seed % 2 else {}
        state = engine.new_game("standard", options, 2 + seed % 3, seed)
        for _ in range(200):
            if state.status != engine.ACTIVE:
                break
            for seat in range(state.config.seats):
                for action in engine.legal_actions(state, seat):
                    key = json.dumps(action, sort_keys=True)
                    if key in checked:
                        continue
                    checked.add(key)
                    check.validate(action)
                    check.validate({**action, "expected_version": 3})
                    seen.add(action["type"])
            actor = state.actor()
            engine.apply(state, actor, rng.choice(engine.legal_actions(state, actor)))
    assert seen >= {"play", "draw", "pass", "call_uno", "choose_color"}
    for bad in (
        {"type": "play"},  # no card
        {"type": "draw", "card": 3},  # a field draw does not take
        {"type": "play", "card": "3"},
        {"type": "choose_color", "color": "purple"},
        {"type": "timeout"},  # the server's own
        {"type": "fly"},
        {"card": 3},
    ):
        assert not check.is_valid(bad), bad


def test_recorded_moves_conform_to_recorded_action(schema, make_player):
    from rest_framework.test import APIClient

    clients = []
    for _ in range(2):
        _, token = make_player()
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        clients.append(client)
    alice, bob = clients
    gid = alice.post("/api/v1/games", {"ruleset": "standard", "max_players": 2}, format="json").json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/join").status_code == 200
    assert alice.post(f"/api/v1/games/{gid}/start").status_code == 200
    for _ in range(6):
        views = [c.get(f"/api/v1/games/{gid}").json() for c in clients]
        mover = next(i for i, v in enumerate(views) if v["seat"] == v["current_seat"])
        action = views[mover]["legal_actions"][0]
        assert clients[mover].post(f"/api/v1/games/{gid}/actions", action, format="json").status_code == 200
    moves = alice.get(f"/api/v1/games/{gid}/moves").json()["results"]
    check = validator(schema, "RecordedAction")
    for move in moves:
        check.validate(move["action"])
    assert moves[0]["action"] == {"type": "start"} and len(moves) == 7
    assert not check.is_valid({"type": "start", "card": 1})


@pytest.mark.parametrize("options", [
    {},
    {"stacking": "any", "jump_in": "exact"},
    {"deflect_cards": True, "stacking": "same"},
    {"buzzer_cards": True, "seven_zero": True},
    {"straights": True, "jump_in": "exact"},
    {"continuations": True, "deflect_cards": True, "buzzer_cards": True},
])
def test_every_pending_the_engine_shows_conforms_to_the_schema(schema, options):
    """``pending`` is typed per decision type (``Decision.public_schema``): what the
    view shows must match its variant exactly (no missing, extra or mistyped field)."""
    check = validator(schema, "Pending")
    rng = random.Random(11)
    shown: set[str] = set()
    for seed in range(12):
        state = engine.new_game("standard", options, 2 + seed % 3, f"pending:{seed}")
        for _ in range(300):
            if state.status != engine.ACTIVE:
                break
            pending = engine.view(state, None)["pending"]
            if pending is not None:
                check.validate(pending)
                shown.add(pending["type"])
            seat, action = rng.choice([(s, a) for s in range(state.config.seats)
                                       for a in engine.legal_actions(state, s)])
            engine.apply(state, seat, action)
    assert shown, "no game of these options owed anything special: the test saw nothing"
