from django.urls import path

from meeting import views

app_name = "meeting"

urlpatterns = [
    path("challenges", views.ChallengesView.as_view(), name="challenges"),
    path("challenges/<int:challenge_id>", views.ChallengeDetailView.as_view(), name="challenge-detail"),
    path("challenges/<int:challenge_id>/accept", views.AcceptView.as_view(), name="challenge-accept"),
    path("challenges/<int:challenge_id>/decline", views.DeclineView.as_view(), name="challenge-decline"),
    path("challenges/<int:challenge_id>/cancel", views.CancelView.as_view(), name="challenge-cancel"),
    path("challenges/open/<str:token>", views.OpenChallengeView.as_view(), name="challenge-open"),
    path("challenges/open/<str:token>/accept", views.OpenAcceptView.as_view(), name="challenge-open-accept"),
    path("players/me/preferences", views.PreferencesView.as_view(), name="preferences"),
    path("games/<int:game_id>/rematch", views.RematchView.as_view(), name="game-rematch"),
    path("games/<int:game_id>/rematch/decline", views.RematchDeclineView.as_view(), name="game-rematch-decline"),
]
