from django.urls import path

from players.views import MeView, RegisterView, TokenView, WebhookView

app_name = "players"

urlpatterns = [
    path("auth/register", RegisterView.as_view(), name="register"),
    path("auth/token", TokenView.as_view(), name="token"),
    path("players/me", MeView.as_view(), name="me"),
    path("players/me/webhook", WebhookView.as_view(), name="webhook"),
]
