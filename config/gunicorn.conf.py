"""gunicorn settings: ``gunicorn -c config/gunicorn.conf.py config.wsgi:application``.

gunicorn manages the processes; each worker serves HTTP with uvicorn on an event loop
(config/web_worker.py, config/http_protocol.py) in front of Django (config/front_door.py),
so slow clients, event streams and long-polls hold no thread.  Every number can be set from the environment; README.md,
"Configuration" and "Limits", lists them.
"""

import logging
import os

from config.logs import gunicorn_logging


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


wsgi_app = "config.wsgi:application"
bind = f"0.0.0.0:{_env_int('PORT', 8000)}"
workers = _env_int("WEB_CONCURRENCY", 2)
# Threads per worker that run Django's synchronous views (the move path); reading
# requests, event streams and long-polls take none (config/front_door.py).
threads = _env_int("GUNICORN_THREADS", 4)
worker_class = "config.web_worker.WebWorker"

# A worker silent this long is killed and replaced; on SIGTERM requests in flight get
# graceful_timeout seconds to finish.
timeout = 30
graceful_timeout = 5
# Seconds an idle keep-alive connection is kept open for the client's next request.
keepalive = _env_int("GUNICORN_KEEPALIVE", 5)

# The request line's and headers' limits (GUNICORN_LIMIT_REQUEST_LINE: 414,
# GUNICORN_LIMIT_REQUEST_FIELDS / _FIELD_SIZE: 431), the header and body timeouts
# (WEB_HEADER_TIMEOUT, WEB_BODY_TIMEOUT: 408) and the cap on connections per client IP
# (WEB_MAX_CONNECTIONS_PER_IP: 429) are read by config/http_protocol.py and
# config/front_door.py.

# One line per request on stdout, errors on stderr; LOG_FORMAT=json: both as JSON
# (config/logs.py, docs/operators/logging.md).
accesslog = "-"
errorlog = "-"
logconfig_dict = gunicorn_logging()

# No runtime control socket (gunicornc): one path per user would be shared by every
# gunicorn on the machine (two web processes, tests), and nothing here uses it.
control_socket_disable = True

# A master killed with -9 leaves its workers holding the port until they notice (they
# exit when their parent is gone); SO_REUSEPORT lets the restarted master bind at once
# instead of failing with "Connection in use" and waiting for another restart.
reuse_port = True


# With reuse_port each worker binds the address itself, so the master's own "Listening
# at:" names none: it is left out, and the master says where it serves, and on what, here.
def _no_empty_listening(record) -> bool:
    return not (str(record.msg).startswith("Listening at:") and record.args and not record.args[0])


# On shutdown every web worker's listener is closed twice (by uvicorn's server, then by
# gunicorn's worker), and the second close's "Error while closing socket [Errno 9] Bad file
# descriptor" said so at INFO: it is DEBUG here (any other error closing a socket stays INFO).
def _closed_twice_is_debug(record) -> bool:
    if str(record.msg).startswith("Error while closing socket") and "Errno 9]" in str(record.args):
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
    return True


def on_starting(server) -> None:
    server.log.error_log.addFilter(_no_empty_listening)
    server.log.error_log.addFilter(_closed_twice_is_debug)


def when_ready(server) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.logs import services

    try:
        from django.conf import settings

        on = services(settings)
    except Exception as exc:  # noqa: BLE001 (the workers will say it again, with the traceback)
        on = f"settings unreadable: {exc}"
    where = ", ".join(b if b.startswith(("unix:", "fd:")) else f"http://{b}" for b in server.cfg.bind)
    server.log.info("web: listening on %s, %s workers of %s threads (%s)", where, server.cfg.workers,
                    server.cfg.threads, on)
