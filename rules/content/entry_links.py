"""The entries an erratum affects or a FAQ question relates to are of its game and language.

An erratum of Arkham Horror in German that "affects" a Marvel Champions entry would show
on that game's page, and a question's "Related entries" in English under a German
question would send readers to the wrong edition. Both relations (``Erratum.affects``,
``Question.related_entries``) hold only entries of the item's own game and language:

- **the model refuses any other link**: ``refuse_links_across`` runs before rows are
  added to either relation (``m2m_changed``, from either side: ``erratum.affects.add``
  and ``entry.errata.add`` alike) and raises ``ValidationError`` naming every entry (or
  item) that does not belong, and where it does belong; nothing is written;
- the admin's forms show the same message on the field before saving
  (``rules.admin.forms``), so a moderator never meets the model's refusal as an error
  page; their entry pickers offer only the item's game and language to begin with
  (``rules.admin.pickers``). The entry's form refuses to move an entry that errata or
  questions are about to another game or language (``move_error``), naming them.

The importers link entries by title or slug within the document's game and language
only, and write the relation's rows in bulk (no signal). The canonical JSON format can
name an entry of another language (``{"language": "en", "slug": …}``), which a file
exported from links made before this rule still holds; such a file restores them as
they were.

Models are named by their app label here, so ``rules`` does not import ``faq``.
"""

from django.core.exceptions import ValidationError
from django.db.models.signals import m2m_changed
from django.utils.translation import gettext_lazy, ngettext_lazy

from ..shared.languages import CONTENT_LANGUAGES

CROSS_LINK = "cross_game_link"


def language_name(code: str) -> str:
    """A content language as the admin's forms name it ("German", "Deutsch" in German)."""
    return str(dict(CONTENT_LANGUAGES).get(code, code))


def describe(obj) -> str:
    """“Title” (Game, Language): an entry or an item named with where it belongs."""
    return gettext_lazy("“%(title)s” (%(game)s, %(language)s)") % {
        "title": obj,
        "game": obj.game.name,
        "language": language_name(obj.language),
    }


def outside(objs, game_id, language) -> list:
    """The ones of ``objs`` that are not of that game and language."""
    return [obj for obj in objs if (obj.game_id, obj.language) != (game_id, language)]


def cross_link_error(owner, game, language: str, strangers: list) -> ValidationError:
    """The refusal: ``strangers`` are not of ``owner``'s ``game`` and ``language``."""
    message = ngettext_lazy(
        "%(names)s is not of this %(item)s's game and language (%(game)s, %(language)s): "
        "an erratum or FAQ question is only about entries of its own game and language.",
        "%(names)s are not of this %(item)s's game and language (%(game)s, %(language)s): "
        "an erratum or FAQ question is only about entries of its own game and language.",
        "count",
    )
    return ValidationError(
        message,
        code=CROSS_LINK,
        params={
            "count": len(strangers),
            "names": ", ".join(str(describe(obj)) for obj in strangers),
            "item": owner._meta.verbose_name,
            "game": game.name,
            "language": language_name(language),
        },
    )


def refuse_links_across(sender, instance, action, reverse, model, pk_set, **kwargs) -> None:
    """``m2m_changed``: refuse to add rows linking another game's or language's rows."""
    if action != "pre_add" or not pk_set:
        return
    strangers = list(
        model._default_manager.filter(pk__in=pk_set)
        .exclude(game_id=instance.game_id, language=instance.language)
        .select_related("game")
        .order_by("pk")
    )
    if strangers:
        raise cross_link_error(instance, instance.game, instance.language, strangers)


def items_about(entry) -> list:
    """The errata and FAQ questions about ``entry``, through every guarded relation."""
    return [
        item
        for field in GUARDED
        for item in field.model._default_manager.filter(**{field.name: entry}).select_related("game").order_by("pk")
    ]


def move_error(items: list) -> ValidationError:
    """The refusal to move an entry that ``items`` are about to another game or language."""
    message = ngettext_lazy(
        "%(names)s is about this entry, and an erratum or FAQ question is only about entries of its own game "
        "and language: remove the entry from it before moving the entry to another game or language.",
        "%(names)s are about this entry, and an erratum or FAQ question is only about entries of its own game "
        "and language: remove the entry from them before moving the entry to another game or language.",
        "count",
    )
    return ValidationError(
        message,
        code=CROSS_LINK,
        params={"count": len(items), "names": ", ".join(str(describe(item)) for item in items)},
    )


#: The guarded relations' fields (``Erratum.affects``, ``Question.related_entries``).
GUARDED: list = []


def guard(relation) -> None:
    """Refuse links across games and languages in ``relation`` (a ManyToManyField's
    descriptor, e.g. ``Erratum.affects``)."""
    if relation.field not in GUARDED:
        GUARDED.append(relation.field)
    through = relation.through
    m2m_changed.connect(
        refuse_links_across, sender=through, weak=False, dispatch_uid=f"entry-links-{through._meta.label_lower}"
    )
