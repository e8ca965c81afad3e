"""Static files, and the documentation site at ``/docs/``.

Whitenoise serves the collected static files (``STATIC_ROOT`` at ``STATIC_URL``) as
before, and the site ``mkdocs build`` made of ``docs/`` (``make run`` builds it into
``DOCS_SITE_DIR``) under ``/docs/``: ``/docs/`` and ``/docs/clients/webhooks/`` answer
their directory's ``index.html`` (``WHITENOISE_INDEX_FILE``), ``/docs/clients/webhooks``
redirects to the URL with its slash.  No ``/docs/`` route exists in Django's URL
resolver: the front door hands such requests to Django's WSGI handler, in which this
middleware answers before any view.  Without a built site ``/docs/`` is a 404.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings as django_settings
from whitenoise.middleware import WhiteNoiseMiddleware

#: where the site is served (no leading slash: whitenoise's prefix)
DOCS_PREFIX = "docs/"


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    def __init__(self, get_response=None, settings=django_settings) -> None:
        super().__init__(get_response, settings)
        site = settings.DOCS_SITE_DIR
        # Read once at start-up, as the static files are (unless autorefresh, DEBUG):
        # a site built later is served from the next start.
        if site and (self.autorefresh or Path(site).is_dir()):
            self.add_files(str(site), prefix=DOCS_PREFIX)
