"""Imports run for moderators in the background (the admin's "Import a document").

An upload becomes an ``ImportJob`` (``models``): the document's bytes and the form's
values, kept in the database (not the moderator's session) so a worker process can
read them. ``tasks`` previews it (a dry run, which writes nothing) and, once the
moderator confirms, imports it, telling the job of each stage and batch so the admin
shows progress (``rules/admin/importing.py``). A request never parses or writes a
large document: the admin upload of a 20,000-entry glossary answers at once.
"""
