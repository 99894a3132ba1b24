"""One explicit FilterSet per resource (query parameters of the list endpoints).

Every value is validated by a Django form field before it reaches the database, so a
bad value answers 400 with a JSON message instead of a 500 or a silently empty list:
``language`` and ``kind`` accept only their choices, ``official`` only ``true`` or
``false``, text filters have a maximum length and refuse NUL bytes (Django's
``CharField`` validator; PostgreSQL cannot store them), and ``updated_after`` must be an
ISO 8601 date or date-time.

A filter given with an empty value (``?language=``) is a 400 too, not "no filter": leave
the parameter out for that. One rule for every filter, which the OpenAPI schema can state
(an enum, a format, ``minLength: 1``); django-filter's own fields would read an empty or
unknown value as no filter at all and answer with the whole list. Text filters match the
value exactly as given (no stripping), so a value of spaces matches nothing.

``StrictFilterSet`` puts these fields under every filter, declared or generated from
``Meta.fields``; ``rules.api.schema`` documents them (lengths, the NUL rule).

``FilterBackend`` builds the FilterSet only for a request that names a filter: every
filter here is optional and does nothing when absent, and the FilterSet's form (a deep
copy of every filter and a form class built per request) was a tenth of an uncached
list page's time.
"""

import datetime
import re

import django_filters.rest_framework as filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, Q
from django_filters import fields as filter_fields
from django_filters.rest_framework import DjangoFilterBackend

from rules.content.models import Entry, EntryRedirect, Erratum, Game, Source
from rules.content.releases import Release, renumbered_from
from rules.shared.languages import CONTENT_LANGUAGES

# "2024-05-01T10:00:00+02:00" pasted unencoded into a query string arrives with the "+"
# decoded as a space; put it back rather than refuse a value the client meant correctly.
_OFFSET_AS_SPACE = re.compile(r"^(\d{4}-\d{2}-\d{2}T[\d:.]+) (\d{2}(?::?\d{2})?)$")


EMPTY_VALUE = "Must not be empty: leave the parameter out to not filter by it."


def one_of(values) -> str:
    return f"Must be one of: {', '.join(values)}."


class NonEmpty:
    """Form-field mixin: a parameter present with an empty value is refused.

    A parameter that is absent reaches ``clean`` as ``None`` (the widgets read it with
    ``data.get``), one given empty as ``""``: only the second is an error.
    """

    def clean(self, value):
        if value == "":
            raise ValidationError(EMPTY_VALUE, code="empty")
        return super().clean(value)


class TextField(NonEmpty, forms.CharField):
    """Any text but an empty one, matched as given (not stripped), no NUL byte."""

    def __init__(self, **kwargs):
        kwargs.setdefault("strip", False)
        super().__init__(**kwargs)


class ChoiceField(NonEmpty, filter_fields.ChoiceField):
    """One of the choices; the message lists them (never the value sent)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        codes = [str(value) for value, _label in self.choices if value != ""]
        self.error_messages["invalid_choice"] = one_of(codes)


class BooleanField(NonEmpty, forms.Field):
    """``true`` or ``false`` (also ``True``/``False``, as Python clients write them).

    django-filter's ``NullBooleanField`` reads any other value as "no filter", so
    ``?official=xyz`` answered with every source.
    """

    widget = forms.TextInput
    VALUES = {"true": True, "True": True, "false": False, "False": False}
    default_error_messages = {"invalid": "Must be true or false."}

    def to_python(self, value):
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            return value
        try:
            return self.VALUES[value]
        except (KeyError, TypeError):
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None

    def validate(self, value):
        pass  # None (absent) is fine: the filter is optional


ID_MIN, ID_MAX = 1, 2**63 - 1  # the ids every database stores (the schema says so too)


class IdField(NonEmpty, forms.IntegerField):
    """An id: a whole number within what every database stores (no "1e999", no "-1")."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", ID_MIN)
        kwargs.setdefault("max_value", ID_MAX)
        super().__init__(**kwargs)


class TextFilter(filters.CharFilter):
    field_class = TextField


class IdFilter(filters.NumberFilter):
    field_class = IdField


class StrictChoiceFilter(filters.ChoiceFilter):
    field_class = ChoiceField


class StrictBooleanFilter(filters.BooleanFilter):
    field_class = BooleanField

    def __init__(self, *args, **kwargs):
        # The DRF flavour's BooleanWidget would read any value but true/false as absent.
        kwargs["widget"] = forms.TextInput
        super().__init__(*args, **kwargs)


class StrictFilterSet(filters.FilterSet):
    """Filters generated from ``Meta.fields`` get the strict fields too."""

    STRICT = {
        filters.CharFilter: TextFilter,
        filters.ChoiceFilter: StrictChoiceFilter,
        filters.BooleanFilter: StrictBooleanFilter,
    }

    @classmethod
    def filter_for_lookup(cls, field, lookup_type):
        filter_class, params = super().filter_for_lookup(field, lookup_type)
        return cls.STRICT.get(filter_class, filter_class), params


class FilterBackend(DjangoFilterBackend):
    """``DjangoFilterBackend`` that leaves the queryset as it is when no parameter of the
    request starts with a filter's name (which also covers django-filter's suffixed
    parameters, ``name_min`` and the like). Our filters have no defaults, so the
    FilterSet would change nothing; ``?language=`` (named, empty) still reaches it and
    answers 400."""

    def filter_queryset(self, request, queryset, view):
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            names = tuple(filterset_class.base_filters)
            if not any(parameter.startswith(names) for parameter in request.query_params):
                return queryset
        return super().filter_queryset(request, queryset, view)


class UpdatedAfterField(NonEmpty, forms.DateTimeField):
    """An ISO 8601 date or date-time, normalised to UTC.

    A date alone means its midnight in the site's time zone (UTC). Converting here also
    catches values that exist in Python but overflow once shifted to UTC
    ("0001-01-01T00:00+05:00"), which would otherwise fail inside the database driver.
    """

    def to_python(self, value):
        if isinstance(value, str):
            value = _OFFSET_AS_SPACE.sub(r"\1+\2", value.strip())
        result = super().to_python(value)
        if result is None:
            return None
        try:
            return result.astimezone(datetime.UTC)
        except (OverflowError, ValueError):
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None


class UpdatedAfterFilter(filters.DateTimeFilter):
    field_class = UpdatedAfterField


class UpdatedSinceFilterSet(StrictFilterSet):
    """``updated_after`` is strict (``>``): a client that stores the newest ``updated_at``
    it has seen and asks for what changed after it does not get that item again. It
    filters on the ``updated_at`` the JSON shows (``public_updated_at``, annotated by each
    viewset: when the item's JSON last changed, embedded data included)."""

    updated_after = UpdatedAfterFilter(
        field_name="public_updated_at",
        lookup_expr="gt",
        help_text="Only items changed after this ISO 8601 date or date-time "
        "(URL-encode a '+' in a time-zone offset as %2B).",
    )


class PublishedItemFilterSet(UpdatedSinceFilterSet):
    """The filters every content resource shares: ``game``, ``language``, ``updated_after``.

    ``game`` is a plain slug match, so an unknown slug gives an empty list (a client
    cannot tell "no such game" from "nothing published yet" anyway, and the games
    endpoint says which exist). ``language`` is a closed set, so a typo is a 400.
    """

    game = TextFilter(
        field_name="game__slug", max_length=100, help_text="Game slug, e.g. marvel-champions."
    )
    language = StrictChoiceFilter(choices=CONTENT_LANGUAGES, help_text="Content language code.")


class GameFilter(UpdatedSinceFilterSet):
    """Games have no language of their own: ``language`` selects the games that have
    published entries in that language."""

    language = StrictChoiceFilter(
        choices=CONTENT_LANGUAGES,
        method="filter_language",
        help_text="Only games with published entries in this language.",
    )

    class Meta:
        model = Game
        fields = ["language", "updated_after"]

    def filter_language(self, queryset, name, value):
        # Exists() rather than a join: no duplicate rows, no distinct(), and the
        # entry_count annotation keeps counting every published entry of the game.
        entries = Entry.objects.published().filter(game=OuterRef("pk"), language=value)
        return queryset.filter(Exists(entries))


class SourceFilter(PublishedItemFilterSet):
    class Meta:
        model = Source
        fields = ["game", "language", "kind", "official", "updated_after"]


class ReleaseFilter(StrictFilterSet):
    game = TextFilter(field_name="source__game__slug", max_length=100, help_text="Game slug.")
    language = StrictChoiceFilter(
        field_name="source__language", choices=CONTENT_LANGUAGES, help_text="The source's language."
    )
    source = IdFilter(field_name="source_id", help_text="Source id.")

    class Meta:
        model = Release
        fields = ["game", "language", "source"]


class EntryFilter(PublishedItemFilterSet):
    """``slug`` with ``game`` and ``language`` finds one entry: slugs are unique only per
    game and language, which is why the detail endpoint is keyed by id. A former slug
    (the entry was renamed: its old page redirects) finds it too, with its current slug
    in the JSON, so an old citation or bookmark still resolves."""

    slug = TextFilter(
        max_length=200,
        method="filter_slug",
        help_text="Entry slug (unique per game and language), or one it had before a rename: the result "
        "shows the current slug.",
    )

    number = TextFilter(
        max_length=32,
        method="filter_number",
        help_text="Rule number, e.g. 601.2a: the entry with that number, and the one that had it until a "
        "release renumbered it (its previous_numbers say so), so an old citation still resolves.",
    )

    def filter_slug(self, queryset, name, value):
        former = EntryRedirect.objects.filter(old_slug=value).values("entry_id")
        return queryset.filter(Q(slug=value) | Q(pk__in=former))

    def filter_number(self, queryset, name, value):
        return queryset.filter(Q(number=value) | Q(pk__in=renumbered_from(value)))

    class Meta:
        model = Entry
        fields = ["game", "language", "kind", "slug", "number", "updated_after"]


class ErratumFilter(PublishedItemFilterSet):
    class Meta:
        model = Erratum
        fields = ["game", "language", "kind", "updated_after"]
