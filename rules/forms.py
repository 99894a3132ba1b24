from django import forms
from django.utils.translation import gettext_lazy as _

from .languages import CONTENT_LANGUAGES
from .search import MAX_QUERY_LENGTH


class SearchForm(forms.Form):
    """Validates the search query string; bad input gives an empty result, never an error."""

    q = forms.CharField(label=_("Search"), max_length=MAX_QUERY_LENGTH * 50, strip=True)
    game = forms.SlugField(required=False)
    language = forms.ChoiceField(label=_("Language"), choices=[("", _("All languages")), *CONTENT_LANGUAGES], required=False)

    def clean_q(self):
        return self.cleaned_data["q"].replace("\x00", " ")[:MAX_QUERY_LENGTH]
