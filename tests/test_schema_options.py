"""The OpenAPI schema types the rule options: one property per option of the engine's
catalogue (``OptionSpec.json_schema``, derived from its validator), with its doc and
default (said in the description: no ``default`` keyword), and nothing else; the create
request's ``options`` and a game's ``options`` and ``requested_options`` are that object.
The schema and the engine agree on every value: what one admits the other does, what
one refuses the other does."""

from __future__ import annotations

import json
import random
from functools import lru_cache

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from games import engine
from tests.presets_support import accepted, options_of, presets, random_options, values
from tests.test_schema_actions import json_schema


@lru_cache(maxsize=1)
def openapi() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def validator(name: str) -> jsonschema.Draft7Validator:
    root = {"components": json_schema(openapi()["components"]), "$ref": f"#/components/schemas/{name}"}
    return jsonschema.Draft7Validator(root)


def options_validator() -> jsonschema.Draft7Validator:
    return validator("Options")


def test_every_option_of_the_catalogue_is_a_typed_property():
    options = openapi()["components"]["schemas"]["Options"]
    assert options["additionalProperties"] is False
    assert list(options["properties"]) == list(engine.OPTIONS)
    for name, spec in engine.OPTIONS.items():
        prop = options["properties"][name]
        # the default is said, not a ``default`` keyword (a generated client would send it)
        assert "default" not in prop and f"(default: {json.dumps(spec.default)}, " in prop["description"], name
        assert prop["description"].startswith(spec.doc), name
        # typed: a validator without a schema of its own would give an untyped property
        assert prop.get("type") in ("string", "integer", "boolean", "number") or "enum" in prop, (name, prop)
        assert values(prop), f"{name}: no value admitted by {prop}"
        options_validator().validate({name: spec.default})


def test_the_request_and_the_game_view_use_the_typed_options():
    schemas = openapi()["components"]["schemas"]
    ref = [{"$ref": "#/components/schemas/Options"}]
    assert schemas["CreateGameRequest"]["properties"]["options"]["allOf"] == ref
    assert schemas["Game"]["properties"]["options"]["allOf"] == ref
    assert schemas["Game"]["properties"]["requested_options"]["allOf"] == ref
    assert "invalid_options" not in str(schemas["Options"])  # a schema, not prose


@pytest.mark.parametrize("preset", presets())
def test_every_preset_resolved_options_validate(preset):
    check = options_validator()
    resolved = engine.resolve_options(preset, {})
    check.validate(resolved)
    assert set(resolved) == set(options_of(preset))  # its family's options, all of them
    rng = random.Random(preset)
    for _ in range(200):  # and whatever the engine accepts on top of it, given and resolved
        given = random_options(rng, preset)
        check.validate(given)
        check.validate(engine.resolve_options(preset, given))


def _outside(prop: dict) -> list:
    """Values the schema of ``prop`` refuses."""
    kind = prop.get("type")
    out: list = ["nonsense", 1.5, [], {}]
    if kind != "boolean":
        out += [True]
    if kind != "integer":
        out += [1, 0]
    if kind == "integer":
        out += [prop["minimum"] - 1, prop["maximum"] + 1]
    if not prop.get("nullable"):
        out.append(None)
    return out


@pytest.fixture
def without_combination_checks(monkeypatch):
    """The modules' ``validate`` hooks judge combinations; each value alone is the
    spec's: switch the hooks off to compare value by value."""
    for family in engine.FAMILIES.values():
        for module in family.modules:
            monkeypatch.setattr(module, "validate", lambda opts, given: None)
            if hasattr(module, "base_deck"):  # a card an option replaces must be in the deck
                monkeypatch.setattr(module, "base_deck", lambda base, opts: base)


@pytest.mark.parametrize("preset", presets())
def test_the_schema_and_the_engine_agree_on_every_value(preset, without_combination_checks):
    check = options_validator()
    props = openapi()["components"]["schemas"]["Options"]["properties"]
    for name in engine.OPTIONS:
        prop = props[name]
        for v in values(prop):
            assert check.is_valid({name: v}), (name, v)
            if name in options_of(preset):
                engine.resolve_options(preset, {name: v})  # accepted
            else:  # another family's option: refused by name whatever its value
                with pytest.raises(engine.InvalidOptions, match="not one of") as other:
                    engine.resolve_options(preset, {name: v})
                assert other.value.option == name
        for v in _outside(prop):
            assert not check.is_valid({name: v}), (name, v)
            with pytest.raises(engine.InvalidOptions) as refused:
                engine.resolve_options(preset, {name: v})
            assert refused.value.option == name, (name, v, refused.value)
    # an option nobody declared is refused by both
    assert not check.is_valid({"no_such_option": True})
    assert not accepted(preset, {"no_such_option": True})


def test_a_combination_the_engine_refuses_is_still_well_typed():
    """The schema types each value; combinations (``straights`` with ``continuations``,
    ``rounds`` with ``target_score``) are the engine's 400 (``invalid_options``)."""
    both = {"rounds": 3, "target_score": 200}
    assert options_validator().is_valid(both)
    with pytest.raises(engine.InvalidOptions):
        engine.resolve_options("standard", both)


def test_the_api_refuses_a_value_outside_the_schema_naming_the_option(api, make_player):
    _, token = make_player()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    for name, spec in engine.OPTIONS.items():
        bad = _outside(openapi()["components"]["schemas"]["Options"]["properties"][name])[0]
        r = api.post("/api/v1/games", {"ruleset": "standard", "options": {name: bad}}, format="json")
        assert r.status_code == 400, (name, r.content)
        assert r.json()["code"] == "invalid_options" and f"options.{name}" in r.json()["fields"], r.json()
