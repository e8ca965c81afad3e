"""Cards and decks.

A card is identified by an integer ``id`` that is stable within a deck (and so
within every round played with it).  The engine keeps hands and piles as lists of
ids; the lookup tables of a :class:`Deck` give each id its face and value.
Other decks (the 112-card deck, play-uno.com's 120, the Decktet) are further
builders registered in ``DECKS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
NUMBER_RANKS = tuple(str(i) for i in range(10))
ACTION_RANKS = ("skip", "reverse", "draw_two")
WILD_RANKS = ("wild", "wild_draw_four")

#: Points a card left in hand is worth at the end of a round.
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
    color: str | None  # None for colourless cards (wilds)
    rank: str

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def points(self) -> int:
        return POINTS[self.rank]

    def to_dict(self) -> dict:
        return {"id": self.id, "color": self.color, "rank": self.rank}


class Deck:
    """An immutable deck with per-id lookup tables (hot paths index lists, not objects)."""

    def __init__(self, name: str, cards: list[Card]):
        assert [c.id for c in cards] == list(range(len(cards))), "card ids must be 0..n-1"
        self.name = name
        self.cards: tuple[Card, ...] = tuple(cards)
        self.color: tuple[str | None, ...] = tuple(c.color for c in cards)
        self.rank: tuple[str, ...] = tuple(c.rank for c in cards)
        self.points: tuple[int, ...] = tuple(c.points for c in cards)
        self.dicts: tuple[dict, ...] = tuple(c.to_dict() for c in cards)
        self._playable: dict[tuple[str | None, str], frozenset[int]] = {}

    def __len__(self) -> int:
        return len(self.cards)

    def playable_on(self, color: str | None, rank: str) -> frozenset[int]:
        """The cards that may be played when ``color`` is in force and the top card
        has ``rank``: wilds, that colour, that rank (a memoised table: the test runs
        for every card of every listing of legal actions)."""
        key = (color, rank)
        cards = self._playable.get(key)
        if cards is None:
            cards = self._playable[key] = frozenset(
                c.id for c in self.cards if c.color is None or c.color == color or c.rank == rank
            )
        return cards

    def card_dict(self, card_id: int) -> dict:
        return dict(self.dicts[card_id])

    def describe(self) -> dict:
        counts: dict[str, int] = {}
        for c in self.cards:
            counts[c.rank] = counts.get(c.rank, 0) + 1
        return {"name": self.name, "size": len(self.cards), "ranks": counts}


def standard_108() -> Deck:
    cards: list[Card] = []

    def add(color: str | None, rank: str) -> None:
        cards.append(Card(len(cards), color, rank))

    for color in COLORS:
        add(color, "0")
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            add(color, rank)
            add(color, rank)
    for rank in WILD_RANKS:
        for _ in range(4):
            add(None, rank)
    return Deck("standard_108", cards)


DECKS: dict[str, Callable[[], Deck]] = {"standard_108": standard_108}
_cache: dict[str, Deck] = {}


def get_deck(name: str) -> Deck:
    deck = _cache.get(name)
    if deck is None:
        deck = _cache[name] = DECKS[name]()
    return deck
