"""bench/bots.py's table part (issue 31): RLCard's rule agent re-implemented in our engine
(``rlcard_rule``: as RLCard's environment lets it play; ``eager``: a Wild Draw Four
whenever it holds one) and the games of one cell.  The figures themselves are in
docs/contributors/benchmarks.md; here, that the agents play as described."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

from games.engine import apply, build_rules, legal_actions
from tests.engine.helpers import arrange, card, card_name

PATH = Path(__file__).resolve().parents[1] / "bench" / "bots.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_bots", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (the workers' pickles look it up by name)
    spec.loader.exec_module(module)
    return module


bots = sys.modules.get("bench_bots") or _load()


def rule(state, seat: int, eager: bool = False, seed: int = 0) -> dict | None:
    action = bots.rlcard_rule(state, seat, legal_actions(state, seat), random.Random(seed), eager=eager)
    assert action is None or action in legal_actions(state, seat)
    return action


def played(state, action: dict) -> str:
    assert action["type"] == "play"
    return card_name(action["card"])


def test_the_rule_agent_plays_a_wild_draw_four_only_when_nothing_else_is_playable():
    state = arrange(hands=[["wild_draw_four", "red 5", "blue 7"], ["green 1"]], top="red 3")
    assert {played(state, rule(state, 0, seed=s)) for s in range(10)} == {"red 5"}
    state = arrange(hands=[["wild_draw_four", "wild", "blue 7"], ["green 1"]], top="red 3")
    picks = [rule(state, 0, seed=s) for s in range(20)]
    assert {played(state, a) for a in picks} == {"wild"}, "a plain Wild before a Wild Draw Four"
    assert len({a["color"] for a in picks}) > 1, "its colour at random (RLCard's choice among the wild's actions)"
    state = arrange(hands=[["wild_draw_four", "blue 7", "blue 8", "green 9"], ["green 1"]], top="red 3")
    action = rule(state, 0)
    assert played(state, action) == "wild_draw_four" and action["color"] == "blue", "the colour it holds most of"


def test_the_eager_rule_agent_plays_a_wild_draw_four_whenever_it_holds_one():
    state = arrange(hands=[["wild_draw_four", "red 5", "red 6", "blue 7"], ["green 1"]], top="red 3")
    action = rule(state, 0, eager=True)
    assert played(state, action) == "wild_draw_four" and action["color"] == "red"
    events = apply(state, 0, action)
    assert any(e["type"] == "play" for e in events)
    assert state.decision().guilty, "a bluff: it held the colour in force"


def test_the_rule_agent_picks_a_card_not_a_kind_and_keeps_its_wilds():
    """RLCard's agent picks among its legal actions, one per card held: a kind held
    twice is played twice as often."""
    state = arrange(hands=[["red 5", "red 5", "red 6", "wild"], ["green 1"]], top="red 3")
    picks = [played(state, rule(state, 0, seed=s)) for s in range(600)]
    assert set(picks) == {"red 5", "red 6"}
    assert 0.58 < picks.count("red 5") / len(picks) < 0.75


def test_the_rule_agent_calls_uno_never_catches_and_never_challenges():
    state = arrange(hands=[["red 5", "blue 7"], ["green 1", "green 2"]], top="red 3")
    assert rule(state, 0)["uno"] is True
    state = arrange(seats=3, hands=[["red 6", "green 1"], ["blue 7", "blue 8"], ["yellow 7", "yellow 8"]],
                    top="red 3", current=0)
    apply(state, 0, {"type": "play", "card": card(state, 0, "red 6")})  # (no UNO called)
    assert any(a["type"] == "catch_uno" for a in legal_actions(state, 2)), "seat 2 could catch seat 0"
    assert rule(state, 2) is None
    assert rule(state, 1)["type"] == "draw", "in turn: nothing playable, it draws; no catch"
    state = arrange(hands=[["green 1", "blue 2"], ["wild_draw_four", "red 5", "blue 7"]], top="red 3", current=1)
    apply(state, 1, {"type": "play", "card": card(state, 1, "wild_draw_four"), "color": "blue"})
    assert {a["type"] for a in legal_actions(state, 0)} >= {"draw", "challenge"}
    assert rule(state, 0) == {"type": "draw"}


def test_a_card_drawn_is_played_at_once_when_it_is_wild_or_of_the_colour_in_force():
    """RLCard's draw: a wild or a card of the target's colour is played at once, a card
    matching only the rank is kept (the turn passes)."""
    for drawn, plays in (("red 9", True), ("wild", True), ("blue 3", False)):
        state = arrange(hands=[["blue 7", "green 8"], ["green 1"]], top="red 3", draw=[drawn])
        assert rule(state, 0) == {"type": "draw"}, "nothing playable: it draws"
        apply(state, 0, {"type": "draw"})
        assert state.actor() == 0 and state.decision().name == "play_drawn"
        action = rule(state, 0)
        assert (action["type"] == "play") == plays, drawn
        if plays:
            assert card_name(action["card"]) == drawn


def test_a_cell_plays_every_game_and_only_the_eager_agent_bluffs():
    """Games of one cell (``normal`` in the rotated seat, no ``hard``: seconds): every game
    played to its end; RLCard's agent never bluffs a Wild Draw Four, the eager one does."""
    counts = {}
    for other in ("rule", "rule-wd4"):
        out = bots._table_chunk(("normal", other, 3, "standard", {"rounds": 1}, 0, 40, 1, None, None))
        stats = out["stats"]
        assert out["cell"] == ("normal", other, 3)
        assert stats["games"] + stats["abandoned"] == 40 and stats["games"] >= 38
        assert 0 <= stats["wins"] <= stats["games"]
        counts[other] = (stats["wd4:other"], stats["bluff:other"])
    assert counts["rule"][1] == 0 < counts["rule"][0]
    assert counts["rule-wd4"][1] > 0
    rules = build_rules(arrange().config)
    assert rules.guilt is not None, "standard: the official Wild Draw Four (its guilt test counts the bluffs)"
