"""The rating model: OpenSkill's Plackett-Luce (the ``openskill`` package; Weng and Lin,
"A Bayesian Approximation Method for Online Ranking", 2011), with its defaults (a new
rating is mu 25, sigma 25/3; ``tau`` 25/300 keeps a rating able to move).  Nothing here
computes a rating by hand: :func:`rate` hands the factions and their places to
``openskill`` and reads its answer."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
#: a new rating's (mu, sigma)
INITIAL = (MODEL.mu, MODEL.sigma)
#: the conservative estimate: mu - Z * sigma
Z = 3.0


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate the leaderboard ranks by (``openskill``'s ``ordinal``)."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal(z=Z)


def rate(factions: Sequence[Sequence[tuple[float, float]]], places: Sequence[int]) -> list[list[tuple[float, float]]]:
    """Each member's new (mu, sigma): ``factions`` the (mu, sigma) of each faction's
    members (a team, or one seat), ``places`` each faction's place (0: first; equal
    places tie)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in members] for members in factions]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [[(r.mu, r.sigma) for r in team] for team in rated]


def update(prior: Mapping[Hashable, tuple[float, float]], seat_keys: Sequence[Hashable],
           factions: Sequence[Sequence[int]], places: Sequence[int]) -> dict[Hashable, tuple[float, float]]:
    """The new (mu, sigma) of each rating of a finished game: ``prior`` each rating's by
    its key, ``seat_keys`` each seat's rating key, ``factions`` the seats rated as one
    (each team, or each seat), ``places`` each seat's place (a faction's is its best
    seat's).  A rating that holds several seats (a bot level) gets the sum of what each
    seat's result moved its mean, and its sigma shrinks as each seat's did."""
    posterior = rate([[prior[seat_keys[x]] for x in f] for f in factions], [min(places[x] for x in f) for f in factions])
    moved: dict[Hashable, list[tuple[float, float]]] = {}
    for faction, after in zip(factions, posterior):
        for x, rating in zip(faction, after):
            moved.setdefault(seat_keys[x], []).append(rating)
    out = {}
    for key, results in moved.items():
        mu0, sigma0 = prior[key]
        out[key] = (mu0 + sum(mu - mu0 for mu, _ in results), sigma0 * math.prod(sigma / sigma0 for _, sigma in results))
    return out


def win_probabilities(ratings: Sequence[tuple[float, float]]) -> list[float]:
    """Each seat's chance of winning a game among ``ratings`` (one seat each), as
    ``openskill`` predicts it (the strength check's log-loss)."""
    return list(MODEL.predict_win([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]))
