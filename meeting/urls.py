app_name = "meeting"

urlpatterns: list = []
