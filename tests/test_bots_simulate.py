"""manage.py simulate: bot-only games in process, win rates per level."""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.management.commands.simulate import play_game

RATE = re.compile(r"^(\S+)\s+(\d+)\s+([\d.]+)%$", re.M)


def simulate(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("simulate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def rates(out: str) -> dict[str, tuple[int, float]]:
    return {m[1]: (int(m[2]), float(m[3])) for m in RATE.finditer(out)}


def test_win_rates_per_level_sum_to_100_percent():
    out, err = simulate("--ruleset", "standard", "--bots", "hard,normal,easy,random", "--games", "8",
                        "--options", '{"rounds": 1}', "--seed", "42", "--budget-ms", "2")
    found = rates(out)
    assert set(found) == {"hard", "normal", "easy", "random"}
    assert sum(w for w, _ in found.values()) == 8
    assert sum(r for _, r in found.values()) == pytest.approx(100.0, abs=0.2)
    assert re.search(r"[\d.]+ games/s", out)
    assert "seed 42" in out
    # the progress bar, on stderr: "\r[#####     ] 4/8" up to the full bar
    assert "\r[" in err and err.rstrip().endswith("] 8/8")
    assert "#" * 30 in err


def test_the_same_seed_gives_the_same_games_without_the_hard_bot():
    args = ("--bots", "normal,easy,random", "--games", "6", "--options", '{"rounds": 1}', "--seed", "7")
    first, second = simulate(*args)[0], simulate(*args)[0]
    assert rates(first) == rates(second)
    assert set(rates(first)) == {"normal", "easy", "random"}


def test_seats_are_rotated_between_games():
    # Two entries of one level are told apart; with 2 seats and an even number of
    # games each entry plays first as often as second.
    out, _ = simulate("--bots", "normal,normal", "--games", "4", "--options", '{"rounds": 1}', "--seed", "1",
                      "--no-progress")
    found = rates(out)
    assert set(found) == {"normal#1", "normal#2"}
    assert sum(w for w, _ in found.values()) == 4


def test_a_bot_game_ends_with_a_winner():
    winners, actions, refused = play_game("standard", {"rounds": 1}, ["normal", "random", "easy"], "s1",
                                          random.Random(1), budget_ms=None)
    assert len(winners) == 1 and winners[0] in (0, 1, 2) and actions > 0 and refused == 0


def test_a_decktet_game_may_end_in_a_shared_win():
    """Decktet-Uno: equal top scores share the win (every winner is listed)."""
    shared = 0
    for g in range(60):
        winners, actions, refused = play_game("decktet_uno", {}, ["random", "random"], f"d{g}", random.Random(g),
                                              budget_ms=None)
        assert actions == 43 and refused == 0 and winners
        shared += len(winners) == 2
    assert shared  # ties do happen


@pytest.mark.parametrize("args, message", [
    (("--bots", "normal,genius"), "unknown bot level"),
    (("--bots", "normal"), "at least two"),
    (("--options", "{nope"), "not JSON"),
    (("--options", '{"stacking": "sideways"}'), "cannot play"),
    (("--ruleset", "nonsense"), "cannot play"),
    (("--games", "0"), "at least 1"),
])
def test_bad_arguments_are_refused(args, message):
    with pytest.raises(CommandError, match=message):
        simulate(*args)  # refused before any game is played


def test_every_preset_in_turn_with_ruleset_all():
    """``--ruleset all``: every preset of the catalogue, each with as many seats as its
    range allows (the levels cut short or repeated), a progress bar and a table each."""
    from games.engine import PRESETS

    out, err = simulate("--ruleset", "all", "--bots", "normal,easy,random", "--games", "2",
                        "--options", '{"rounds": 1}', "--seed", "3")
    tables = re.findall(r"^2 games of (\S+) .*?, (\d+) seats rotated, seed 3$", out, re.M)
    assert [name for name, _ in tables] + re.findall(r"^(\S+): skipped", out, re.M) == list(PRESETS)
    assert tables, out
    for name, seats in tables:
        p = PRESETS[name]
        assert p.min_seats <= int(seats) <= p.max_seats
        assert f"\r{name} [" in err and "] 2/2" in err  # its own progress bar
    found = RATE.findall(out)
    # every table's wins add up to its games (a row per seat, labels repeated per table)
    assert sum(int(w) for _, w, _ in found) == 2 * len(tables)
    for name, seats in tables:
        if PRESETS[name].max_seats == 2:  # a two-seat preset plays the first two levels only
            block = out.split(f"2 games of {name} ", 1)[1].split("games/s", 1)[0]
            assert "random" not in block and "normal" in block and "easy" in block


def test_ruleset_all_skips_a_preset_that_refuses_the_options():
    """A preset whose own rules refuse ``--options`` is skipped, said so; the rest play."""
    from games.management.commands.simulate import fit_levels

    assert fit_levels("standard", {"rounds": 1}, ["normal"] * 12) == (["normal"] * 10, "")
    levels, why = fit_levels("standard", {"stacking": "sideways"}, ["normal", "easy"])
    assert levels is None and "stacking" in why
    with pytest.raises(CommandError, match="cannot play any preset"):
        simulate("--ruleset", "all", "--bots", "normal,easy", "--games", "1", "--options", '{"stacking": "sideways"}')
