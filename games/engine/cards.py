"""Cards and decks.

A card is identified by an integer ``id``, stable within a deck (and so within every
round played with it): hands and piles are lists of ids, and a :class:`Deck`'s lookup
tables (tuples indexed by id) give each id its face and value.  A card has a ``kind``
(``number``, ``action``, ``wild``, ... : what family of effect it has), a ``rank`` (what
the matching rule and the effects look at: ``"7"``, ``"skip"``, ``"wild_draw_four"``),
its ``colors`` (UNO: one colour, or none for a wild) or ``suits`` (Decktet: one to
three), its ``points`` and a ``name``.

A deck is built by a family from the preset's base deck plus the cards that options add
(:class:`DeckPart`): see :func:`build_deck`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
NUMBER_RANKS = tuple(str(i) for i in range(10))
ACTION_RANKS = ("skip", "reverse", "draw_two")
WILD_RANKS = ("wild", "wild_draw_four")

#: Points a standard card left in hand is worth at the end of a round.
POINTS: dict[str, int] = {
    **{r: int(r) for r in NUMBER_RANKS},
    "skip": 20,
    "reverse": 20,
    "draw_two": 20,
    "wild": 50,
    "wild_draw_four": 50,
}

#: How many cards a penalty card makes its victim draw.
DRAW_VALUE: dict[str, int] = {"draw_two": 2, "wild_draw_four": 4}


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    kind: str
    rank: str
    colors: tuple[str, ...] = ()
    suits: tuple[str, ...] = ()
    points: int = 0
    name: str = ""

    @property
    def color(self) -> str | None:
        """The card's one colour (UNO), None for a colourless card (a wild)."""
        return self.colors[0] if self.colors else None

    @property
    def is_wild(self) -> bool:
        return not self.colors and not self.suits

    def to_dict(self) -> dict:
        """The card's public face, as clients see it (API.md "Cards")."""
        if self.suits:
            return {"id": self.id, "name": self.name, "rank": self.rank, "suits": list(self.suits)}
        return {"id": self.id, "color": self.color, "rank": self.rank}


def uno_card(card_id: int, color: str | None, rank: str, points: int | None = None) -> Card:
    """A UNO card: one colour or none (wild); kind from its rank; standard points."""
    kind = "number" if rank in NUMBER_RANKS else "wild" if color is None else "action"
    name = rank if color is None else f"{color} {rank}"
    return Card(card_id, kind, rank, (color,) if color else (), (), POINTS[rank] if points is None else points, name)


class Deck:
    """An immutable deck with per-id lookup tables (hot paths index tuples, not objects)."""

    def __init__(self, name: str, cards: Iterable[Card]):
        cards = tuple(cards)
        assert [c.id for c in cards] == list(range(len(cards))), "card ids must be 0..n-1"
        self.name = name
        self.cards: tuple[Card, ...] = cards
        self.color: tuple[str | None, ...] = tuple(c.color for c in cards)
        self.rank: tuple[str, ...] = tuple(c.rank for c in cards)
        self.points: tuple[int, ...] = tuple(c.points for c in cards)
        self.dicts: tuple[dict, ...] = tuple(c.to_dict() for c in cards)

    def __len__(self) -> int:
        return len(self.cards)

    def card_dict(self, card_id: int) -> dict:
        return dict(self.dicts[card_id])

    def describe(self) -> dict:
        counts: dict[str, int] = {}
        for c in self.cards:
            counts[c.rank] = counts.get(c.rank, 0) + 1
        return {"name": self.name, "size": len(self.cards), "ranks": counts}


# -- deck parts ----------------------------------------------------------------------------
#: A deck part adds cards: called with the next free id, returns the new cards in order.
DeckPart = Callable[[int], list[Card]]


def standard_108(start: int = 0) -> list[Card]:
    """RULES.md "The standard game": per colour one 0, two each of 1-9, Skip, Reverse
    and Draw Two; then 4 Wild and 4 Wild Draw Four."""
    cards: list[Card] = []

    def add(color: str | None, rank: str) -> None:
        cards.append(uno_card(start + len(cards), color, rank))

    for color in COLORS:
        add(color, "0")
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            add(color, rank)
            add(color, rank)
    for rank in WILD_RANKS:
        for _ in range(4):
            add(None, rank)
    return cards


#: the Mattel 112-card deck's wilds (RULES.md "Extra cards"), 40 points each: the 2018
#: deck's Wild Shuffle Hands, the 2015 deck's Wild Swap Hands (option ``swap_hands_card``)
#: in its place, and three Wild Customizable (played as a Wild)
SHUFFLE_HANDS, SWAP_HANDS, CUSTOMIZABLE = "wild_shuffle_hands", "wild_swap_hands", "wild_customizable"
MATTEL_WILD_POINTS = 40


def _standard_112(hand_wild: str) -> DeckPart:
    def build(start: int = 0) -> list[Card]:
        cards = standard_108(start)
        for rank in (hand_wild, CUSTOMIZABLE, CUSTOMIZABLE, CUSTOMIZABLE):
            cards.append(uno_card(start + len(cards), None, rank, points=MATTEL_WILD_POINTS))
        return cards

    build.__doc__ = f"The 108 cards, then 1 {hand_wild} and 3 {CUSTOMIZABLE} (ids 108-111)."
    return build


standard_112 = _standard_112(SHUFFLE_HANDS)  # Mattel 2018: preset ``standard_112``
standard_112_swap = _standard_112(SWAP_HANDS)  # Mattel 2015: ``standard_112`` with ``swap_hands_card``

#: base decks by name (a preset names one)
DECKS: dict[str, DeckPart] = {"standard_108": standard_108, "standard_112": standard_112,
                              "standard_112_swap": standard_112_swap}
_cache: dict[tuple[str, tuple[str, ...]], Deck] = {}
#: extra parts by name (an option names the ones it adds; see ``Rules.deck_parts``)
PARTS: dict[str, DeckPart] = {}


def build_deck(base: str, parts: tuple[str, ...] = ()) -> Deck:
    """The deck of ``base`` plus ``parts`` (names in ``PARTS``), ids in that order;
    built once per combination.  The deck of a preset alone keeps its base name."""
    key = (base, parts)
    deck = _cache.get(key)
    if deck is None:
        cards = DECKS[base](0)
        for part in parts:
            cards += PARTS[part](len(cards))
        deck = _cache[key] = Deck("+".join((base,) + parts), cards)
    return deck


def get_deck(name: str) -> Deck:
    """A base deck by name (``standard_108``)."""
    return build_deck(name)
