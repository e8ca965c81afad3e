from django.urls import path  # noqa: F401

from standing import profile_views, views  # noqa: F401

app_name = "standing"

urlpatterns: list = [
    path("leaderboards/<str:ruleset>", views.LeaderboardView.as_view(), name="leaderboard"),
    # (``players/me`` itself is the players app's, routed first)
    path("players/me/profile", profile_views.MyProfileView.as_view(), name="my-profile"),
    path("players/<str:username>", profile_views.PlayerProfileView.as_view(), name="player-profile"),
    path("players/<str:username>/games", profile_views.PlayerGamesView.as_view(), name="player-games"),
    path("players/<str:username>/ratings/<str:ruleset>", profile_views.RatingHistoryView.as_view(),
         name="player-rating"),
]
