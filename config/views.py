from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from config.health import OK, health_report
from config.problems import ApiError, problem_responses


class HealthSerializer(serializers.Serializer):
    status = serializers.CharField()
    database = serializers.CharField()
    broker = serializers.CharField()


class HealthView(APIView):
    """Liveness/readiness: the database and the Celery broker answer."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(
        operation_id="health",
        summary="Health of the server and its backing services",
        tags=["health"],
        auth=[],
        responses={
            200: OpenApiResponse(HealthSerializer, description="Everything answers."),
            **problem_responses(
                (503, "`unavailable`, with `database` and `broker` set to `ok` or `error`.")
            ),
        },
    )
    def get(self, request):
        report = health_report()
        if any(value != OK for value in report.values()):
            failing = ", ".join(name for name, value in report.items() if value != OK)
            raise ApiError(503, "unavailable", f"Unhealthy: {failing}.", **report)
        return Response({"status": OK, **report})
