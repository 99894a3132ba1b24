"""Files built in the background (rules.builds), as tests wait for them: the real
worker of django-tasks' ``db_worker`` runs the queued tasks, here, until none is left.
(Its command's loop closes the database connection between tasks, which would end a
test's transaction: the same claim-and-run steps are taken here without it.)"""

from django.db import transaction
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult


def run_background_tasks() -> int:
    """Run every queued task, in order, as the worker does; how many ran."""
    worker = Worker(
        queue_names=["*"], interval=0, batch=True, backend_name="default", startup_delay=False,
        max_tasks=None, worker_id="tests", excluded_queue_names=[],
    )
    ran = 0
    while True:
        with transaction.atomic():
            task = DBTaskResult.objects.ready().get_locked()
            if task is None:
                return ran
            task.claim(worker.worker_id)
        worker.run_task(task)
        ran += 1


def get_built(client, url, **kwargs):
    """GET ``url``; when the file is being prepared (503), run the worker and GET again."""
    response = client.get(url, **kwargs)
    if response.status_code == 503:
        run_background_tasks()
        response = client.get(url, **kwargs)
    return response


def content_of(response) -> bytes:
    """The body of a response, streamed (a built file) or not."""
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def sitemap_documents(client) -> list[bytes]:
    """``/sitemap.xml`` (an index) and every sitemap it lists, read as a crawler reads
    them (the built ones once the worker has made them)."""
    import xml.etree.ElementTree as ET
    from urllib.parse import urlsplit

    index = client.get("/sitemap.xml")
    assert index.status_code == 200, index.status_code
    documents = [index.content]
    for location in ET.fromstring(index.content).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc"):
        response = get_built(client, urlsplit(location.text).path)
        assert response.status_code == 200, (location.text, response.status_code)
        documents.append(content_of(response))
    return documents


def goto_built(page, url: str):
    """A Playwright page's ``goto`` that, finding a file being prepared (503), runs the
    worker and goes again: as a reader who waits for the page to reload itself."""
    response = page.goto(url)
    if response is not None and response.status == 503:
        run_background_tasks()
        response = page.goto(url)
    return response
