"""The Decktet without the Excuse: 44 cards of six suits (RULES.md ``decktet_uno``).

Every card has one to three suits: the six Aces and six Crowns one, the 24 numerals
2-9 two, the four Pawns and four Courts three.  Ids follow RULES.md's table: the Aces
(0-5, in suit order), the numerals by rank (6-29), the Pawns (30-33), the Courts
(34-37), the Crowns (38-43).  A card's JSON is ``{"id", "name", "rank", "suits"}``
(``Card.to_dict``); ranks are ``"ace"``, ``"2"`` to ``"9"``, ``"pawn"``, ``"court"``,
``"crown"``; suits are lower-case names.
"""

from __future__ import annotations

from ..cards import DECKS, Card

SUITS: tuple[str, ...] = ("moons", "suns", "waves", "leaves", "wyrms", "knots")

#: rank -> its cards as (name, suits), in RULES.md's order
TABLE: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("2", (("Author", "moons knots"), ("Desert", "suns wyrms"), ("Origin", "waves leaves"))),
    ("3", (("Journey", "moons waves"), ("Painter", "suns knots"), ("Savage", "leaves wyrms"))),
    ("4", (("Mountain", "moons suns"), ("Sailor", "waves leaves"), ("Battle", "wyrms knots"))),
    ("5", (("Forest", "moons leaves"), ("Discovery", "suns waves"), ("Soldier", "wyrms knots"))),
    ("6", (("Lunatic", "moons waves"), ("Penitent", "suns wyrms"), ("Market", "leaves knots"))),
    ("7", (("Chance Meeting", "moons leaves"), ("Castle", "suns knots"), ("Cave", "waves wyrms"))),
    ("8", (("Diplomat", "moons suns"), ("Mill", "waves leaves"), ("Betrayal", "wyrms knots"))),
    ("9", (("Pact", "moons suns"), ("Darkness", "waves wyrms"), ("Merchant", "leaves knots"))),
    ("pawn", (("Harvest", "moons suns leaves"), ("Watchman", "moons wyrms knots"),
              ("Light Keeper", "suns waves knots"), ("Borderland", "waves leaves wyrms"))),
    ("court", (("Consul", "moons waves knots"), ("Rite", "moons leaves wyrms"), ("Island", "suns waves wyrms"),
               ("Window", "suns leaves knots"))),
    ("crown", (("Huntress", "moons"), ("Bard", "suns"), ("Sea", "waves"), ("End", "leaves"), ("Calamity", "wyrms"),
               ("Windfall", "knots"))),
)


def _kind(rank: str) -> str:
    return rank if rank in ("ace", "pawn", "court", "crown") else "numeral"


def decktet_44(start: int = 0) -> list[Card]:
    """The 44 cards: the Aces (one per suit), then RULES.md's table row by row."""
    faces = [("ace", f"Ace of {suit.capitalize()}", (suit,)) for suit in SUITS]
    faces += [(rank, name, tuple(suits.split())) for rank, cards in TABLE for name, suits in cards]
    return [Card(start + i, _kind(rank), rank, (), suits, 0, name) for i, (rank, name, suits) in enumerate(faces)]


DECKS["decktet_44"] = decktet_44
