app_name = "matchmaking"

urlpatterns: list = []
