from django.urls import path

from games import streams, views

urlpatterns = [
    path("rulesets", views.RulesetsView.as_view(), name="rulesets"),
    path("games", views.GamesView.as_view(), name="games"),
    path("games/<int:game_id>", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/join", views.JoinView.as_view(), name="game-join"),
    path("games/<int:game_id>/leave", views.LeaveView.as_view(), name="game-leave"),
    path("games/<int:game_id>/start", views.StartView.as_view(), name="game-start"),
    path("games/<int:game_id>/actions", views.ActionsView.as_view(), name="game-actions"),
    path("games/<int:game_id>/moves", views.MovesView.as_view(), name="game-moves"),
    path("games/<int:game_id>/scores", views.ScoresView.as_view(), name="game-scores"),
    path("games/<int:game_id>/events", streams.game_events, name="game-events"),
    path("players/me/events", streams.player_events, name="player-events"),
    path("players/me/away", views.AwayView.as_view(), name="player-away"),
]
