"""Admin forms: ordered label lists edited as one label per line; the entries an erratum
or a FAQ question is about, of its own game and language (``rules.content.entry_links``)."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from ..content import entry_links
from ..content.models import Entry
from ..shared.text import normalize_label
from ..shared.validators import ProhibitUnstorableCharactersValidator
from .reasons import ChangeReasonForm

MAX_LABEL_LENGTH = 300  # CrossReference.label's column


class LabelListField(forms.Field):
    """A JSON list of labels shown as a textarea, one label per line, in order.

    Blank lines are dropped and so is a label that repeats an earlier one (compared the
    way cross-references are matched, so "Reaction" and "reaction." are one); the order
    the moderator wrote is the order readers see.
    """

    widget = forms.Textarea(attrs={"rows": 4, "cols": 60, "class": "vLargeTextField label-list"})
    default_validators = [ProhibitUnstorableCharactersValidator()]

    def prepare_value(self, value):
        if isinstance(value, (list, tuple)):
            return "\n".join(str(label) for label in value)
        return value or ""

    def to_python(self, value) -> list[str]:
        if isinstance(value, (list, tuple)):
            lines = [str(item) for item in value]
        else:
            lines = str(value or "").splitlines()
        labels, seen = [], set()
        for line in lines:
            label = " ".join(line.split())
            key = normalize_label(label)
            if not key or key in seen:
                continue
            if len(label) > MAX_LABEL_LENGTH:
                raise ValidationError(
                    _("“%(start)s…” is longer than %(limit)d characters."),
                    params={"start": label[:40], "limit": MAX_LABEL_LENGTH},
                    code="too_long",
                )
            seen.add(key)
            labels.append(label)
        return labels

    def has_changed(self, initial, data) -> bool:
        return self.to_python(initial or []) != self.to_python(data)


class EntryAdminForm(ChangeReasonForm):
    aliases = LabelListField(
        label=capfirst(_("aliases")),
        required=False,
        help_text=_("One name per line: other names readers search for, e.g. Du and Dein."),
    )
    see_also = LabelListField(
        label=capfirst(_("see also")),
        required=False,
        help_text=_(
            "One label per line, in the order readers see them. Each resolves to the entry of the same game "
            "and language with that title or alias; a label with no such entry yet is listed as wanted."
        ),
    )

    class Meta:
        model = Entry
        fields = "__all__"
        help_texts = {
            "slug": _(
                "The entry's address. Left as it is, a slug made from the title follows a new title; "
                "every old address keeps working as a permanent redirect."
            ),
            "title": _(
                "Renaming an entry that was published under its title keeps that title as an alias, so links "
                "written with it still lead here."
            ),
        }

    def clean(self):
        """An entry that errata or questions are about stays in their game and language."""
        cleaned = super().clean()
        entry, game, language = self.instance, cleaned.get("game"), cleaned.get("language")
        if entry.pk is None or game is None or not language:
            return cleaned
        if (game.pk, language) == (entry.game_id, entry.language):  # the stored values until saved
            return cleaned
        items = entry_links.items_about(entry)
        if items:
            self.add_error("game" if game.pk != entry.game_id else "language", entry_links.move_error(items))
        return cleaned


class AboutEntriesForm(ChangeReasonForm):
    """An erratum's or a FAQ question's form: the entries it is about must be of the game
    and language the form gives it. The model would refuse the link too
    (``rules.content.entry_links``); here the refusal is on the field, with the moderator's
    choices still in the form."""

    def clean(self):
        cleaned = super().clean()
        game, language = cleaned.get("game"), cleaned.get("language")
        if game is None or not language:
            return cleaned
        for name, field in self.fields.items():
            entries = cleaned.get(name)
            if entries is None or not isinstance(field, forms.ModelMultipleChoiceField):
                continue
            if field.queryset.model is not Entry:
                continue
            strangers = entry_links.outside(entries, game.pk, language)
            if strangers:
                self.add_error(name, entry_links.cross_link_error(self.instance, game, language, strangers))
        return cleaned
