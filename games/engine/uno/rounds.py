"""A UNO game's rounds: the deal, the first card, the end of a round and of the game."""

from __future__ import annotations

from typing import Any

from ..core import end_turn
from ..rules import Rules
from ..state import GAME_OVER, PLAY, ROUND_OVER, State
from .piles import can_draw, hand_points, reveal_hands

Events = Any  # list[dict] | None


def choose_dealer(state: State, ev: Events) -> None:
    """The dealer at random (seeded): the first round's; every round's with ``dealer:
    random`` (``play_uno_com``, seed 002: the starting player, left of the dealer, is
    chosen at random each round)."""
    state.dealer = state.rng().randrange(state.seats)
    if ev is not None:
        ev.append({"type": "dealer_chosen", "seat": state.dealer})


def start_game(state: State, rules: Rules, ev: Events) -> None:
    # The "highest card deals" draw is recorded only as its outcome.
    choose_dealer(state, ev)
    rules.family.start_round(state, rules, ev)  # type: ignore[attr-defined]  # UnoFamily's hook (Duo drafts)


def start_round(state: State, rules: Rules, ev: Events) -> None:
    """Shuffle, deal ``hand_size`` cards one at a time from the dealer's left, turn up
    the first card (redrawing the ranks that are put back) and apply its effect: the
    player it designates (default: left of the dealer) is in turn."""
    n, deck = state.seats, rules.deck
    state.round += 1
    if rules.teams is not None:
        state.teams = rules.teams(state)  # this round's partners (``uno/teams.py``)
    cards = list(range(len(deck)))
    state.shuffle(cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    # from the dealer's left, eliminated seats (``scoring: elimination``) passed over
    order = [s for s in ((state.dealer + k) % n for k in range(1, n + 1)) if s not in state.eliminated]
    for _ in range(rules.family.hand_size):
        for s in order:
            hands[s].append(cards.pop())
    state.hands, state.draw_pile, state.discard = hands, cards, []
    state.direction = 1
    state.stack, state.windows = [], []
    state.uno_declared = state.uno_exposed = None
    state.phase = PLAY
    if ev is not None:
        ev.append({"type": "round_started", "round": state.round, "dealer": state.dealer})
    reveal_hands(state, rules, ev)
    turn_first_card(state, rules, ev)


def turn_first_card(state: State, rules: Rules, ev: Events) -> None:
    """Turn up the first card (redrawing the ranks that are put back) and apply its
    effect (``Rules.first_card``, intents counted from the dealer): the player it
    designates (default: left of the dealer) is in turn.  Also the end of Duo's draft."""
    deck = rules.deck
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
    rules.scoring.after_round(state, rules, ev)  # ``scoring: elimination`` eliminates seats
    winners = rules.scoring.game_winners(state, rules)
    if winners:
        # ``winner``: one seat of them, the one that went out last if it is one
        game_winner = winner if winner in winners else winners[0]
        state.phase, state.winner, state.winners = GAME_OVER, game_winner, list(winners)
        if ev is not None:
            ended = {"type": "game_ended", "winner": game_winner, "scores": list(state.scores)}
            if rules.several_winners:  # a team game lists every seat of the winning team
                ended["winners"] = list(winners)
            ev.append(ended)
        return
    if rules.opts.get("dealer") == "random":
        choose_dealer(state, ev)
    else:
        state.dealer = (state.dealer + 1) % state.seats
    if state.dealer in state.eliminated:
        state.dealer = next_dealer(state)  # the deal passes on to the left, over eliminated seats
    rules.family.start_round(state, rules, ev)  # type: ignore[attr-defined]  # UnoFamily's hook (Duo drafts)


def next_dealer(state: State) -> int:
    """The seat left of the dealer that is still in the game (``scoring: elimination``)."""
    n = state.seats
    dealer = (state.dealer + 1) % n
    while dealer in state.eliminated:
        dealer = (dealer + 1) % n
    return dealer


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
