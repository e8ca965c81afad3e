"""What the real processes log (issue 25, docs/operators/logging.md): the web server says
where it listens and on which database and broker; the sweeper's and the heartbeat's
runs, every few hundred milliseconds, are not INFO; a game's start and end are; and with
``LOG_FORMAT=json`` every line the web process writes is a JSON object."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.logs import describe_broker, describe_database
from tests.server_support import Gunicorn, call, register

from .celery_helpers import REDIS_URL, celery_beat, celery_worker, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

#: a text line of Django's, Celery's and the project's loggers (config/logs.py TEXT_FORMAT)
TEXT_LINE = re.compile(r"^\S+ \S+ (?P<level>[A-Z]+) (?P<logger>\S+) \d+: (?P<message>.*)$")


@contextmanager
def web(tmp_path: Path, **settings: object) -> Iterator[tuple[Gunicorn, Path]]:
    """The real gunicorn (tests/server_support.py), ready, and the file of its output."""
    log = tmp_path / "web.log"
    server = Gunicorn(log, 1, **settings)
    try:
        server.wait_ready()
        yield server, log
    finally:
        server.stop()


def records(text: str) -> list[dict[str, str]]:
    """The text log lines of ``text`` as (level, logger, message)."""
    return [m.groupdict() for m in map(TEXT_LINE.match, text.splitlines()) if m]


def expected_database() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite {db['NAME']}"
    return f"postgresql {db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def expected_broker() -> str:
    return REDIS_URL if REDIS_URL.startswith("redis") else f"filesystem {settings.RUN_DIR / 'broker'}"


def test_the_web_server_says_where_it_listens_and_on_which_database_and_broker(tmp_path):
    with web(tmp_path) as (server, log):
        text = wait_for(lambda: "web: listening on" in (t := log.read_text()) and t, timeout=10,
                        message="the startup line")
    (line,) = [line for line in text.splitlines() if "web: listening on" in line]
    assert "[INFO]" in line
    assert f"web: listening on http://0.0.0.0:{server.port}, 1 workers of 4 threads " in line
    assert f"(database: {expected_database()}, broker: {expected_broker()})" in line
    assert "Listening at:  (" not in text  # gunicorn's own line, with no address, is left out
    # stopped: the worker's listener closed twice says nothing at INFO
    assert "Error while closing socket" not in log.read_text(), log.read_text()[-2000:]


def test_the_startup_lines_show_no_password():
    assert describe_broker("redis://:pa55word@cache.example:6380/3") == "redis://:**@cache.example:6380/3"
    assert describe_broker("redis://uno:pa55word@cache.example/0") == "redis://uno:**@cache.example/0"
    described = describe_database({"ENGINE": "django.db.backends.postgresql", "NAME": "uno", "USER": "uno",
                                   "PASSWORD": "pa55word", "HOST": "db.example", "PORT": 5433})
    assert described == "postgresql db.example:5433/uno"


def test_the_sweeper_and_the_heartbeat_are_not_info_but_worker_and_beat_say_they_started(tmp_path):
    """Beat sends the sweeper every 0.2 s and the worker its heartbeat every 0.5 s, for a
    dozen sweeps: nothing of theirs at INFO; the worker's task lines are DEBUG, shown here
    for celery.app.trace alone (LOG_LEVELS), to count the runs."""
    with celery_worker(tmp_path, UNO_WORKER_HEARTBEAT_SECONDS=0.5, LOG_LEVELS="celery.app.trace=DEBUG") as worker, \
            celery_beat(tmp_path, sweep_seconds=0.2, LOG_LEVELS="") as beat:

        def runs(task: str) -> int:
            return sum(r["level"] == "DEBUG" and f"Task games.tasks.{task}[" in r["message"]
                       and " succeeded in " in r["message"] for r in records(worker.log()))

        wait_for(lambda: runs("sweep_deadlines") >= 12 and runs("worker_heartbeat") >= 2, timeout=30,
                 message="a dozen sweeps and two heartbeats")
        worker_log, beat_log = worker.log(), beat.log()
    info = [r for r in records(worker_log) + records(beat_log) if r["level"] == "INFO"]
    assert info  # (the lines are read)
    routine = [r for r in info if re.search(r"sweep|heartbeat|Sending due task|Task games\.tasks", r["message"])
               and not r["message"].startswith("beat: started")]
    assert not routine
    assert "received" not in worker_log  # the task received: DEBUG, and celery.worker.strategy is not
    assert "Scheduler: Sending due task" not in beat_log
    services = f"(database: {expected_database()}, broker: {expected_broker()})"
    assert [r["message"] for r in info if r["message"].startswith("worker: ready")] == [
        f"worker: ready, concurrency 2 ({'prefork' if REDIS_URL else 'thread'}) {services}"]
    (started,) = [r["message"] for r in info if r["message"].startswith("beat: started")]
    assert started.startswith("beat: started, sending ")
    assert "sweep-deadlines (games.tasks.sweep_deadlines) every 0.2 s" in started
    assert started.endswith(services)


def test_a_game_started_and_finished_is_info(tmp_path):
    """A human and a bot; the human leaves at once, and the worker (bots thinking 0 s) plays
    the game to its end: its start is logged by the web process, its end by the worker,
    each one line at INFO with the game's id, ruleset and seats, and no card."""
    with web(tmp_path, UNO_BOT_THINK_SECONDS=0) as (server, log), \
            celery_worker(tmp_path, UNO_BOT_THINK_SECONDS=0) as worker:
        _, token = register(server)
        status, game, _ = call(server, "POST", "/api/v1/games", {"ruleset": "standard", "bots": [{"level": "random"}],
                                                                 "options": {"rounds": 1}}, token)
        assert status == 201, game
        gid = game["id"]
        assert call(server, "POST", f"/api/v1/games/{gid}/start", None, token)[0] == 200
        assert call(server, "POST", f"/api/v1/games/{gid}/leave", None, token)[0] == 200
        wait_for(lambda: call(server, "GET", f"/api/v1/games/{gid}", None, token)[1]["status"] == "finished",
                 timeout=30, message="the game played to its end")
        lines = wait_for(lambda: (lines := [r for r in records(log.read_text()) + records(worker.log())
                                            if r["logger"] == "games.services"]) and len(lines) == 2 and lines,
                         timeout=5, message="two lines of games.services")
    started, finished = (r["message"] for r in lines)
    assert {r["level"] for r in lines} == {"INFO"}
    assert started == f"game {gid} started: standard, 2 seats (1 bots)"
    assert re.fullmatch(rf"game {gid} finished: standard, 2 seats \(1 bots\), won by seat [01]; \d+ moves, "
                        r"\d+ round\(s\)", finished), finished


def test_with_log_format_json_every_line_of_the_web_process_is_json(tmp_path):
    with web(tmp_path, LOG_FORMAT="json") as (server, log):
        _, token = register(server)
        assert call(server, "GET", "/api/v1/players/me", None, token)[0] == 200
        # a token in the query string of a request Django answers 404, which it logs
        # with the request (whose text holds the query): left out of the JSON line
        assert call(server, "GET", f"/api/v1/games/999999/events?token={token}")[0] == 404
        wait_for(lambda: "Not Found" in log.read_text(), timeout=5, message="Django's 404 line")
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines()]  # every line (a line that is not JSON fails)
    assert len(lines) >= 8
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert token not in text
    (started,) = [line for line in lines if line["message"].startswith("web: listening on")]
    assert started["level"] == "INFO" and f"http://0.0.0.0:{server.port}" in started["message"]
    assert f"broker: {expected_broker()}" in started["message"]
    access = [line for line in lines if line["logger"] == "uno.access"]
    assert {"client", "method", "path", "status", "bytes", "duration"} <= access[0].keys()
    (refused,) = [line for line in access if line["path"].startswith("/api/v1/games/999999/")]
    assert refused["path"] == "/api/v1/games/999999/events?token=***" and refused["status"] == 404
    (not_found,) = [line for line in lines if line["message"] == "Not Found: /api/v1/games/999999/events"]
    assert not_found["level"] == "WARNING" and not_found["logger"] == "django.request"
    assert not_found["status_code"] == 404 and "request" not in not_found
    assert {line["logger"] for line in lines} >= {"gunicorn.error", "uvicorn.error", "uno.access", "django.request"}
