from django.urls import path

from . import gold_views, views

app_name = "review"
urlpatterns = [
    path("", views.overview, name="overview"),
    path("overview/refresh/", views.overview_refresh, name="overview_refresh"),
    path("workers/", views.queue, name="queue"),
    path("workers/<int:pk>/", views.worker, name="worker"),
    path("workers/<int:pk>/standing/", views.standing, name="standing"),
    path("workers/<int:pk>/bonus/", views.bonus, name="bonus"),
    path("descriptions/", views.descriptions, name="descriptions"),
    path("ledger/", views.ledger, name="ledger"),
    path("ledger/payments.csv", views.ledger_csv, name="ledger_csv"),
    path("ledger/payout/", views.payout, name="payout"),
    path("audit/", views.audit, name="audit"),
    path("gold/", gold_views.gold_items, name="gold"),
    path("gold/make/", gold_views.gold_make, name="gold_make"),
    path("gold/<int:pk>/retire/", gold_views.gold_retire, name="gold_retire"),
]
