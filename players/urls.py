from django.urls import path

from players.views import (
    ApiTokensView,
    ApiTokenView,
    BlocksView,
    BlockView,
    MeView,
    PasswordView,
    RegisterView,
    TokenView,
    WebhookView,
)

app_name = "players"

urlpatterns = [
    path("auth/register", RegisterView.as_view(), name="register"),
    path("auth/token", TokenView.as_view(), name="token"),
    path("auth/password", PasswordView.as_view(), name="password"),
    path("auth/tokens", ApiTokensView.as_view(), name="tokens"),
    path("auth/tokens/<int:token_id>", ApiTokenView.as_view(), name="token-detail"),
    path("players/me", MeView.as_view(), name="me"),
    path("players/me/webhook", WebhookView.as_view(), name="webhook"),
    path("players/me/blocks", BlocksView.as_view(), name="blocks"),
    path("players/me/blocks/<str:username>", BlockView.as_view(), name="block"),
]
