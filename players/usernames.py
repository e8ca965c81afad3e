"""What a username may hold, and when two usernames look the same.

* ``UsernameValidator``: Django's (letters, digits and ``@ . + - _``), and no invisible
  character: nothing that Unicode makes a default-ignorable code point (zero-width
  spaces and joiners, bidi controls, variation selectors, the Hangul fillers U+115F,
  U+1160, U+3164, U+FFA0 ...), nor any control, format, surrogate, private-use or
  unassigned character (default-ignorable from ICU's Unicode data, general categories
  from Python's ``unicodedata``).  Spaces are refused by Django's pattern, as before.
* ``username_skeleton``: Unicode's UTS #39 skeleton, computed by ICU (its
  ``SpoofChecker``, from the confusables data of the Unicode Consortium), made to ignore
  case: two names with one skeleton can be mistaken for each other (Latin ``al493891``
  and ``аl493891`` with a Cyrillic ``а``; ``paypal`` and ``PAYPAL`` with a Cyrillic
  ``А``; ``B0B`` and ``bob``).  ``Player.username_skeleton`` stores it, unique.

ICU comes from the ``pyicu-wheels`` distribution (PyICU built with ICU inside the
wheel): no system library or compiler is needed to install it.
"""

from __future__ import annotations

import unicodedata

import icu
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

#: General categories refused in a name: controls, format characters, surrogates,
#: private use and unassigned (to this Python's Unicode version).
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

INVISIBLE_MESSAGE = (
    "Usernames may not contain invisible, formatting or control characters (found {found})."
)

# SpoofChecker's const methods (getSkeleton) are thread-safe once it is configured.
_SPOOF_CHECKER = icu.SpoofChecker()
_DEFAULT_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT


def is_invisible(char: str) -> bool:
    """Whether ``char`` shows nothing, or controls how others show, rather than being one."""
    return icu.Char.hasBinaryProperty(char, _DEFAULT_IGNORABLE) or unicodedata.category(char) in REFUSED_CATEGORIES


def invisible_characters(username: str) -> list[str]:
    """The invisible characters of ``username`` (see ``is_invisible``), each once, in order."""
    return list(dict.fromkeys(char for char in username if is_invisible(char)))


@deconstructible
class UsernameValidator(UnicodeUsernameValidator):
    """Django's ``UnicodeUsernameValidator`` (letters, digits and ``@ . + - _``), after a
    check for invisible characters that names them: the Hangul fillers are letters to
    Django's pattern, and a zero-width space deserves a better message than "invalid"."""

    def __call__(self, value) -> None:
        if isinstance(value, str):
            found = invisible_characters(value)
            if found:
                codes = ", ".join(f"U+{ord(char):04X}" for char in found[:5])
                raise ValidationError(INVISIBLE_MESSAGE.format(found=codes), code="invisible")
        super().__call__(value)


def skeleton(text: str) -> str:
    """UTS #39 skeleton of ``text`` (ICU: NFD, default-ignorables removed, each character
    replaced by its prototype from confusables.txt, NFD again)."""
    return _SPOOF_CHECKER.getSkeleton(0, text)  # the type argument is ignored since ICU 58


def username_skeleton(username: str) -> str:
    """The form in which usernames must differ: the UTS #39 skeleton of the name as it
    is shown (NFKC), case-folded and skeletonised again, since usernames are unique
    ignoring case (``B0B`` looks like ``BOB``, which is ``bob``'s name in capitals).

    Case is folded after the first skeleton, not before, so that a capital letter is
    compared as it looks: ``Ivan`` (capital i) and ``lvan`` (small L) collide."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", username)).casefold())
