from django.urls import path  # noqa: F401

from standing import views  # noqa: F401

app_name = "standing"

urlpatterns: list = [
    path("leaderboards/<str:ruleset>", views.LeaderboardView.as_view(), name="leaderboard"),
]
