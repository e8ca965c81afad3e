"""The standard game's cards (RULES.md "The standard game")."""

from __future__ import annotations

from ..cards import COLORS, DRAW_VALUE, NUMBER_RANKS
from ..core import advance, draw, set_penalty
from . import Events, Play, Rules, State


def number(state: State, rules: Rules, play: Play, ev: Events) -> None:
    advance(state)


def skip(state: State, rules: Rules, play: Play, ev: Events) -> None:
    advance(state, 2)


def reverse(state: State, rules: Rules, play: Play, ev: Events) -> None:
    # Two players: Reverse acts as Skip (the player goes again at once).
    if state.seats == 2 and rules.opt("two_player_replay"):
        advance(state, 2)
        return
    state.direction = -state.direction
    advance(state)


def draw_two(state: State, rules: Rules, play: Play, ev: Events) -> None:
    set_penalty(state, state.next_seat(play.seat), DRAW_VALUE["draw_two"] + play.stack, "draw_two", play.seat)


def wild(state: State, rules: Rules, play: Play, ev: Events) -> None:
    advance(state)


def wild_draw_four(state: State, rules: Rules, play: Play, ev: Events) -> None:
    # Whether the player held a card of the colour in force is settled now and kept
    # (hidden) for a possible challenge.
    color = rules.deck.color
    guilty = any(color[c] == play.prev_color for c in state.hands[play.seat])
    set_penalty(
        state,
        state.next_seat(play.seat),
        DRAW_VALUE["wild_draw_four"] + play.stack,
        "wild_draw_four",
        play.seat,
        challengeable=rules.challenge is not None,
        guilty=guilty,
        prev_color=play.prev_color,
    )


def last_penalty_card(state: State, rules: Rules, play: Play, ev: Events) -> None:
    """A last card of Draw Two / Wild Draw Four still makes the next player draw."""
    rank = rules.deck.rank[play.card]
    draw(state, rules, state.next_seat(play.seat), DRAW_VALUE[rank] + play.stack, ev, reason=rank)


_COLOR_PARAMS = tuple({"color": c} for c in COLORS)


def color_params(state: State, rules: Rules, seat: int, card: int) -> tuple[dict, ...]:
    return _COLOR_PARAMS  # the same for every wild: built once (callers copy, never mutate)


# -- the first card turned up (the dealer is ``state.dealer``) ---------------------------
def first_skip(state: State, rules: Rules, ev: Events) -> None:
    state.current = state.next_seat(state.dealer, 2)  # the first player is skipped


def first_reverse(state: State, rules: Rules, ev: Events) -> None:
    state.direction = -1  # the dealer starts and play goes right
    state.current = state.dealer


def first_draw_two(state: State, rules: Rules, ev: Events) -> None:
    # The first player draws 2 and loses the turn (accepted with "draw" like any penalty).
    set_penalty(state, state.next_seat(state.dealer), DRAW_VALUE["draw_two"], "draw_two", None)


def first_wild(state: State, rules: Rules, ev: Events) -> None:
    first = state.next_seat(state.dealer)
    state.current = first
    state.pending = {"type": "choose_color", "seat": first}  # names the colour, then plays


def install(rules: Rules) -> None:
    for r in NUMBER_RANKS:
        rules.effects[r] = number
    rules.effects.update(
        skip=skip, reverse=reverse, draw_two=draw_two, wild=wild, wild_draw_four=wild_draw_four
    )
    rules.finish_effects.update(draw_two=last_penalty_card, wild_draw_four=last_penalty_card)
    rules.params.update(wild=color_params, wild_draw_four=color_params)
    rules.first_card.update(skip=first_skip, reverse=first_reverse, draw_two=first_draw_two, wild=first_wild)
    rules.first_card_redraw = frozenset({"wild_draw_four"})
