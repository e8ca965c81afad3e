"""The cards that move hands between players, and the moves themselves (RULES.md
"Extra cards"; seed 004; the Mattel 2015 and 2018 sheets).

- The 112-card deck (preset ``standard_112``, Mattel 2018; ``cards.DECKS``): the
  standard 108, one Wild Shuffle Hands and three Wild Customizable, 40 points each.
  Wild Shuffle Hands: "all hands are collected, shuffled and dealt out again one at a
  time starting left of the player, who names the colour"; Wild Customizable: a Wild.
- ``swap_hands_card`` (Mattel 2015): the 112-card deck with a Wild Swap Hands in place
  of the Shuffle Hands card: "the player swaps hands with a player they name"
  (``target_seat``, as a 7 with ``seven_zero``).
- ``hand_pass_cards`` (seed 004 "Change de jeu"): two colourless cards, 20 points:
  "every player passes their hand to the next in the direction of play".
- ``uno_card`` (seed 004): one card, 100 points, "playable in turn on anything: every
  hand passes against the direction of play; if it was the player's last card, they
  receive a hand and do not win".

The hand moves (:func:`rotate_hands`, :func:`swap_hands`, :func:`shuffle_hands`) are
also those of ``seven_zero`` (a 0 rotates, a 7 swaps).  Each tells every seat whose hand
changed its new hand in a private ``hand`` event; the public event (``hands_rotated``,
``hands_swapped``, ``hands_shuffled``) names no card, and hand counts are public as
always.  Hands changing owners close the UNO window (``calls.hands_moved``).

Decisions where the sources are silent, as this module plays them:

- Wild Shuffle Hands and Wild Swap Hands are wilds whose player names the colour once
  the hands have moved, knowing the new hand (a ``choose_color`` decision owed by the
  player, as for a Wild turned up first; the timer names the colour the player holds
  most of).  The Swap's target is named with the play (``target_seat``), so the timer
  never has to choose one (it never plays a card).
- The Shuffle Hands redeal starts left of the player (seat + 1, whatever the direction
  of play, as the deal does) and goes round to the left one card at a time, the player
  last: the seats nearest the player's left get the odd cards.  The redeal is a shuffle
  of the game (``State.shuffle``: a replay deals the same) and nobody is told the order.
- A Change de jeu and the UNO card have no colour: played in turn on anything, they
  name no colour, and any card may be played on them (as on a Buzzer).  They are no
  wilds in points (20 and 100, per seed 004).
- Going out with a Wild Shuffle Hands, a Wild Swap Hands or a Change de jeu ends the
  round and no hands move (as a 0 or a 7 with ``seven_zero``).  Going out with the UNO
  card moves the hands all the same: its player receives the next player's hand, and
  the player who receives the empty hand wins the round (seed 004: "it is the other
  player who wins").
- Eliminated seats (``scoring: elimination``) hold no hand and take no part: hands
  pass between the active seats only, and the redeal deals to them only.
- None of these cards is jumped in (they have no colour to be identical in), nor
  answers a +2/+4 (stacking) or a Skip (deflect_cards).  A Wild Shuffle Hands, Swap
  Hands or Customizable turned up first is a Wild (the first player names the colour;
  no hands move); a Change de jeu or UNO card turned up first moves nothing either.
- A player who receives a one-card hand owes no UNO call (nobody played a next-to-last
  card), as after a 7 or a 0.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..cards import CUSTOMIZABLE, PARTS, SHUFFLE_HANDS, SWAP_HANDS, Card
from ..config import OptionSpec, boolean
from ..errors import InvalidOptions
from ..events import SEAT, EventType, register as register_event
from ..rules import Module, Play, Rules
from ..state import State
from .calls import hands_moved
from .piles import reveal_hands
from .turn import ChooseColor

Events = Any  # list[dict] | None

NEXT = 1
#: the ranks of the seed 004 cards
HAND_PASS, UNO = "hand_pass", "uno"
HAND_PASS_PART, UNO_PART = "hand_pass_cards", "uno_card"
HAND_PASS_COPIES, HAND_PASS_POINTS = 2, 20
UNO_POINTS = 100
#: the base decks whose Wild Shuffle Hands ``swap_hands_card`` replaces by a Wild Swap Hands
SWAPPED_DECKS: dict[str, str] = {"standard_112": "standard_112_swap"}

register_event(EventType("hands_shuffled", {"seat": {**SEAT, "description": "who played the Wild Shuffle Hands"}},
                         "every hand was collected, shuffled and dealt again from the player's left (Wild Shuffle "
                         "Hands, standard_112): each seat is told only its own new hand"))


def hand_pass_cards(start: int) -> list[Card]:
    """Seed 004: two "Change de jeu", colourless, 20 points."""
    return [Card(start + i, "action", HAND_PASS, (), (), HAND_PASS_POINTS, HAND_PASS) for i in range(HAND_PASS_COPIES)]


def uno_cards(start: int) -> list[Card]:
    """Seed 004: one UNO card, colourless, 100 points."""
    return [Card(start, "action", UNO, (), (), UNO_POINTS, UNO)]


PARTS[HAND_PASS_PART] = hand_pass_cards
PARTS[UNO_PART] = uno_cards


# -- the hand moves (seven_zero's too) -------------------------------------------------------
def active_seats(state: State) -> list[int]:
    """The seats still in the game, in seat order."""
    gone = state.eliminated
    return [s for s in range(state.seats) if s not in gone] if gone else list(range(state.seats))


def rotated(hands: list, eliminated, toward: int) -> list:
    """``hands`` (one entry per seat: cards, or what is known of them) after every active
    seat's (not in ``eliminated``) passes to the next active seat ``toward`` (+1:
    clockwise, the seat after; -1: counterclockwise); the eliminated seats' entries stay
    (the beliefs of ``games.bots`` follow a rotation with this too)."""
    active = [s for s in range(len(hands)) if s not in eliminated]
    m = len(active)
    moved = hands[:]
    for k, s in enumerate(active):
        moved[s] = hands[active[(k - toward) % m]]
    return moved


def shuffle_deal(seat: int, seats: int, eliminated, total: int) -> list[tuple[int, int]]:
    """Wild Shuffle Hands' deal of ``total`` cards played by ``seat``: (each active seat,
    how many cards it gets), in dealing order (one at a time, left of ``seat`` first,
    ``seat`` last)."""
    order = [s for s in ((seat + k) % seats for k in range(1, seats + 1)) if s not in eliminated]
    m = len(order)
    return [(s, total // m + (1 if k < total % m else 0)) for k, s in enumerate(order)]


def rotate_hands(state: State, rules: Rules, seat: int, toward: int, ev: Events) -> None:
    """Every hand passes to the next active seat ``toward`` (+1: clockwise, the seat
    after; -1: counterclockwise); ``seat`` played the card that did it."""
    state.hands = rotated(state.hands, state.eliminated, toward)
    hands_moved(state)
    if ev is not None:
        ev.append({"type": "hands_rotated", "seat": seat, "direction": "clockwise" if toward == 1 else "counterclockwise"})
        reveal_hands(state, rules, ev, active_seats(state) if state.eliminated else None)


def swap_hands(state: State, rules: Rules, a: int, b: int, ev: Events) -> None:
    """Seats ``a`` (who played the card) and ``b`` swap hands."""
    state.hands[a], state.hands[b] = state.hands[b], state.hands[a]
    hands_moved(state)
    if ev is not None:
        ev.append({"type": "hands_swapped", "seat": a, "target_seat": b})
    reveal_hands(state, rules, ev, [a, b])


def shuffle_hands(state: State, rules: Rules, seat: int, ev: Events) -> None:
    """Every active hand is collected and shuffled (the game's next shuffle), then dealt
    one card at a time starting left of ``seat`` (seat + 1), ``seat`` last."""
    order = active_seats(state)
    pool = [c for s in order for c in state.hands[s]]
    state.shuffle(pool)
    hands = state.hands
    deal = shuffle_deal(seat, state.seats, state.eliminated, len(pool))
    for s, _ in deal:
        hands[s] = []
    k = 0
    while pool:  # one card at a time round the table (the cards each seat gets: ``shuffle_deal``)
        hands[deal[k % len(deal)][0]].append(pool.pop())
        k += 1
    hands_moved(state)
    if ev is not None:
        ev.append({"type": "hands_shuffled", "seat": seat})
        reveal_hands(state, rules, ev, order)


def target_params(rules: Rules, seat: int, card: int, hand_size: int) -> list[dict]:
    """The plays of a card that names a player to swap hands with (a 7 with
    ``seven_zero``, a Wild Swap Hands): every other seat; as the last card, none."""
    if hand_size == 1:
        return [{}]  # going out swaps nothing, so it needs no target
    return [{"target_seat": t} for t in range(rules.seats) if t != seat]


# -- the cards' effects ------------------------------------------------------------------------
def wild_shuffle_hands(state: State, rules: Rules, play: Play, ev: Events) -> int:
    shuffle_hands(state, rules, play.seat, ev)
    state.stack.append(ChooseColor(play.seat))  # the player names the colour, knowing the new hand
    return NEXT


def wild_swap_hands(state: State, rules: Rules, play: Play, ev: Events) -> int:
    swap_hands(state, rules, play.seat, play.move[3], ev)
    state.stack.append(ChooseColor(play.seat))
    return NEXT


def hand_pass(state: State, rules: Rules, play: Play, ev: Events) -> int:
    rotate_hands(state, rules, play.seat, state.direction, ev)  # to the next in the direction of play
    return NEXT


def uno(state: State, rules: Rules, play: Play, ev: Events) -> int:
    rotate_hands(state, rules, play.seat, -state.direction, ev)  # against the direction of play
    return NEXT


def last_uno(state: State, rules: Rules, play: Play, ev: Events) -> int:
    """The UNO card as the last card: the hands pass all the same; whoever receives the
    empty hand wins the round (seed 004), not the player."""
    rotate_hands(state, rules, play.seat, -state.direction, ev)
    return next(s for s in active_seats(state) if not state.hands[s])


# -- the wilds that are Wilds (a Customizable; the first card) -------------------------------
def as_wild(state: State, rules: Rules, play: Play, ev: Events) -> int:
    return rules.effects["wild"](state, rules, play, ev)


def wild_params(rules: Rules, seat: int, card: int, hand_size: int) -> Any:
    return rules.params["wild"](rules, seat, card, hand_size)


def first_as_wild(state: State, rules: Rules, ev: Events) -> int:
    return rules.first_card["wild"](state, rules, ev)


class HandMoves(Module):
    """The 112-card deck's wilds (played whenever the deck holds them: ``standard_112``)
    and the options ``swap_hands_card``, ``hand_pass_cards`` and ``uno_card``."""

    name = "hand_moves"
    options = (
        OptionSpec("swap_hands_card", False, boolean,
                   "standard_112 with the Mattel 2015 Wild Swap Hands (swap hands with target_seat) in place of "
                   "the Wild Shuffle Hands"),
        OptionSpec("hand_pass_cards", False, boolean,
                   "two colourless Change de jeu cards (20 points), played on anything: every hand passes to the "
                   "next player in the direction of play"),
        OptionSpec("uno_card", False, boolean,
                   "one colourless UNO card (100 points), played on anything: every hand passes against the "
                   "direction of play; as the last card its player receives a hand and does not win"),
    )

    def base_deck(self, base: str, opts: dict) -> str:
        if not opts["swap_hands_card"]:
            return base
        if base not in SWAPPED_DECKS:
            raise InvalidOptions("swap_hands_card", "the Wild Swap Hands replaces the Wild Shuffle Hands of the "
                                                    "112-card deck: use the standard_112 ruleset")
        return SWAPPED_DECKS[base]

    def validate(self, opts: dict[str, Any], given: Mapping[str, Any]) -> None:
        pass  # swap_hands_card on a deck without a Shuffle Hands card: ``base_deck`` refuses it

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        return ((HAND_PASS_PART,) if opts["hand_pass_cards"] else ()) + ((UNO_PART,) if opts["uno_card"] else ())

    def install(self, rules: Rules) -> None:
        ranks = set(rules.deck.rank)
        if SHUFFLE_HANDS in ranks:
            rules.effects[SHUFFLE_HANDS] = wild_shuffle_hands
        if SWAP_HANDS in ranks:
            rules.effects[SWAP_HANDS] = wild_swap_hands
            rules.params[SWAP_HANDS] = target_params
        if CUSTOMIZABLE in ranks:
            rules.effects[CUSTOMIZABLE] = as_wild
            rules.params[CUSTOMIZABLE] = wild_params
        for rank in (SHUFFLE_HANDS, SWAP_HANDS, CUSTOMIZABLE):
            if rank in ranks:
                rules.first_card[rank] = first_as_wild
        if HAND_PASS in ranks:
            rules.effects[HAND_PASS] = hand_pass
        if UNO in ranks:
            rules.effects[UNO] = uno
            rules.finish_effects[UNO] = last_uno
        follows = {HAND_PASS, UNO} & ranks
        if follows:
            rules.anything_follows = rules.anything_follows | follows
