"""Option ``stacking``: answering a +2/+4 with another instead of drawing.

The next player then draws the sum; a player who draws resets it (seed 001).  Which
card may answer which is one table per mode; the :class:`~.turn.Penalty` decision
lists and plays the answers.
"""

from __future__ import annotations

from ..config import OptionSpec, choice
from ..rules import Module, Rules

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


class Stacking(Module):
    name = "stacking"
    options = (OptionSpec("stacking", "off", choice(*TABLES), "penalty stacking"),)

    def install(self, rules: Rules) -> None:
        rules.stack_on = dict(TABLES[rules.opts["stacking"]])
