"""The change lists of entries, errata and FAQ questions: what a moderator scans for.

At 1280 px the admin's sidebar and filter leave the list about 630 px, and its table
scrolls sideways inside that: with the game's full name, the language, the kind, a
fragment flag and a long date before it, the Status column was out of sight. So:

- **Status comes right after the title**, where it is seen first and never scrolled
  away; the game, language and kind follow.
- **Game and language are one column**, the language under the game's name: a
  column's heading does not wrap, and "Language" with its sort marks took as much room
  as its values. Long game names wrap instead of widening the table (Django marks a
  foreign key's cells "nowrap"; ``css/admin-lists.css``). The column sorts by game;
  the "By language" filter stays.
- **Dates are short** ("11/25/2026" in English): the day is what a list is scanned for;
  the full date and time are the cell's tooltip, and the column still sorts by them.
- **No fragment column**: it is rarely true; the "By fragment" filter finds them.
- **A row a large import holds back** (a draft until the import's last batch publishes
  it: ``rules.importing.rows``) says so under its status: while the import runs, and for
  good if it stopped midway (running the same import again publishes it).

``tests/browser/test_admin_lists.py`` measures the lists at 1280 × 800.
"""

from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _


@admin.display(description=_("game, language"), ordering="game")
def game_and_language(obj):
    """The game, and under it the item's language: one column, not two."""
    return format_html('{}<br><span class="list-language">{}</span>', obj.game.name, obj.get_language_display())


@admin.display(description=_("status"), ordering="status")
def status(obj):
    """The status, and under it whether an import holds the row back until it ends."""
    if getattr(obj, "held_by_import", None) is None or obj.status == "published":  # published by hand meanwhile
        return obj.get_status_display()
    return format_html(
        '{}<br><span class="list-held" title="{}">{}</span>',
        obj.get_status_display(),
        _("An import that publishes it has not finished: it is published when that import ends, "
          "or when the same document is imported again."),
        _("held back by an unfinished import"),
    )


@admin.display(description=_("updated"), ordering="updated_at")
def updated(obj):
    """When the item last changed: the day, with the date and time as its tooltip."""
    moment = timezone.localtime(obj.updated_at)
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        moment.isoformat(),
        date_format(moment, "DATETIME_FORMAT"),
        date_format(moment, "SHORT_DATE_FORMAT"),
    )


@admin.display(description=_("date"), ordering="published_on", empty_value="—")
def published(erratum):
    """An erratum's date, short (the full date is its tooltip)."""
    if erratum.published_on is None:
        return None
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        erratum.published_on.isoformat(),
        date_format(erratum.published_on, "DATE_FORMAT"),
        date_format(erratum.published_on, "SHORT_DATE_FORMAT"),
    )


class ListLayoutAdmin:
    """The lists' stylesheet (a file: the CSP allows no inline style), and their games read
    with the rows."""

    list_select_related = ["game"]

    class Media:
        css = {"all": ["css/admin-lists.css"]}
