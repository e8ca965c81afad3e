"""``GET /api/v1/rulesets`` (issue 28): every preset and the options a player may change
in it, in a player's words (games/rulesets.py), public and cacheable; every preset and
option of the engine has its text (a new one cannot be forgotten)."""

from __future__ import annotations

import pytest

from games import rulesets
from games.engine import catalog
from tests.games_support import GAMES, clients  # noqa: F401 (fixture)
from tests.helpers import assert_json, assert_problem

URL = "/api/v1/rulesets"


def test_every_preset_and_option_of_the_engine_has_its_text():
    assert set(rulesets.PRESET_TEXTS) == set(catalog.PRESETS), "a preset without its text in games/rulesets.py"
    assert set(rulesets.OPTION_TEXTS) == set(catalog.OPTIONS), "an option without its text in games/rulesets.py"
    for name, text in rulesets.PRESET_TEXTS.items():
        assert text.title and len(text.description) > 80, name
    for name, text in rulesets.OPTION_TEXTS.items():
        assert text.label and text.description.endswith("."), name
        assert text.group in rulesets.GROUPS, name
        assert "_" not in text.label and "_" not in text.description, f"{name}: an engine name, not words"
        schema = catalog.OPTIONS[name].json_schema()
        if "enum" in schema and len(schema["enum"]) > 1:
            assert set(text.choices) == set(schema["enum"]), f"{name}: every value in words"
        for other, value in text.requires.items():
            assert catalog.OPTIONS[other].check(value) == value, name


@pytest.mark.django_db
def test_the_presets_in_words_in_the_engines_order(api):
    body = assert_json(api.get(URL), 200)  # no credentials needed
    assert body["groups"] == list(rulesets.GROUPS)
    assert [p["name"] for p in body["results"]] == list(catalog.PRESETS)
    by_name = {p["name"]: p for p in body["results"]}
    assert by_name["standard"]["title"] == "Standard UNO" and by_name["duo"]["title"] == "Duo"
    assert by_name["decktet_uno"]["title"] == "Decktet-Uno"
    for name, p in by_name.items():
        preset = catalog.PRESETS[name]
        assert (p["min_players"], p["max_players"]) == (preset.min_seats, preset.max_seats)
        assert p["description"] == rulesets.PRESET_TEXTS[name].description
        family = list(catalog.FAMILY_OPTIONS[preset.family])
        names = [o["name"] for o in p["options"]]
        assert names == [n for n in family if n in names], f"{name}: its family's options, in order"
        defaults = catalog.resolve_options(name, {})
        for o in p["options"]:
            spec = catalog.OPTIONS[o["name"]]
            text = rulesets.OPTION_TEXTS[o["name"]]
            assert (o["label"], o["description"], o["group"], o["advanced"]) == (
                text.label, text.description, text.group, text.advanced)
            assert o["default"] == defaults[o["name"]], f"{name}.{o['name']}: this preset's value"
            expected = spec.json_schema()
            del expected["default"], expected["description"]
            assert o["schema"] == expected
            assert [c["value"] for c in o["choices"]] == expected.get("enum", [])
            assert o["requires"] == dict(text.requires)


@pytest.mark.django_db
def test_each_preset_offers_its_familys_options_only_and_none_that_cannot_change(api):
    by_name = {p["name"]: p for p in assert_json(api.get(URL), 200)["results"]}
    names = {n: [o["name"] for o in p["options"]] for n, p in by_name.items()}
    assert names["decktet_uno"] == ["face_down", "decks"]
    for uno in ("standard", "house", "standard_112", "duo", "play_uno_com"):
        assert "face_down" not in names[uno] and "decks" not in names[uno]
        assert "stacking" in names[uno] and "target_score" in names[uno]
        assert "wild_keeps_color" not in names[uno]  # always true
    # Duo: two players, its own first drafter and first-card table
    for fixed in ("teams", "partner_rotation", "two_player_replay", "dealer", "first_wild_draw_four"):
        assert fixed not in names["duo"] and fixed in names["standard"]
    # a Wild Swap Hands replaces a card only standard_112 has
    assert "swap_hands_card" in names["standard_112"] and "swap_hands_card" not in names["standard"]
    # each preset's own values
    house = {o["name"]: o for o in by_name["house"]["options"]}
    assert (house["uno_penalty"]["default"], house["scoring"]["default"]) == (4, "lowest_total")
    assert {o["name"]: o for o in by_name["standard"]["options"]}["uno_penalty"]["default"] == 2
    scoring = house["scoring"]
    assert scoring["choices"][0] == {"value": "winner_takes",
                                     "label": rulesets.OPTION_TEXTS["scoring"].choices["winner_takes"]}
    assert house["hands_to_win"]["requires"] == {"scoring": "hands_won"}
    # every option offered can be created with another value than the preset's
    for name, options in names.items():
        for option in options:
            assert rulesets.changeable(name, option)


@pytest.mark.django_db
def test_what_the_rulesets_offer_the_server_accepts(clients):
    """Each offered option, set to a value of its schema other than the default (with
    what it requires), creates a game of that preset."""
    (alice,) = clients(1)
    body = assert_json(alice.get(URL), 200)
    for p in body["results"]:
        for o in p["options"]:
            values = [c["value"] for c in o["choices"]] or (
                [not o["default"]] if o["schema"].get("type") == "boolean"
                else [o["schema"]["minimum"] + 1 if o["default"] == o["schema"]["minimum"] else o["schema"]["minimum"]])
            for value in values:
                if value == o["default"]:
                    continue
                options = {**o["requires"], o["name"]: value}
                seats = next((n for n in range(p["min_players"], p["max_players"] + 1)
                              if _accepted(p["name"], options, n)), None)
                if seats is None:
                    continue  # a value that needs more than one other option (the test above: some value does)
                r = alice.post(GAMES, {"ruleset": p["name"], "options": options, "max_players": seats}, format="json")
                g = assert_json(r, 201)
                assert g["options"][o["name"]] == value
                assert alice.post(f"{GAMES}/{g['id']}/leave").status_code == 204


def _accepted(preset, options, seats) -> bool:
    try:
        catalog.make_config(preset, options, seats, "0")
    except catalog.InvalidOptions:
        return False
    return True


@pytest.mark.django_db
def test_public_and_cacheable(api, auth_client):
    r = api.get(URL)
    body = assert_json(r, 200)
    etag = r["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert r["Cache-Control"] == "public, max-age=3600"
    # the same for a signed-in player, and with a token that is no longer valid
    assert assert_json(auth_client.get(URL), 200) == body
    api.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert assert_json(api.get(URL), 200) == body
    api.credentials()
    # revalidation
    r = api.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 304 and r["ETag"] == etag and not r.content
    assert api.get(URL, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    assert_problem(api.post(URL, {}, format="json"), 405, "method_not_allowed")


@pytest.mark.django_db
def test_documented_in_the_schema(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    op = schema["paths"][URL]["get"]
    assert {} in op.get("security", [{}])  # readable without credentials
    assert set(op["responses"]) >= {"200", "304", "429"}
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/Rulesets")
    comp = schema["components"]["schemas"]
    assert set(comp["RulesetOption"]["properties"]) == {
        "name", "label", "description", "group", "advanced", "default", "schema", "choices", "requires"}
    assert set(comp["Ruleset"]["properties"]) == {
        "name", "title", "description", "min_players", "max_players", "options"}
    create = comp["CreateGameRequest"]["properties"]["start_when_full"]
    assert create["type"] == "boolean" and "default" not in create
    assert "start_when_full" not in comp["CreateChallengeRequest"]["properties"]  # a challenge starts once accepted
    assert "start_when_full" in comp["Game"]["required"] and "start_when_full" in comp["GameSummary"]["required"]
