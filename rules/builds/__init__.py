"""Files built in the background and served like static files: a game's booklets (HTML
and PDF) and its sitemaps.

A booklet of 20,000 entries takes tens of seconds to lay out, far longer than a reader
should wait and longer than a worker may take; a sitemap of 40,000 entries a second or
more. So none is made in a request:

- ``models.BuiltFile`` is one file's record: what it is (kind, game, languages, part),
  where its bytes are (Django's ``built`` storage), their size and SHA-256, the
  fingerprint of what it was built from, and the content version it was last found
  fresh at.
- ``kinds`` says what each kind of file is made from and how (``gather`` one query of
  stored data, ``render`` the bytes), without a request: the site's address comes from
  ``DJANGO_SITE_URL`` (``site``).
- ``tasks.build_file`` (Django's tasks API through django-tasks, database backend; run
  by ``manage.py db_worker``) makes a file again when what it is made from changed, and
  only then: a write elsewhere costs one query and a hash, not a layout.
- ``serving.serve`` answers a request from the stored bytes, with ``ETag``,
  ``Last-Modified``, ``Range`` and a stored gzip copy for text. A file asked for before
  it exists gets a "being prepared" page (503 with ``Retry-After``, in the reader's
  language); one whose content changed since is served as last built while its new
  version is made, and says "as of" its date.

Nothing a request carries (host, port, query string) reaches a file.
"""
