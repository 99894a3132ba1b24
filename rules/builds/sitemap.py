"""A game's entries in one language as a sitemap (``/sitemaps/<game>/<language>.xml``),
made by the background worker like the booklets (``rules.builds.kinds``) and served by
``rules.pages.sitemaps``."""

from collections import defaultdict
from xml.sax.saxutils import escape

from ..content.addresses import entry_path_template
from ..content.models import Entry


def entry_urls(game, language: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(path, lastmod date, [(hreflang, path)]) of every published entry of a game in a
    language, at its canonical URL, with its published translations as alternates (the
    entry itself among them, as crawlers expect). Two queries whatever the size."""
    entries = list(
        Entry.objects.published()
        .filter(game=game, language=language)
        .order_by("slug", "pk")
        .values_list("slug", "translation_key", "updated_at")
    )
    keys = {key for _slug, key, _updated in entries}
    versions = defaultdict(list)
    if keys:
        shared = (
            Entry.objects.published()
            .filter(game=game, translation_key__in=Entry.objects.published().filter(game=game, language=language)
                    .values("translation_key"))
            .order_by("language", "pk")
            .values_list("translation_key", "language", "slug")
        )
        for key, version_language, slug in shared:
            versions[key].append((version_language, entry_path_template(game.slug, version_language).format(slug=slug)))
    path = entry_path_template(game.slug, language)
    return [
        (
            path.format(slug=slug),
            updated.date().isoformat(),
            versions[key] if len(versions[key]) > 1 else [],
        )
        for slug, key, updated in entries
    ]


def urlset(urls, base: str) -> bytes:
    """The sitemap XML of ``entry_urls`` on the site at ``base``."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for path, lastmod, alternates in urls:
        lines.append(f"<url><loc>{escape(base + path)}</loc><lastmod>{lastmod}</lastmod>")
        lines.extend(
            f'<xhtml:link rel="alternate" hreflang="{escape(code)}" href="{escape(base + href)}"/>'
            for code, href in alternates
        )
        lines.append("</url>")
    lines.append("</urlset>\n")
    return "\n".join(lines).encode()
