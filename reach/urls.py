from django.urls import path

from reach import views

app_name = "reach"

urlpatterns = [
    path("players/me/notifications", views.NotificationsView.as_view(), name="notifications"),
    path("players/me/email", views.EmailView.as_view(), name="email"),
    path("players/me/push-subscriptions", views.SubscriptionsView.as_view(), name="push-subscriptions"),
    path("players/me/push-subscriptions/<int:subscription_id>", views.SubscriptionView.as_view(),
         name="push-subscription"),
    path("email/verify/<str:token>", views.VerifyEmailView.as_view(), name="verify-email"),
    path("unsubscribe/<str:token>", views.UnsubscribeView.as_view(), name="unsubscribe"),
]
