from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.views import HealthView, LivenessView, client_page, service_worker

urlpatterns = [
    path("", client_page, name="client"),
    path("sw.js", service_worker, name="service-worker"),
    path("admin/", admin.site.urls),
    path("health", LivenessView.as_view(schema=None), name="health-root"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
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
