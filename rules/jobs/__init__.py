"""Imports run for moderators in the background (the admin's "Import a document").

An upload becomes an ``ImportJob`` (``models``): the document's bytes and the form's
values, kept in the database (not the moderator's session) so a worker process can
read them. ``tasks`` previews it (a dry run, which writes nothing) and, once the
moderator confirms, imports it, telling the job of each stage and batch so the admin
shows progress (``rules/admin/importing.py``). A request never parses or writes a
large document: the admin upload of a 20,000-entry glossary answers at once.

**Queues and workers: a long task never holds up the others.** A django-tasks
``db_worker`` runs one task at a time, the highest priority first; with one worker for
everything, a moderator's 20,000-entry import (minutes) kept every booklet, sitemap and
bulk data file waiting behind it, and a run of search vectors (a minute) delayed both.
So the tasks are in three queues by what waits on them (``rules.shared.queues``), and
``manage.py run_workers`` (``make run``; production runs it beside gunicorn) starts one
``db_worker`` process per queue:

=============  ==========================================  ==============================
queue          tasks                                       who waits, how long they run
=============  ==========================================  ==============================
``default``    ``rules.builds.tasks.build_file``: booklets  readers ("being prepared"):
               (HTML, PDF), sitemaps, the API's bulk data  seconds each
               files
``imports``    ``tasks.preview_import``, ``tasks.run_       a moderator (the job's page
               import`` (priority ``MODERATOR_PRIORITY``),  shows its stage): up to minutes;
               ``releases.apply_due_releases`` (releases    they write, so one at a time
               whose day has come)
``embeddings`` ``rules.search.tasks.embed_search_          nobody: runs of about a minute
               documents``; ``rules.pages.stored_pages.    until every document has one,
               store_entry_pages`` (entry pages as          every page is stored
               readers get them)
=============  ==========================================  ==============================

A long task holds up only its own queue: a booklet is built while an import runs, and an
import starts while vectors are being made. Imports stay one at a time, in one queue:
each writes in batches that other writers wait for, and two at once would only take
turns at the database's write lock. A new task names its queue (``queue_name=``); one
whose queue is not in ``settings.TASKS`` is refused when its module is imported.
``db_worker --queue-name '*'`` alone still runs everything, one task at a time (a small
site that does not mind the waits).
"""
