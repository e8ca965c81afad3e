"""The golden corpus (``golden.py``) replayed against today's engine.

Every game of the corpus was recorded with the engine as it was before the v2 rewrite
(issue 9).  Replaying it, today's engine must produce exactly the same events, views
and legal-action lists (same order), refuse the same probes with the same error class,
code, message and fields, and load every snapshot of the old format (v1: no
``format`` key) into a state that is exactly the live one, and plays on identically.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from games import engine
from games.engine import State

from . import golden


@lru_cache(maxsize=1)
def corpus() -> dict:
    return golden.load()


def _same(actual, expected, what: str) -> None:
    """Equal as JSON, key order included (the bytes a client would receive)."""
    a = json.dumps(actual)
    e = json.dumps(expected)
    if a != e:
        raise AssertionError(f"{what}:\n  expected {e[:1500]}\n  got      {a[:1500]}")


def _same_state(actual: dict, expected: dict, what: str) -> None:
    """Equal saved states (as dicts: the order of keys in a saved state means nothing)."""
    if actual != expected:
        diff = {k: (expected.get(k), actual.get(k)) for k in set(actual) | set(expected) if actual.get(k) != expected.get(k)}
        raise AssertionError(f"{what}: differs in {json.dumps(diff)[:2000]}")


def _check_obs(state: State, dec: golden.ObsDecoder, enc: dict, where: str) -> None:
    spectator, parts, legal = dec.decode(enc)
    _same(engine.view(state, None), spectator, f"{where}: spectator view")
    for s, part in enumerate(parts):
        _same(engine.view(state, s), {**spectator, **part}, f"{where}: view of seat {s}")
        _same(engine.legal_actions(state, s), legal[s], f"{where}: legal actions of seat {s}")


def _refusal(state: State, seat, action, system: bool) -> list:
    try:
        engine.apply(state, seat, action, system=system)
    except engine.EngineError as exc:
        return json.loads(json.dumps(golden._refusal(exc)))
    raise AssertionError(f"{action!r} by seat {seat!r} was accepted")


def _play_on(state: State, game: dict, start: int) -> None:
    """Apply the recorded steps from ``start`` on, requiring the recorded events."""
    for i in range(start, len(game["steps"])):
        step = game["steps"][i]
        events = engine.apply(state, step["seat"], step["action"], system=step["system"])
        _same(events, step["events"], f"step {i + 1} (played on from snapshot {start}): events")


def replay_game(game: dict) -> None:
    spec = game["spec"]
    events: list[dict] = []
    state = engine.new_game(spec["preset"], spec["options"], spec["seats"], spec["seed"], events)
    _same(events, game["start_events"], "new_game: events")
    dec = golden.ObsDecoder(spec["seats"])
    _check_obs(state, dec, game["obs"][0], "after new_game")
    snapshots = game["snapshots"]
    # the middle snapshot is also played on to the end from a state loaded from it
    middle = sorted(int(k) for k in snapshots)[len(snapshots) // 2]
    for i, step in enumerate(game["steps"]):
        if str(i) in snapshots:
            loaded = State.from_dict(json.loads(json.dumps(snapshots[str(i)])))
            _same_state(loaded.to_dict(), state.to_dict(), f"snapshot after step {i}: loaded vs live")
            if i == middle:
                _play_on(loaded, game, i)
                _same_state(loaded.to_dict(), state_after(game), "the game played on from a snapshot: final state")
        for seat, action, system, refusal in step["probes"]:
            _same(_refusal(state, seat, action, system), refusal, f"step {i + 1}: probe {action!r} by {seat!r}")
        ev = engine.apply(state, step["seat"], step["action"], system=step["system"])
        _same(ev, step["events"], f"step {i + 1}: events of {step['action']!r} by seat {step['seat']}")
        _check_obs(state, dec, game["obs"][i + 1], f"after step {i + 1}")
    last = str(len(game["steps"]))
    _same_state(State.from_dict(snapshots[last]).to_dict(), state.to_dict(), "final snapshot: loaded vs live")
    for seat, action, refusal in game["final_probes"]:
        _same(_refusal(state, seat, action, True), refusal, f"after the end: {action!r} by {seat!r}")


def state_after(game: dict) -> dict:
    """The final state, as the current engine writes it (the v1 snapshot, loaded)."""
    return State.from_dict(game["snapshots"][str(len(game["steps"]))]).to_dict()


@pytest.mark.parametrize("index", range(golden.DEFAULT_GAMES))
def test_golden_game(index):
    replay_game(corpus()["games"][index])


def test_the_corpus_covers_every_option_value():
    seen = golden.coverage(corpus())
    for name, values in golden.CHOICES.items():
        assert {json.dumps(v) for v in values} <= seen[name], name
    assert seen["preset"] == {"standard", "house"}
    assert seen["seats"] == {2, 3, 4, 5, 6}
    assert {"1", "2", "3"} <= seen["rounds"] and seen["target_score"]
    kinds = {e["type"] for g in corpus()["games"] for s in g["steps"] for e in s["events"]}
    assert {"challenge", "jump_in", "hands_rotated", "hands_swapped", "uno_caught", "reshuffled", "timeout",
            "game_ended"} <= kinds


def test_replay_rebuilds_every_game_of_the_corpus():
    for game in corpus()["games"][:40]:
        spec = game["spec"]
        config = engine.make_config(spec["preset"], spec["options"], spec["seats"], spec["seed"])
        replayed = engine.replay(config, [(s["seat"], s["action"]) for s in game["steps"]])
        _same_state(replayed.to_dict(), state_after(game), f"replay of {spec['seed']}")
