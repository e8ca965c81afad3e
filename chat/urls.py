app_name = "chat"

urlpatterns: list = []
