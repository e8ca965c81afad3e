# The UNO server image: web (default command), Celery worker and beat
# (docker-compose.yml overrides the command for those).

# Build stage: the project as a wheel, with the rules engine compiled by mypyc (setup.py).
# gcc and the C headers stay in this stage; the image gets only the wheel.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
COPY . /src
# UNO_REQUIRE_COMPILED=1: fail the build rather than ship a pure-Python engine.
RUN UNO_REQUIRE_COMPILED=1 pip wheel --no-deps --wheel-dir /wheels /src

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings \
    PORT=8000 \
    STATIC_ROOT=/app/staticfiles \
    RUN_DIR=/app/.run

# Install the project's wheel (and its dependencies); only the installed copy is imported.
# The check fails the build if the compiled engine would not be the one that runs.
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl && rm -rf /wheels \
    && python -c "import games.engine as e; assert e.COMPILED, e.ENGINE_BUILD; print('games.engine:', e.ENGINE_BUILD)"

# gunicorn's settings (workers, limits, problem+json errors), read from the working directory.
COPY --from=build /src/config/gunicorn.conf.py /app/gunicorn.conf.py

RUN useradd --create-home --uid 1000 uno \
    && mkdir -p /app/staticfiles /app/.run \
    && chown -R uno:uno /app
WORKDIR /app
USER uno

EXPOSE 8000

CMD ["sh", "-c", "django-admin migrate --noinput && django-admin createcachetable && django-admin collectstatic --noinput --verbosity 0 && exec gunicorn -c /app/gunicorn.conf.py config.wsgi:application"]
