"""AI players (no Django).  ``choose(level, observation, seat, legal, rng)`` picks one
of ``legal`` (or None: do nothing out of turn).  Bots are only ever given an
observation (:func:`games.engine.observe`), never the real state, and use only the
engine's public names.
"""

from games.engine import build_rules, legal_actions, observe

from .beliefs import Beliefs, RoundLog
from .decktet import DecktetBeliefs

from .policies import LEVELS, choose, reaction_delay

__all__ = ["LEVELS", "Beliefs", "DecktetBeliefs", "RoundLog", "acting_order", "choose", "decide", "reaction_delay"]


def acting_order(actor, seats, rng) -> list:
    """In which order the bot ``seats`` are asked for a decision: every seat but the
    actor first (in a random order: out-of-turn chances such as calling or catching
    UNO are a race, and they close as soon as the actor moves), the actor last."""
    others = [s for s in seats if s != actor]
    rng.shuffle(others)
    return others + [s for s in seats if s == actor]


def decide(level: str, state, seat: int, rng, budget_ms: float | None = None, history=None,
           max_samples: int | None = None):
    """Observe ``state`` as ``seat`` and choose among its legal actions (None: pass on
    an out-of-turn chance).  ``history``: the events of the current round that ``seat``
    was shown, in order (``visible_events``); ``hard`` deals its worlds from what they
    tell (:class:`~games.bots.beliefs.Beliefs`; Decktet-Uno's:
    :class:`~games.bots.decktet.DecktetBeliefs`), else uniformly.  ``max_samples`` (a
    test's): ``hard`` stops after that many worlds, not at its time budget."""
    legal = legal_actions(state, seat)
    if not legal:
        return None
    obs = observe(state, seat, rng)
    sampler = None
    if level == "hard" and history is not None:
        beliefs = DecktetBeliefs if build_rules(state.config).family.name == "decktet" else Beliefs
        sampler = beliefs(obs, seat).feed(history).deal
    return choose(level, obs, seat, legal, rng, budget_ms=budget_ms, sampler=sampler, max_samples=max_samples)
