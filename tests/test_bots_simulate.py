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
    winner, actions, refused = play_game("standard", {"rounds": 1}, ["normal", "random", "easy"], "s1",
                                         random.Random(1), budget_ms=None)
    assert winner in (0, 1, 2) and actions > 0 and refused == 0


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
