"""Decktet-Uno (seed 000, preset ``decktet_uno``): :class:`DecktetFamily`.

RULES.md ``decktet_uno``:

- "Deck: the Decktet without the Excuse ... 44 cards" (:mod:`.cards`).
- "3 cards each; one card turned face up to start the pile.  In turn, a player plays
  any card of their hand on the pile and scores (number of suits on the top card) x
  (number of suits of the played card that are also on the top card); then draws one
  card while the deck lasts.  When every hand is empty the game ends; most points wins."
  "Decktet-Uno ties: equal top scores share the win (the game lists every winner)."
- ``face_down``: "a player none of whose cards would score may instead play one face
  down beside the pile, then draw.  At the end of the next player's turn that card is
  placed on the card they just played: if it shares a suit, its owner scores as above;
  otherwise loses 2 points.  A player may not play face down right after the previous
  player did."
- ``decks: 2`` (3-4 players): "the pile is reshuffled into a new deck once when the
  deck runs out (decision: every card but the top one)."
- Time: "a Decktet-Uno turn plays the card that scores most (lowest id on ties)."

How the engine plays it:

- One round, phase ``play`` from the deal to the end.  The first player is chosen at
  random: the seat left of a random dealer (``dealer_chosen``), the seed naming none;
  cards are dealt one at a time from there, then one is turned up (``first_card``).
- A turn is one action, ``play`` (any card of the hand) or ``play_face_down``; the
  play scores at once (the ``play`` event's ``points``; the seat's total is its
  ``score``), then the player draws one card while the deck lasts (with ``decks: 2``
  the pile, less its top card, becomes the new deck the first time a draw finds it
  empty: ``reshuffled``), then a face-down card of the previous player is placed and
  scored (``face_down_placed``), then play moves to the next seat that holds a card.
  Hands empty in turn order (every seat holds 3 cards until the deck runs out), so
  nobody is ever in turn with an empty hand.
- A face-down card is set aside (``State.aside``): its owner sees it (the view's
  ``face_down``), the others see only who set it aside; the action that set it aside
  names the card, so the server shows the others that move without its card until the
  game is over.  Decisions: it may be any card of the hand (none of them would
  score); the card is placed at the end of the next player's turn whoever acts for
  that player (the timer too); when no turn follows it (it was the game's last card)
  it is placed on the top card at once, as if the next turn had been played.
- The end: when every hand is empty.  The one round's ``round_ended`` lists the
  totals as its ``points``; ``game_ended`` lists every seat with the top score in
  ``winners`` (``winner``: the first of them in seat order).
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from ..actions import Action, ActionType, register
from ..cards import build_deck
from ..config import OptionSpec, boolean, integer
from ..errors import InvalidOptions
from ..events import CARD, EventType, register as register_event, seat as seat_field
from ..rules import Decision, Family, Module, Rules
from ..state import GAME_OVER, PLAY, State
from ..uno.piles import refill, reveal_hands
from ..uno.rounds import choose_dealer
from ..uno.turn import PLAY as PLAY_ACTION  # the ``play`` action type, UNO's and Decktet-Uno's
from .cards import SUITS

Events = Any  # list[dict] | None

DECK = build_deck("decktet_44")
#: POINTS[top][card]: what playing ``card`` on ``top`` scores (RULES.md's formula)
POINTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(len(t.suits) * len(set(t.suits) & set(c.suits)) for c in DECK.cards) for t in DECK.cards)
#: what a face-down card that shares no suit with the card it is placed on costs its owner
FACE_DOWN_LOSS = 2

FACE_DOWN = register(ActionType(
    "play_face_down", (("card", True),),
    refusal="you may not play a card face down now",
    doc="Decktet-Uno with face_down: set a card aside face down (only when no card of your hand would score, "
        "and not right after the previous player did); it is placed and scored at the end of the next turn"))
PLAYS = tuple(Action(PLAY_ACTION.name, c) for c in range(len(DECK)))
FACE_DOWN_PLAYS = tuple(Action(FACE_DOWN.name, c) for c in range(len(DECK)))
for _kind in (
    EventType("face_down", {"seat": seat_field("who set a card aside face down")},
              "Decktet-Uno: a card was set aside face down (which one: only its owner knows until it is placed)"),
    EventType("face_down_placed", {
        "seat": seat_field("whose face-down card it was"),
        "card": CARD,
        "points": {"type": "integer", "description": "what it scored its owner (negative: it shared no suit)"},
    }, "Decktet-Uno: a face-down card was placed on the pile and scored"),
):
    register_event(_kind)
del _kind


def points(top: int, card: int) -> int:
    """What playing ``card`` on ``top`` scores."""
    return POINTS[top][card]


def may_play_face_down(state: State, rules: Rules, seat: int) -> bool:
    """Whether ``seat`` may set a card aside now: the option is on, no card of its hand
    would score, and the previous player did not just do so."""
    if not rules.opts["face_down"] or state.aside:
        return False
    row = POINTS[state.discard[-1]]
    return not any(row[c] for c in state.hands[seat])


def best_play(state: State, seat: int) -> int:
    """The card of ``seat``'s hand that scores most on the top card, lowest id on ties
    (the timer's play)."""
    row = POINTS[state.discard[-1]]
    return min(state.hands[seat], key=lambda c: (-row[c], c))


# -- a turn --------------------------------------------------------------------------------
def _play(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    card = move[1]
    state.hands[seat].remove(card)
    gained = POINTS[state.discard[-1]][card]
    state.discard.append(card)
    state.scores[seat] += gained
    if ev is not None:
        ev.append({"type": "play", "seat": seat, "card": DECK.dicts[card], "points": gained})
    _end_turn(state, rules, seat, ev)


def _play_face_down(state: State, rules: Rules, seat: int, move: tuple, ev: Events, top: Decision) -> None:
    card = move[1]
    state.hands[seat].remove(card)
    state.aside.append([seat, card])
    if ev is not None:
        ev.append({"type": "face_down", "seat": seat})
    _end_turn(state, rules, seat, ev)


def _end_turn(state: State, rules: Rules, seat: int, ev: Events) -> None:
    """The rest of ``seat``'s turn after its card: the draw, the previous player's
    face-down card placed, then the next seat holding a card, or the end."""
    _draw(state, rules, seat, ev)
    if state.aside and state.aside[0][0] != seat:
        _place(state, ev)
    n = state.seats
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if state.hands[nxt]:
            state.current = nxt
            return
    if state.aside:  # the game's last card was set aside: no turn follows to place it
        _place(state, ev)
    _end_game(state, rules, ev)


def _draw(state: State, rules: Rules, seat: int, ev: Events) -> None:
    if not state.draw_pile and state.refills < rules.opts["decks"] - 1 and refill(state, ev):
        state.refills += 1
    if not state.draw_pile:
        return
    card = state.draw_pile.pop()
    state.hands[seat].append(card)
    if ev is not None:
        ev.append({"type": "draw", "seat": seat, "count": 1, "reason": "draw"})
        ev.append({"type": "cards_drawn", "seat": seat, "cards": [DECK.dicts[card]], "to": [seat]})


def _place(state: State, ev: Events) -> None:
    """The face-down card set aside goes on the pile: its owner scores it, or loses 2."""
    owner, card = state.aside.pop()
    gained = POINTS[state.discard[-1]][card] or -FACE_DOWN_LOSS
    state.discard.append(card)
    state.scores[owner] += gained
    if ev is not None:
        ev.append({"type": "face_down_placed", "seat": owner, "card": DECK.dicts[card], "points": gained})


def _end_game(state: State, rules: Rules, ev: Events) -> None:
    best = max(state.scores)
    winners = [s for s, total in enumerate(state.scores) if total == best]
    state.phase, state.winner, state.winners = GAME_OVER, winners[0], winners
    state.history.append({"round": state.round, "winner": winners[0], "points": list(state.scores)})
    if ev is not None:
        ev.append({"type": "round_ended", "round": state.round, "winner": winners[0], "blocked": False,
                   "hand_points": [0] * state.seats, "points": list(state.scores), "scores": list(state.scores)})
        ev.append({"type": "game_ended", "winner": winners[0], "scores": list(state.scores), "winners": winners})


class DecktetTurn(Decision):
    """A Decktet-Uno turn: play any card of the hand (or, with ``face_down``, set one
    aside face down when none would score)."""

    name = "turn"
    shown = False
    on_stack = False
    handlers = {"play": _play, "play_face_down": _play_face_down}

    def __init__(self) -> None:
        self.seat = -1  # never read: the owner of the turn is the seat in turn

    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        hand = state.hands[seat]
        out.extend(PLAYS[c] for c in hand)
        if may_play_face_down(state, rules, seat):
            out.extend(FACE_DOWN_PLAYS[c] for c in hand)

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        if move[0] == "play_face_down":
            if not rules.opts["face_down"]:
                return "cards are played face down only with the face_down option"
            if state.aside:
                return "the previous player played face down: you may not do so now"
            return "a card of your hand would score: play one face up"
        if move[0] == "play":
            return "a Decktet-Uno play names only its card"
        return None

    def public(self, state: State) -> dict | None:
        return None

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        _play(state, rules, seat, PLAYS[best_play(state, seat)], ev, self)


# -- the family ----------------------------------------------------------------------------
class DecktetRules(Module):
    """Decktet-Uno's options: ``face_down`` and ``decks`` (seed 000's variants)."""

    name = "decktet"
    options = (
        OptionSpec("face_down", False, boolean,
                   "Decktet-Uno: a player none of whose cards would score may play one face down; it scores (or "
                   "costs 2) when placed on the next player's card"),
        OptionSpec("decks", 1, integer(1, 2),
                   "Decktet-Uno, 3-4 players: 2 reshuffles the pile (all but its top card) into a new deck once"),
    )

    def install(self, rules: Rules) -> None:
        pass  # read by the turn

    def validate_seats(self, opts: dict[str, Any], seats: int) -> None:
        if opts["decks"] == 2 and seats < 3:
            raise InvalidOptions("decks", "decks: 2 is for 3 or 4 players")


class DecktetFamily(Family):
    """Decktet-Uno (see the module docstring)."""

    name = "decktet"
    title = "Decktet-Uno"
    hand_size = 3
    colors = SUITS
    uno_call = False
    no_color = "a Decktet card names no colour: a play takes no 'color'"
    modules: ClassVar[Sequence[Module]] = (DecktetRules(),)

    def install(self, rules: Rules) -> None:
        rules.turn = DecktetTurn()
        rules.decision_types.append(DecktetTurn)
        rules.several_winners = True  # equal top scores share the win

    def start_game(self, state: State, rules: Rules, ev: Events) -> None:
        n = state.seats
        choose_dealer(state, ev)
        state.round = 1
        cards = list(range(len(rules.deck)))
        state.shuffle(cards)
        for k in range(self.hand_size * n):  # one at a time from the dealer's left
            state.hands[(state.dealer + 1 + k) % n].append(cards.pop())
        state.discard = [cards.pop()]
        state.draw_pile = cards
        state.current = (state.dealer + 1) % n
        state.phase = PLAY
        if ev is not None:
            ev.append({"type": "round_started", "round": 1, "dealer": state.dealer})
        reveal_hands(state, rules, ev)
        if ev is not None:
            ev.append({"type": "first_card", "card": rules.deck.dicts[state.discard[-1]]})

    def playable(self, deck: Any, color: str | None, rank: str) -> frozenset[int]:
        return frozenset(range(len(deck)))  # any card may be played

    def table_view(self, state: State, seat: int | None) -> dict:
        """``face_down``: the card set aside face down, if any: its owner's seat, and the
        card for its owner only (null for everyone else)."""
        if not state.aside:
            return {"face_down": None}
        owner, card = state.aside[0]
        return {"face_down": {"seat": owner, "card": DECK.card_dict(card) if seat == owner else None}}
