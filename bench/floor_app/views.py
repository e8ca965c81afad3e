"""The floor endpoint: token auth and throttling as configured for the product
(DRF's defaults from settings), one ``select_for_update`` of a row, its counter
incremented, one row inserted, a small JSON answer.  GET reads the row (the
counterpart of a client's GET of its game)."""

from django.db import transaction
from rest_framework.response import Response
from rest_framework.views import APIView

from bench.floor_app.models import BenchCounter, BenchEntry


class FloorView(APIView):
    schema = None

    def get(self, request, row_id: int):
        row = BenchCounter.objects.filter(pk=row_id).values("id", "count", "updated_at").first()
        return Response(row or {"id": row_id, "count": 0})

    def post(self, request, row_id: int):
        with transaction.atomic():
            row, _ = BenchCounter.objects.select_for_update().get_or_create(pk=row_id)
            row.count += 1
            row.save(update_fields=["count", "updated_at"])
            BenchEntry.objects.create(counter=row, player=request.user, seq=row.count, payload=request.data)
        return Response({"id": row.pk, "count": row.count})
