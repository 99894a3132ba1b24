from django import forms
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from ..content.models import Game
from ..search import MAX_QUERY_LENGTH
from ..shared.collation import sort_by_title
from ..shared.languages import CONTENT_LANGUAGES

TYPE_CHOICES = [
    ("", _("All types")),
    ("entry", _("Rules")),
    ("erratum", _("Errata")),
    ("question", _("FAQ")),
]


class SearchForm(forms.Form):
    """The search page's query and filters.

    A query over ``MAX_QUERY_LENGTH`` characters is a form error shown on the page; NUL
    bytes become spaces; the filters offer only published games, content languages and
    the search service's types. ``page`` never fails: anything odd is page 1 (one past
    the last is the view's paginator's to answer).
    """

    q = forms.CharField(
        label=_("Search for"),
        max_length=MAX_QUERY_LENGTH,
        required=False,
        strip=True,
        error_messages={
            "max_length": ngettext_lazy(
                "Your search is too long: use at most %(limit_value)d character (it has %(show_value)d).",
                "Your search is too long: use at most %(limit_value)d characters (it has %(show_value)d).",
                "limit_value",
            ),
        },
    )
    game = forms.ChoiceField(label=_("Game"), required=False)
    language = forms.ChoiceField(
        label=_("Content language"), choices=[("", _("All languages")), *CONTENT_LANGUAGES], required=False
    )
    type = forms.ChoiceField(label=_("Type"), choices=TYPE_CHOICES, required=False)
    page = forms.CharField(required=False)
    # "Search instead for …": the query as typed, not corrected to the closest known words.
    exact = forms.BooleanField(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ui_language = translation.get_language()
        # Published games by their name in the reader's language, sorted as a reader would.
        self.games = sort_by_title(Game.objects.published(), ui_language, title=lambda g: g.name_in(ui_language))
        self.fields["game"].choices = [("", _("All games")), *((g.slug, g.name_in(ui_language)) for g in self.games)]

    def clean_q(self):
        return self.cleaned_data["q"].replace("\x00", " ").strip()

    def clean_page(self):
        try:
            page = int(self.cleaned_data["page"] or 1)
        except ValueError:
            return 1
        return max(page, 1)
