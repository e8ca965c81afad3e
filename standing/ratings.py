"""The rating model: OpenSkill's Plackett-Luce (the ``openskill`` package; Weng and Lin,
"A Bayesian Approximation Method for Online Ranking", 2011), with its defaults (a new
rating is mu 25, sigma 25/3; ``tau`` 25/300 keeps a rating able to move).  Nothing here
computes a rating by hand: :func:`rate` hands the factions and their places to
``openskill`` and reads its answer."""

from __future__ import annotations

from collections.abc import Sequence

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


def win_probabilities(ratings: Sequence[tuple[float, float]]) -> list[float]:
    """Each seat's chance of winning a game among ``ratings`` (one seat each), as
    ``openskill`` predicts it (the strength check's log-loss)."""
    return list(MODEL.predict_win([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]))
