"""Decktet-Uno (seed 000, preset ``decktet_uno``): a family of its own on the same
engine (:mod:`.family`), with its 44-card deck (:mod:`.cards`)."""
