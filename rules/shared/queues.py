"""The background worker's queues, by what waits on their tasks (the design:
``rules.jobs``; the operator's side: the manual, "Production", the background workers).

Each queue has a worker process of its own (``manage.py run_workers``), so a long task in
one never holds up the tasks of another; within a queue, tasks run one at a time, the
highest priority first. ``settings.TASKS`` lists the same names (a task naming a queue
it does not list is refused when its module is imported).
"""

# Files readers ask for: booklets, sitemaps, the API's bulk data files (rules.builds).
# Seconds each; a reader is shown "being prepared" meanwhile.
BUILDS = "default"
# A moderator's import previews and imports, and releases whose day has come
# (rules.jobs): minutes for a 20,000-entry document; they write, so one at a time.
IMPORTS = "imports"
# Semantic search's vectors (rules.search.tasks) and the stored entry pages
# (rules.pages.stored_pages): runs of about a minute, one after another until every
# document has its vector and every page is stored; nobody waits for them.
EMBEDDINGS = "embeddings"

QUEUES = (BUILDS, IMPORTS, EMBEDDINGS)
