"""Option ``stacking``: answering a +2/+4 with another instead of drawing.

The next player then draws the sum; a player who draws resets it.
"""

from __future__ import annotations

from . import Rules

TABLES: dict[str, dict[str, frozenset[str]]] = {
    "off": {},
    "same": {"draw_two": frozenset({"draw_two"}), "wild_draw_four": frozenset({"wild_draw_four"})},
    "plus4_on_plus2": {
        "draw_two": frozenset({"draw_two", "wild_draw_four"}),
        "wild_draw_four": frozenset({"wild_draw_four"}),
    },
    "any": {
        "draw_two": frozenset({"draw_two", "wild_draw_four"}),
        "wild_draw_four": frozenset({"draw_two", "wild_draw_four"}),
    },
}


def install(rules: Rules) -> None:
    rules.stack_on = dict(TABLES[rules.opt("stacking")])
