"""A UNO game's rounds: the deal, the first card, the end of a round and of the game."""

from __future__ import annotations

from typing import Any

from ..core import end_turn
from ..rules import Rules
from ..state import GAME_OVER, PLAY, ROUND_OVER, State
from .piles import can_draw, hand_points, reveal_hands

Events = Any  # list[dict] | None


def start_game(state: State, rules: Rules, ev: Events) -> None:
    # The "highest card deals" draw is recorded only as its outcome.
    state.dealer = state.rng().randrange(state.seats)
    if ev is not None:
        ev.append({"type": "dealer_chosen", "seat": state.dealer})
    start_round(state, rules, ev)


def start_round(state: State, rules: Rules, ev: Events) -> None:
    """Shuffle, deal ``hand_size`` cards one at a time from the dealer's left, turn up
    the first card (redrawing the ranks that are put back) and apply its effect: the
    player it designates (default: left of the dealer) is in turn."""
    n, deck = state.seats, rules.deck
    state.round += 1
    cards = list(range(len(deck)))
    state.shuffle(cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    for _ in range(rules.family.hand_size):
        for k in range(1, n + 1):
            hands[(state.dealer + k) % n].append(cards.pop())
    state.hands, state.draw_pile, state.discard = hands, cards, []
    state.direction = 1
    state.stack, state.windows = [], []
    state.uno_declared = state.uno_exposed = None
    state.phase = PLAY
    if ev is not None:
        ev.append({"type": "round_started", "round": state.round, "dealer": state.dealer})
    reveal_hands(state, rules, ev)
    while True:
        card = state.draw_pile.pop()
        if deck.rank[card] not in rules.first_card_redraw:
            break
        # Returned to the deck, the deck reshuffled, another card turned.
        if ev is not None:
            ev.append({"type": "first_card_returned", "rank": deck.rank[card]})
        state.draw_pile.append(card)
        state.shuffle(state.draw_pile)
    state.discard.append(card)
    state.color = deck.color[card]
    if ev is not None:
        ev.append({"type": "first_card", "card": deck.dicts[card]})
    effect = rules.first_card.get(deck.rank[card])
    state.current = state.dealer
    end_turn(state, effect(state, rules, ev) if effect is not None else 1)


def end_round(state: State, rules: Rules, winner: int, ev: Events, blocked: bool = False) -> None:
    """Score the round ``winner`` won; the game ends, or the next round starts (the
    deal passes to the left)."""
    assert rules.scoring is not None
    state.phase = ROUND_OVER
    points = rules.scoring.round_points(state, rules, winner)
    for s, p in enumerate(points):
        state.scores[s] += p
    state.history.append({"round": state.round, "winner": winner, "points": points})
    if ev is not None:
        ev.append(
            {
                "type": "round_ended",
                "round": state.round,
                "winner": winner,
                "blocked": blocked,
                "hand_points": [hand_points(state, rules, s) for s in range(state.seats)],
                "points": points,
                "scores": list(state.scores),
            }
        )
    state.stack, state.windows = [], []
    state.uno_declared = state.uno_exposed = None
    game_winner = rules.scoring.game_winner(state, rules)
    if game_winner is not None:
        state.phase, state.winner = GAME_OVER, game_winner
        if ev is not None:
            ev.append({"type": "game_ended", "winner": game_winner, "scores": list(state.scores)})
        return
    state.dealer = (state.dealer + 1) % state.seats
    start_round(state, rules, ev)


def end_if_blocked(state: State, rules: Rules, ev: Events) -> bool:
    """Decision: with both piles exhausted and no playable card in any hand, the round
    ends; the hand worth fewest points wins it (ties: nearest the seat in turn)."""
    if can_draw(state):
        return False
    ok = rules.playable_on(state.color, rules.deck.rank[state.discard[-1]])
    if any(c in ok for h in state.hands for c in h):
        return False
    order = [state.next_seat(state.current, k) for k in range(state.seats)]
    winner = min(order, key=lambda s: hand_points(state, rules, s))
    end_round(state, rules, winner, ev, blocked=True)
    return True
