from django.urls import path

from matchmaking import views

app_name = "matchmaking"

urlpatterns = [
    path("quickplay", views.QuickPlayView.as_view(), name="quickplay"),
    path("quickplay/<int:request_id>", views.QuickPlayDetailView.as_view(), name="quickplay-detail"),
]
