"""The ratings' strength check (bench/ratings_strength.py, issue 27) on samples small
enough for the suite: the bots' real games, rated through standing.ratings as the
server rates them.  The full check (3,000 games, hard included) is in
docs/contributors/benchmarks.md; here the order the board can honestly find in a few
seconds is asserted, and that the ratings predict held-out winners better than chance."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path

import pytest

from games import engine
from games.management.commands.simulate import play_state

PATH = Path(__file__).resolve().parents[1] / "bench" / "ratings_strength.py"


def _load():
    spec = importlib.util.spec_from_file_location("ratings_strength", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses (and the workers' pickles) look it up by name
    spec.loader.exec_module(module)
    return module


rs = sys.modules.get("ratings_strength") or _load()
NO_HARD = ("random", "easy", "normal")


@pytest.fixture(scope="module")
def three_levels():
    """1,500 one-round games of random, easy and normal (no hard: seconds, not an hour)."""
    return rs.run(1500, "suite", levels=NO_HARD, jobs=1)


def test_the_board_ranks_normal_above_easy_above_random(three_levels):
    r = three_levels
    assert r.abandoned == 0
    assert r.ranked() == ["normal", "easy", "random"], {k: (v.mu, v.sigma) for k, v in r.board.items()}
    # and far apart at the bottom: easy's mean above random's by more than both sigmas
    normal, easy, random_ = (r.board[lvl] for lvl in ("normal", "easy", "random"))
    assert easy.mu - random_.mu > easy.sigma + random_.sigma


def test_the_ratings_predict_held_out_winners_better_than_chance(three_levels):
    r = three_levels
    assert r.held_out == 300  # the last 20%
    assert r.log_loss < r.uniform_log_loss
    # the uniform figure is the mean ln(seats) of those games: between ln 2 and ln 4
    assert 0.69 < r.uniform_log_loss < 1.39
    assert r.favourite_won / r.held_out > 1 / 2  # 2-4 seats: chance is at most 1/2


def test_each_level_has_one_rating_counted_once_per_game_it_sat_in(three_levels):
    r = three_levels
    lineups = [rs.lineup("suite", g, list(NO_HARD), 2, 4) for g in range(1500)]
    assert {len(seats) for seats in lineups} == {2, 3, 4}
    assert any(len(set(seats)) < len(seats) for seats in lineups)  # a level sitting twice
    for level in NO_HARD:
        assert r.board[level].games == sum(level in seats for seats in lineups)
    assert sum(r.seat_counts.values()) == 1500


def test_a_game_is_rated_from_the_engines_standings():
    levels = ["normal", "easy", "normal"]
    game = rs.play((5, "suite", levels, "standard", {"rounds": 1}, None, None))
    state, _, _ = play_state("standard", {"rounds": 1}, levels, "suite:5", random.Random("suite:5:bots"), None)
    assert state.status == engine.FINISHED and game.winners == state.winners
    # one round: the seat that went out first, then the fewest points left in hand
    assert game.places == engine.standings(state)
    assert game.places[game.winners[0]] == 0 and sorted(game.places)[1:] != [1, 1]  # a full order, here
    assert game.factions == [[0], [1], [2]]
    assert game.actions > 0


def test_hard_plays_reproducibly_whatever_the_number_of_processes():
    """With a fixed number of worlds per decision ``hard`` chooses the same at any
    load: one process and two give the same board, to the last digit."""
    one = rs.run(40, "procs", hard_samples=6, jobs=1)
    two = rs.run(40, "procs", hard_samples=6, jobs=2)
    assert "hard" in one.board and one.board["hard"].games > 0
    assert {k: (v.mu, v.sigma, v.games, v.wins) for k, v in one.board.items()} == \
        {k: (v.mu, v.sigma, v.games, v.wins) for k, v in two.board.items()}
    assert (one.log_loss, one.favourite_won) == (two.log_loss, two.favourite_won)


def test_the_command_prints_the_board_the_order_and_both_log_losses(capsys):
    rs.main(["--games", "300", "--levels", "random,easy,normal", "--seed", "suite", "--jobs", "1", "--no-progress"])
    out = capsys.readouterr().out
    result = rs.run(300, "suite", levels=NO_HARD, jobs=1)
    rows = re.findall(r"^\s+(\d)\s+(\w+)\s+([\d.-]+)\s+([\d.]+)\s+([\d.-]+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert [row[1] for row in rows] == result.ranked()
    for _, level, mu, sigma, ordinal, games, _ in rows:
        r = result.board[level]
        assert (float(mu), float(sigma), float(ordinal), int(games)) == \
            (round(r.mu, 3), round(r.sigma, 3), round(r.ordinal, 3), r.games)
    verdict = "yes" if result.ranked() == ["normal", "easy", "random"] else "NO"
    assert f"expected normal > easy > random: {verdict}" in out
    assert f"ratings {result.log_loss:.4f}, uniform {result.uniform_log_loss:.4f}" in out
    assert "300 games of standard {'rounds': 1}, 2-4 seats" in out and "hard: not playing" in out


def test_saved_games_rate_again_to_the_same_board(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    args = ["--games", "120", "--levels", "random,easy,normal", "--seed", "saved", "--jobs", "1", "--no-progress"]
    rs.main([*args, "--save", str(path)])
    played = capsys.readouterr().out
    saved = rs.replay(str(path))
    assert [g.index for g in saved] == list(range(120))
    assert [g.levels for g in saved] == [rs.lineup("saved", i, list(NO_HARD), 2, 4) for i in range(120)]
    rs.main(["--replay", str(path)])
    replayed = capsys.readouterr().out
    assert "120 games read from" in replayed and "rated again, none played" in replayed

    def board(out: str) -> str:  # from the board to the seats table, without the timing line
        return out[out.index("rank  level"):out.index("\n120 games (")]
    assert board(replayed) == board(played)


@pytest.mark.parametrize(("args", "message"), [
    (["--levels", "random,expert"], "two or more distinct levels"),
    (["--levels", "normal"], "two or more distinct levels"),
    (["--games", "0"], "at least 1"),
    (["--games", "many"], "an integer"),
    (["--options", "[1]"], "a JSON object"),
    (["--options", "{rounds"], "not JSON"),
    (["--max-seats", "11"], "cannot play standard with 11 seats"),
    (["--min-seats", "4", "--max-seats", "3"], "--min-seats is above --max-seats"),
    (["--holdout", "1"], "--holdout must be between 0 and 1"),
    (["--ruleset", "chess"], "invalid choice"),
    (["--replay", "/nonexistent/games.jsonl"], "cannot read the games of /nonexistent/games.jsonl"),
    (["--replay", "x.jsonl", "--save", "y.jsonl"], "not allowed with argument"),
    (["--save", "/nonexistent/games.jsonl", "--games", "1"], "cannot write /nonexistent/games.jsonl"),
])
def test_bad_arguments_are_refused_before_any_game(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        rs.main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "usage:" in err
    assert list(tmp_path.iterdir()) == []  # nothing written

