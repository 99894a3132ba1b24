"""The models of the rules app, where Django looks for them.

Each is defined with what it belongs to (the manual, "Architecture"): the content model and
its change journal in ``rules.content``, the search index in ``rules.search``, the files
built for readers in ``rules.builds``, the stored entry pages in ``rules.pages``, the
moderators' import jobs in ``rules.jobs`` and players' suggestions in
``rules.moderation``. Code inside ``rules`` imports them from there; this module only
gathers them for Django (and for whoever outside ``rules`` wants them all at once).
"""

from .builds.models import BuiltFile
from .content.journal import Change
from .content.models import CrossReference, Entry, EntryRedirect, Erratum, Game, Source
from .content.releases import Release, ReleaseChange
from .derived.models import FeedHorizon, PublicChange, PublicItem
from .jobs.models import ImportJob
from .moderation.models import BlockedAddress, Suggestion
from .pages.models import StoredEntryPage, StoredGamePage
from .search.models import SearchDocument, SearchName, SearchVector, SearchWord

__all__ = [
    "BlockedAddress", "BuiltFile", "Change", "CrossReference", "Entry", "EntryRedirect", "Erratum", "FeedHorizon",
    "Game", "ImportJob", "PublicChange", "PublicItem", "Release", "ReleaseChange", "SearchDocument", "SearchName",
    "SearchVector", "SearchWord", "Source", "StoredEntryPage", "StoredGamePage", "Suggestion",
]  # fmt: skip
