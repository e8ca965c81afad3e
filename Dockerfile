# The UNO server image: web (default command), Celery worker and beat
# (docker-compose.yml overrides the command for those).

# Build stage: the project as a wheel (pure Python); the image gets only the wheel.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY . /src
RUN pip wheel --no-deps --wheel-dir /wheels /src
# The documentation site (docs/, mkdocs.yml), built strictly as `make run` builds it; the
# web process serves it at /docs/ (DOCS_SITE_DIR)
ENV NO_MKDOCS_2_WARNING=1
RUN pip install "mkdocs>=1.6,<2" "mkdocs-material>=9.5" \
    && mkdocs build --strict --quiet --config-file /src/mkdocs.yml --site-dir /site

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings \
    PORT=8000 \
    STATIC_ROOT=/app/staticfiles \
    RUN_DIR=/app/.run \
    DOCS_SITE_DIR=/app/site

# Install the project's wheel (and its dependencies); only the installed copy is imported.
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels

# The documentation site, served at /docs/.
COPY --from=build /site /app/site

# gunicorn's settings (workers, limits, problem+json errors), read from the working directory.
COPY --from=build /src/config/gunicorn.conf.py /app/gunicorn.conf.py

RUN useradd --create-home --uid 1000 uno \
    && mkdir -p /app/staticfiles /app/.run \
    && chown -R uno:uno /app
WORKDIR /app
USER uno

EXPOSE 8000

CMD ["sh", "-c", "django-admin migrate --noinput && django-admin createcachetable && django-admin collectstatic --noinput --verbosity 0 && exec gunicorn -c /app/gunicorn.conf.py config.wsgi:application"]
