"""The product's URLs plus the floor endpoint (served by one gunicorn)."""

from django.urls import path

from bench.floor_app.views import FloorView
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as product_urlpatterns

urlpatterns = [
    path("bench/floor/<int:row_id>", FloorView.as_view(), name="bench-floor"),
    *product_urlpatterns,
]
