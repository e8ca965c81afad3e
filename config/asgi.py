"""ASGI entry point: the front door (``config.front_door``) around Django, for any ASGI
server (``make run`` serves it through gunicorn's ``config.web_worker``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.front_door import FrontDoor  # noqa: E402 (after the settings module is chosen)

application = FrontDoor(get_wsgi_application(), threads=int(os.environ.get("GUNICORN_THREADS") or 4))
