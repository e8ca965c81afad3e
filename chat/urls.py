from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("games/<int:game_id>/chat", views.ChatView.as_view(), name="chat"),
    path("games/<int:game_id>/chat/<int:message_id>/report", views.ReportView.as_view(), name="chat-report"),
]
