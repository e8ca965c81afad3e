"""URLconf for tests/test_problems.py: the project's URLs plus views that fail on purpose."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.urls import path
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from config.problems import ApiError
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as project_urlpatterns

FAILURES = {
    "api-error": lambda: ApiError(409, "stale_version", "The game has moved on.", version=7),
    "api-error-default-detail": lambda: ApiError(409, "stale_version"),
    "http404": lambda: Http404("No Game matches the given query."),
    "django-permission-denied": lambda: DjangoPermissionDenied(),
    "django-validation-error": lambda: DjangoValidationError({"card": ["Not in your hand."]}),
    "django-validation-message": lambda: DjangoValidationError("Not your turn."),
    "drf-permission-coded": lambda: exceptions.PermissionDenied("Not seated.", code="not_seated"),
    "nested-validation": lambda: exceptions.ValidationError(
        {"bots": [{}, {"level": ["Not a valid choice."]}], "options": {"target": ["Too big."]}}
    ),
    "bug": lambda: RuntimeError("boom"),
}


class FailingView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request, failure):
        raise FAILURES[failure]()


def plain_django_view(request):
    raise RuntimeError("boom outside DRF")


urlpatterns = [
    *project_urlpatterns,
    path("test/fail/<str:failure>", FailingView.as_view()),
    path("test/plain-bug", plain_django_view),
]
