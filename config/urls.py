from django.contrib import admin
from django.urls import include, path
from django.views import View
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.views import HealthView, LivenessView, client_page, service_worker


class SwaggerView(SpectacularSwaggerView):
    """The API's browsable documentation page.  Its OPTIONS answers what it allows, as
    Django's views do: DRF's own (a metadata body) was rendered with the page's HTML
    renderer, which has no template for it, and answered 500."""

    def options(self, request, *args, **kwargs):
        return View.options(self, request, *args, **kwargs)


urlpatterns = [
    path("", client_page, name="client"),
    path("sw.js", service_worker, name="service-worker"),
    path("admin/", admin.site.urls),
    path("health", LivenessView.as_view(schema=None), name="health-root"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/health", HealthView.as_view(), name="health"),
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("meeting.urls")),
    path("api/v1/", include("matchmaking.urls")),
    path("api/v1/", include("chat.urls")),
    path("api/v1/", include("reach.urls")),
    path("api/v1/", include("standing.urls")),
]

handler400 = "config.problems.bad_request"
handler403 = "config.problems.permission_denied"
handler404 = "config.problems.page_not_found"
handler500 = "config.problems.server_error"
