"""Cleaning a message's text: what a message may show.

:func:`clean` takes the text as sent and returns it as stored and shown:

1. Unicode NFC (one form for what looks the same: ``e`` + combining acute is ``é``);
2. removed: control characters (``Cc``, line breaks and tabs included: they become
   spaces), format characters (``Cf``: zero-width spaces and joiners, bidirectional
   embeddings, overrides and isolates, soft hyphens, the BOM, tag characters), surrogates
   and private-use characters, and the other invisible characters that fill a line with
   nothing (Unicode's default-ignorable code points that are not ``Cf``: the combining
   grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation
   selectors; and the blank Braille pattern);
3. every run of white space (any ``Zs``, ``Zl``, ``Zp``, and the control characters of
   step 2) becomes one ordinary space, and the ends are trimmed.

Emoji variation selectors (U+FE0E, U+FE0F) are kept; the zero-width joiner that ties some
emoji sequences is removed (they show as their parts).  Length is counted afterwards, in
code points (``UNO_CHAT_MAX_LENGTH``).
"""

from __future__ import annotations

import unicodedata

#: invisible characters that are not format characters (default-ignorable code points,
#: DerivedCoreProperties.txt, minus Cf and the emoji variation selectors; and U+2800)
INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0]
    + list(range(0xFE00, 0xFE0E))  # variation selectors 1-14 (15 and 16 pick text or emoji: kept)
    + list(range(0xE0100, 0xE01F0))  # variation selectors supplement
)
#: categories removed outright
REMOVED = frozenset(["Cf", "Cs", "Co"])
#: categories that are white space (Cc: line breaks and tabs, and other controls)
SPACE = frozenset(["Zs", "Zl", "Zp", "Cc"])


def clean(text: str) -> str:
    """``text`` normalised, without invisible characters, its white space collapsed."""
    out: list[str] = []
    space = False
    for ch in unicodedata.normalize("NFC", text):
        category = unicodedata.category(ch)
        if category in SPACE or ch.isspace():
            space = True
            continue
        if category in REMOVED or ord(ch) in INVISIBLE:
            continue
        if space and out:
            out.append(" ")
        space = False
        out.append(ch)
    # (a removed character between two that compose, e.g. a zero-width space before a
    # combining accent: normalised again)
    return unicodedata.normalize("NFC", "".join(out))
