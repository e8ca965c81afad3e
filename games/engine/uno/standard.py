"""The standard game's cards (RULES.md "The standard game"): what each rank does when
played, as the player's last card and when turned up first.

An effect returns its intent (how many seats play moves on from the player) and pushes
the decisions its card calls for; it never moves play on itself (``core.end_turn`` does).
"""

from __future__ import annotations

from typing import Any

from ..cards import COLORS, DRAW_VALUE, NUMBER_RANKS
from ..config import OptionSpec, boolean
from ..rules import Module, Play, Rules
from ..state import State
from .piles import draw
from .turn import ChooseColor, Penalty

Events = Any  # list[dict] | None

NEXT, SKIP_ONE = 1, 2


def number(state: State, rules: Rules, play: Play, ev: Events) -> int:
    return NEXT


def skip(state: State, rules: Rules, play: Play, ev: Events) -> int:
    return SKIP_ONE


def reverse(state: State, rules: Rules, play: Play, ev: Events) -> int:
    # Two players (two left with ``scoring: elimination``): Reverse acts as Skip (the
    # player goes again at once).
    if state.seats - len(state.eliminated) == 2 and rules.opts["two_player_replay"]:
        return SKIP_ONE
    state.direction = -state.direction
    return NEXT


def draw_two(state: State, rules: Rules, play: Play, ev: Events) -> int:
    victim = state.next_seat(play.seat)
    state.stack.append(Penalty(victim, DRAW_VALUE["draw_two"] + play.stack, "draw_two", play.seat))
    return NEXT


def wild(state: State, rules: Rules, play: Play, ev: Events) -> int:
    return NEXT


def last_penalty_card(state: State, rules: Rules, play: Play, ev: Events) -> None:
    """A last card of Draw Two / Wild Draw Four still makes the next player draw."""
    rank = rules.deck.rank[play.card]
    draw(state, rules, state.next_seat(play.seat), DRAW_VALUE[rank] + play.stack, ev, reason=rank)


_COLOR_PARAMS = tuple({"color": c} for c in COLORS)


def color_params(rules: Rules, seat: int, card: int, hand_size: int) -> tuple[dict, ...]:
    return _COLOR_PARAMS  # every colour, the colour in force included (``wild_keeps_color``)


def always_true(v: object) -> bool:
    """``wild_keeps_color``'s validator: RULES.md rules that a Wild may always name the
    colour in force (no source forbids it), so ``true`` is the one value played."""
    if v is not True:
        raise ValueError("must be true: a Wild may always name the colour in force (RULES.md), false is not played")
    return True


always_true.json_schema = {"type": "boolean", "enum": [True]}  # type: ignore[attr-defined]


# -- the first card turned up (the dealer is ``state.dealer``; intents count from it) -----
def first_skip(state: State, rules: Rules, ev: Events) -> int:
    return SKIP_ONE  # the first player is skipped


def first_reverse(state: State, rules: Rules, ev: Events) -> int:
    state.direction = -1  # the dealer starts and play goes right
    return 0


def first_draw_two(state: State, rules: Rules, ev: Events) -> int:
    # The first player draws 2 and loses the turn (accepted with "draw" like any penalty).
    state.stack.append(Penalty(state.next_seat(state.dealer), DRAW_VALUE["draw_two"], "draw_two", None))
    return NEXT


def first_wild(state: State, rules: Rules, ev: Events) -> int:
    state.stack.append(ChooseColor(state.next_seat(state.dealer)))  # names the colour, then plays
    return NEXT


class StandardCards(Module):
    """The 108 cards' effects; ``two_player_replay`` (with two players Reverse acts as
    Skip) and ``wild_keeps_color`` (a Wild may name the colour in force: always)."""

    name = "standard_cards"
    options = (
        OptionSpec("two_player_replay", True, boolean, "with two players Reverse acts as Skip"),
        OptionSpec("wild_keeps_color", True, always_true, "a Wild may name the current colour (always allowed)"),
    )

    def install(self, rules: Rules) -> None:
        effects = {**{r: number for r in NUMBER_RANKS}, "skip": skip, "reverse": reverse, "draw_two": draw_two,
                   "wild": wild}
        for rank, effect in effects.items():
            rules.effects.setdefault(rank, effect)  # unless an option's module gave the rank another
        rules.finish_effects.update(draw_two=last_penalty_card, wild_draw_four=last_penalty_card)
        rules.params.update(wild=color_params, wild_draw_four=color_params)
        rules.first_card.update(skip=first_skip, reverse=first_reverse, draw_two=first_draw_two, wild=first_wild)
        rules.first_card_redraw = frozenset({"wild_draw_four"})
