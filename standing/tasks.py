"""Beat's catch-up for ratings (``standing.services.rate_missed``)."""

from celery import shared_task

from standing import services


@shared_task(ignore_result=True)
def rate_missed() -> int:
    """Rate any rated game that finished without being rated (its finish hook failed)."""
    return services.rate_missed()
