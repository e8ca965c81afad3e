"""The sampled worlds of a determinized search (``hard``, both families)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any, Callable

from games.engine import State, observe

Sampler = Callable[[State, int, random.Random], Any]  # -> State or (State, weight)


def sampled_worlds(state: State, seat: int, rng: random.Random, sampler: Sampler | None, budget_ms: float,
                   max_samples: int | None, cap: int) -> Iterator[tuple[State, float]]:
    """Worlds ``seat`` cannot tell from ``state``, each with its weight, one at a time:
    ``sampler(state, seat, rng)`` deals each (default :func:`observe`: the hidden cards
    dealt uniformly at random); a sampler that knows more may return ``(world,
    weight)``, the weight (>= 0) being how likely that world is given what was seen
    (the search averages with it: importance sampling).  It stops after
    ``max_samples`` worlds when given (a test's: the same worlds on any machine), else
    once ``budget_ms`` (from the first world) is spent, after at least two worlds, or
    after ``cap`` worlds."""
    deal = sampler or observe
    deadline = time.perf_counter() + budget_ms / 1000.0
    n = 0
    while n < max_samples if max_samples is not None else n < cap and (n < 2 or time.perf_counter() < deadline):
        world = deal(state, seat, rng)
        n += 1
        yield world if isinstance(world, tuple) else (world, 1.0)
