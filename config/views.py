from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.health import DEGRADED, ERROR, OK, WEB_CHECKS, bot_backlog_report, health_report
from config.problems import PROBLEM_CONTENT_TYPE, ApiError, ProblemSerializer
from config.resilience import RETRY_AFTER_SECONDS


def _part(help_text: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[OK, ERROR], help_text=help_text)


class HealthPartsSerializer(serializers.Serializer):
    database = _part("The database answers a query.")
    broker = _part("The Celery broker accepts a connection (within HEALTH_BROKER_TIMEOUT).")
    worker = _part(
        "A worker's pool ran its heartbeat task within 3 x UNO_WORKER_HEARTBEAT_SECONDS + 5 s."
    )
    sweeper = _part("Beat's deadline sweeper ran to its end within 3 x UNO_SWEEP_SECONDS + 5 s.")
    bots = serializers.ChoiceField(
        choices=[OK, DEGRADED, ERROR],
        help_text="`degraded`: at least HEALTH_BOT_BACKLOG_GAMES (5) running games have a bot decision overdue by more "
        "than HEALTH_BOT_BACKLOG_SECONDS (30 s): the workers fall behind (`bot_backlog` says how many); `error`: it "
        "could not be read.",
    )
    bot_backlog = serializers.IntegerField(
        allow_null=True,
        help_text="Running games with a bot decision overdue by more than HEALTH_BOT_BACKLOG_SECONDS: a robot's "
        "deadline (think time + UNO_BOT_STALL_SECONDS after its decision began) passed that long ago, or its step, "
        "held back by its owner's share of the workers, was due that long ago. Null when it could not be read.",
    )


class HealthSerializer(HealthPartsSerializer):
    status = serializers.ChoiceField(
        choices=[OK, DEGRADED],
        help_text="`ok`: every part works; `degraded`: every part answers but `bots` is `degraded` (still 200).",
    )


class HealthProblemSerializer(ProblemSerializer, HealthPartsSerializer):
    """The 503 of the health check: a problem with every part's state."""

    class Meta:
        ref_name = "HealthProblem"


class HealthView(APIView):
    """Readiness of the whole service: the database, the broker, a worker that runs
    tasks and beat's deadline sweeper, each ``ok`` or ``error``, and the bot backlog
    (``bots``: ``ok``, ``degraded`` or ``error``, with ``bot_backlog``).  Any error
    answers 503 naming the failing parts, with ``Retry-After`` as every 503; a
    ``degraded`` part alone answers 200 with ``status`` ``degraded``."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    checks: dict | None = None  # every part

    @extend_schema(
        operation_id="health",
        summary="Health of the server, its backing services and its background parts",
        tags=["health"],
        auth=[],
        responses={
            200: OpenApiResponse(HealthSerializer, description="Every part works (`status` `ok`), or every part "
                                 "answers but the bots fall behind (`status` `degraded`, `bots` `degraded`, with the "
                                 "`bot_backlog`)."),
            (503, PROBLEM_CONTENT_TYPE): OpenApiResponse(
                HealthProblemSerializer,
                description="`unavailable`: `detail` names the failing parts; `database`, `broker`, "
                "`worker`, `sweeper` and `bots` are each `ok` or `error` (`bots` may be `degraded`).",
            ),
        },
    )
    def get(self, request):
        report: dict = health_report(self.checks)
        if self.checks is None:  # the whole service: the bot backlog too
            report.update(bot_backlog_report())
        failing = [name for name, value in report.items() if value == ERROR]
        if failing:
            raise ApiError(503, "unavailable", f"Unhealthy: {', '.join(failing)}.",
                           headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, retry_after=RETRY_AFTER_SECONDS, **report)
        return Response({"status": DEGRADED if DEGRADED in report.values() else OK, **report})


class LivenessView(HealthView):
    """``GET /health`` (not in the schema): the web process and what it needs to answer
    requests (database, broker), for a load balancer or a container health check that
    must not fail because a worker is down."""

    checks = WEB_CHECKS


#: The browser client's page (games/static/uno/): it routes by the URL's hash
#: (``#/lobby``, ``#/game/12``, ``#/replay/12``), so ``/`` is its one server route; its
#: scripts and styles are static files (whitenoise, after ``collectstatic``).
CLIENT_PAGE = "uno/index.html"


def _client_file(name: str, content_type: str) -> HttpResponse:
    """A file of the browser client (a static file served at a route of its own),
    revalidated at every use (``no-cache``): a new release reaches browsers at once."""
    path = finders.find(name)
    if path is None:
        raise Http404("the browser client is not installed")
    with open(path, "rb") as f:
        response = HttpResponse(f.read(), content_type=content_type)
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def client_page(request: HttpRequest) -> HttpResponse:
    """``GET /``: the browser client (README "The browser client")."""
    return _client_file(CLIENT_PAGE, "text/html; charset=utf-8")


#: The client's service worker (issue 29: it shows push notifications), served at the
#: site's root so that its scope is the whole site (a worker under /static/ could only
#: control /static/).
SERVICE_WORKER = "uno/sw.js"


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``GET /sw.js``: the browser client's service worker (games/static/uno/sw.js);
    ``no-cache``: browsers check for a new worker at each visit."""
    response = _client_file(SERVICE_WORKER, "text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response
