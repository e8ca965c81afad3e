from django.apps import AppConfig


class FloorAppConfig(AppConfig):
    name = "bench.floor_app"
    label = "floor_app"
    default_auto_field = "django.db.models.BigAutoField"
