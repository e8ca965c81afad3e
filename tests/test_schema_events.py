"""The OpenAPI schema types every event: ``Event`` is a ``oneOf`` of one variant per
event type of the engine's registry (``games.engine.events``), discriminated by
``type``, and it is the item type of the actions response's ``events`` and of each
move's.  Random games of every preset, and of many option combinations on each,
show every event as each seat, a spectator and (once the game is over) everybody
sees it: every one must match its variant exactly, so an event type nobody
registered, a missing, extra or mistyped field fails here."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import jsonschema
import pytest

from games import engine
from games.engine import events as engine_events
from games.selectors import strip_audience
from tests.presets_support import presets, random_options, seat_counts, short, single_option_variants
from tests.test_schema_options import json_schema, openapi

STEP_CAP = 3000


@lru_cache(maxsize=1)
def variants() -> dict[str, jsonschema.Draft7Validator]:
    """Event type -> a validator of its variant (the schema's own, ``$ref``s resolved)."""
    schema = openapi()
    components = json_schema(schema["components"])
    mapping = schema["components"]["schemas"]["Event"]["discriminator"]["mapping"]
    return {kind: jsonschema.Draft7Validator({"components": components, "$ref": ref})
            for kind, ref in mapping.items()}


@lru_cache(maxsize=1)
def any_event() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator({"components": json_schema(openapi()["components"]),
                                       "$ref": "#/components/schemas/Event"})


def check_event(event: dict, where: str) -> None:
    check = variants().get(event.get("type"))
    assert check is not None, f"{where}: event type {event.get('type')!r} is not registered: {event}"
    errors = sorted(check.iter_errors(event), key=str)
    assert not errors, f"{where}: {event} does not match its schema: {errors[0].message}"


def shown(events: list[dict], seats: int, over: bool) -> list[dict]:
    """Every event as the API shows it to each seat and a spectator (to everybody once
    the game is over)."""
    out = []
    for viewer in [*range(seats), None]:
        out += [strip_audience(e) for e in engine.visible_events(events, viewer)]
    if over:
        out += [strip_audience(e) for e in engine.visible_events(events, None, reveal_all=True)]
    return out


def play(preset: str, options: dict, seats: int, seed: str, seen: Counter) -> None:
    rng = random.Random(seed)
    first: list[dict] = []
    state = engine.new_game(preset, options, seats, seed, first)
    batches = [first]
    for _ in range(STEP_CAP):
        if state.status != engine.ACTIVE:
            break
        r = rng.random()
        actor = state.actor()
        if r < 0.02:
            seat, action, system = actor, {"type": "timeout"}, True
        else:
            choices = [(s, a) for s in range(seats) for a in engine.legal_actions(state, s)]
            plays = [c for c in choices if c[1]["type"] not in ("draw", "pass")]
            seat, action = rng.choice(plays if plays and r < 0.85 else choices)
            system = False
        batches.append(engine.apply(state, seat, action, system=system))
    over = state.status != engine.ACTIVE
    where = f"{preset} {options} {seats} seats, seed {seed}"
    for batch in batches:
        for e in shown(batch, seats, over):
            check_event(e, where)
            seen[e["type"]] += 1


def test_every_registered_event_type_is_a_typed_variant():
    schemas = openapi()["components"]["schemas"]
    event = schemas["Event"]
    assert event["discriminator"]["propertyName"] == "type"
    assert set(event["discriminator"]["mapping"]) == set(engine.EVENT_TYPES)
    for kind, ref in event["discriminator"]["mapping"].items():
        variant = schemas[ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"]["enum"] == [kind]
        assert variant["additionalProperties"] is False
        assert ("private_to" in variant["required"]) == engine.EVENT_TYPES[kind].private
    for component in ("ActionResult", "Move"):
        assert schemas[component]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}


def test_the_event_schema_refuses_what_the_engine_never_emits():
    check = any_event()
    assert check.is_valid({"type": "uno", "seat": 1})
    assert check.is_valid({"type": "cards_drawn", "seat": 1, "cards": [{"id": 3, "color": "red", "rank": "7"}],
                           "private_to": [1]})
    for bad in (
        {"type": "no_such_event", "seat": 1},  # unregistered
        {"type": "uno"},  # a missing field
        {"type": "uno", "seat": 1, "card": 3},  # an extra one
        {"type": "uno", "seat": "1"},  # mistyped
        {"type": "cards_drawn", "seat": 1, "cards": []},  # private without its audience
        {"type": "cards_drawn", "seat": 1, "cards": [], "to": [1]},  # the engine's audience, not the API's
        {"type": "play", "seat": 0, "card": {"id": 1, "color": "purple", "rank": "7"}, "color": "red"},
    ):
        assert not check.is_valid(bad), bad


def test_the_registry_is_consistent():
    with pytest.raises(ValueError):
        engine_events.register(engine.EventType("uno", {"seat": engine_events.SEAT, "extra": {}}))
    with pytest.raises(ValueError):
        engine_events.register(engine.EventType("oops", {"to": engine_events.SEATS}))
    assert engine_events.private_types() >= {"hand", "cards_drawn", "hand_revealed"}


def _games() -> list:
    """(preset, options, seats) to play: each preset alone at each of its seat counts,
    each option value it takes alone, and random combinations."""
    out = []
    for preset in presets():
        counts = seat_counts(preset)
        for n in counts:
            out.append((preset, short(preset), n))
        for i, (name, value) in enumerate(single_option_variants(preset)):
            opts = short(preset, {name: value})
            n = counts[i % len(counts)]
            try:
                engine.make_config(preset, opts, n, "probe")
            except engine.InvalidOptions:  # e.g. teams with an odd seat count
                n = next((m for m in range(n, engine.PRESETS[preset].max_seats + 1)
                          if _seats_ok(preset, opts, m)), None)
            if n is not None:
                out.append((preset, opts, n))
        rng = random.Random(f"events:{preset}")
        for i in range(8):
            opts = short(preset, random_options(rng, preset, k=5))
            n = counts[i % len(counts)]
            if _seats_ok(preset, opts, n):
                out.append((preset, opts, n))
    return out


def _seats_ok(preset: str, opts: dict, n: int) -> bool:
    try:
        engine.make_config(preset, opts, n, "probe")
    except engine.InvalidOptions:
        return False
    return True


def test_every_event_of_random_games_of_every_preset_and_option_conforms():
    seen: Counter = Counter()
    games = _games()
    for i, (preset, options, seats) in enumerate(games):
        play(preset, options, seats, f"events:{i}", seen)
    # the oneOf itself (not only the variant its type selects) admits them: a sample
    # of each type, through the whole Event schema
    assert {"play", "draw", "cards_drawn", "hand", "round_started", "round_ended", "game_ended"} <= set(seen)
    # every registered type of the modules played before issue 10 was seen
    assert {"hands_swapped", "hands_rotated", "deflected", "buzz_closed", "cut_in", "challenge"} <= set(seen), seen
    assert len(games) > 4 * len(presets())


def test_a_sample_of_real_events_matches_the_whole_oneof():
    seen: Counter = Counter()
    rng = random.Random(5)
    for preset in presets():
        state_events: list[dict] = []
        state = engine.new_game(preset, short(preset), seat_counts(preset)[-1], "oneof", state_events)
        for _ in range(200):
            if state.status != engine.ACTIVE:
                break
            seat = state.actor()
            state_events += engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        for e in shown(state_events, state.config.seats, True):
            any_event().validate(e)
            seen[e["type"]] += 1
    assert seen["play"] and seen["hand"]


def test_the_events_of_games_stored_before_the_registry_conform():
    """Games stored by the server before issue 9 (tests/engine/fixtures) are shown with
    the events recorded then: they too match the schema."""
    import gzip
    import json
    from pathlib import Path

    rows = json.loads(gzip.decompress(
        (Path(__file__).parent / "engine" / "fixtures" / "stored_v1_games.json.gz").read_bytes()))
    moves = [row["fields"] for row in rows if row["model"] == "games.move"]
    assert moves
    for move in moves:
        for e in move["events"]:
            check_event(strip_audience(e), f"stored move {move.get('seq')}")
