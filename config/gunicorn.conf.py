"""gunicorn settings: ``gunicorn -c config/gunicorn.conf.py config.wsgi:application``.

Threaded workers (gthread) whose own error answers (a request line or headers over
the limits below, a malformed request) are problem+json like the API's
(config/gunicorn_worker.py).  Every number can be set from the environment; README.md,
"Configuration" and "Limits", lists them.
"""

import os


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


wsgi_app = "config.wsgi:application"
bind = f"0.0.0.0:{_env_int('PORT', 8000)}"
workers = _env_int("WEB_CONCURRENCY", 2)
threads = _env_int("GUNICORN_THREADS", 4)
worker_class = "config.gunicorn_worker.ProblemThreadWorker"

# A worker silent this long is killed and replaced; on SIGTERM requests in flight get
# graceful_timeout seconds to finish.
timeout = 30
graceful_timeout = 5
# Seconds an idle keep-alive connection is kept open for the client's next request.
keepalive = _env_int("GUNICORN_KEEPALIVE", 5)

# Request line (method, URL with query string, version) at most this many bytes: 414.
limit_request_line = _env_int("GUNICORN_LIMIT_REQUEST_LINE", 4094)
# At most this many header fields, each at most this many bytes: 431.
limit_request_fields = _env_int("GUNICORN_LIMIT_REQUEST_FIELDS", 100)
limit_request_field_size = _env_int("GUNICORN_LIMIT_REQUEST_FIELD_SIZE", 8190)

# One line per request on stdout, errors on stderr.
accesslog = "-"
errorlog = "-"

# No runtime control socket (gunicornc): one path per user would be shared by every
# gunicorn on the machine (two web processes, tests), and nothing here uses it.
control_socket_disable = True

# A master killed with -9 leaves its workers holding the port until they notice (they
# exit when their parent is gone); SO_REUSEPORT lets the restarted master bind at once
# instead of failing with "Connection in use" and waiting for another restart.
reuse_port = True
