"""The engine's hook bases declare, as abstract methods, the hooks every subclass must
define (``games/engine/rules.py``): a family, a rule module, a decision type, a window
and a deflectable effect that lacks one cannot be instantiated, and every class the
engine instantiates defines them all."""

from __future__ import annotations

import inspect

import pytest

from games.engine import build_rules, new_game
from games.engine.rules import Decision, Family, Module, Scoring, Window
from games.engine.uno.deflect import Aimed
from games.engine.uno.family import UnoFamily
from games.engine.uno.scoring import WinnerTakes

#: each base and the hooks a subclass must define (the others have a meaningful default)
REQUIRED = {
    Family: {"install", "start_game", "playable"},
    Module: {"install"},
    Decision: {"moves", "expire"},
    Window: {"moves", "apply"},
    Scoring: {"round_points", "game_winner"},
    Aimed: {"what"},  # (a Decision whose own moves and expire are defined)
}


def subclasses(base: type) -> set[type]:
    out = set()
    for sub in base.__subclasses__():
        out |= {sub} | subclasses(sub)
    return out


@pytest.mark.parametrize("base", REQUIRED, ids=lambda b: b.__name__)
def test_the_required_hooks_are_the_bases_abstract_methods(base):
    assert inspect.isabstract(base)
    assert set(base.__abstractmethods__) == REQUIRED[base]


@pytest.mark.parametrize("base", REQUIRED, ids=lambda b: b.__name__)
def test_a_subclass_missing_a_required_hook_cannot_be_instantiated(base):
    for missing in sorted(REQUIRED[base]):
        # every other required hook defined (a stub), the one ``missing`` left out
        stubs = {name: (lambda self, *args, **kwargs: None) for name in REQUIRED[base] - {missing}}
        partial = type(f"Without_{missing}", (base,), {"__module__": __name__, **stubs})
        with pytest.raises(TypeError, match=missing):
            partial() if base is not Aimed else partial(0, "skip", 0, 1)
    complete = type("Complete", (base,), {"__module__": __name__,
                                          **{name: (lambda self, *a, **k: None) for name in REQUIRED[base]}})
    assert complete() if base is not Aimed else complete(0, "skip", 0, 1)


def test_a_family_without_start_game_is_refused_at_once_and_a_complete_one_is_not():
    class NoStart(Family):  # install and playable, no start_game
        def install(self, rules):
            pass

        def playable(self, deck, color, rank):
            return frozenset()

    with pytest.raises(TypeError, match="start_game"):
        NoStart()
    assert isinstance(UnoFamily(), Family)


def test_every_class_the_engine_uses_defines_its_required_hooks():
    """Each of the engine's subclasses of a base can be instantiated, or is an
    intermediate base (abstract) that a subclass of its completes."""
    for base in REQUIRED:
        for cls in subclasses(base):
            if cls.__module__.startswith("games.engine") and inspect.isabstract(cls):
                assert any(not inspect.isabstract(sub) for sub in subclasses(cls)), cls
    rules = build_rules(new_game("standard", {"deflect_cards": True, "buzzer_cards": True}, 3, 0).config)
    assert isinstance(rules.family, Family) and isinstance(rules.scoring, Scoring)
    assert isinstance(WinnerTakes(), Scoring)
