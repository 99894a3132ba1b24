"""What a page says about itself in its <head>: title, description, OpenGraph.

A page template fills ``{% block title %}`` and ``{% block description %}`` once;
base.html captures both and writes them into ``<title>``, the meta description and the
OpenGraph tags (so a shared link previews with the page's own title and text). Nothing
here reads the database: a page's description comes from what its view loaded (an
entry's stored ``body_html``), and the page is rendered once and cached whole.
"""

import html
import re

from django import template
from django.utils.html import strip_tags
from django.utils.safestring import mark_safe

from rules.shared.languages import OPENGRAPH_LOCALES

register = template.Library()

_SPACES = re.compile(r"\s+")
DESCRIPTION_LENGTH = 160  # what search results and link previews show


def _plain(rendered: str) -> str:
    """Rendered template or HTML → one line of plain text (tags dropped, entities read)."""
    if "<" in rendered:  # strip_tags parses HTML: most captured blocks are text already
        rendered = strip_tags(rendered)
    return _SPACES.sub(" ", html.unescape(rendered)).strip()


class CaptureNode(template.Node):
    # Blocks inside are found by {% extends %} (it looks through child_nodelists), so a
    # child template's {% block title %} fills a captured block in base.html.
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist, name):
        self.nodelist = nodelist
        self.name = name

    def render(self, context):
        # Plain text, escaped once: safe in an attribute and in <title> alike, whether
        # the block held escaped variables or a translation with quotes in it.
        context[self.name] = mark_safe(html.escape(_plain(self.nodelist.render(context)), quote=True))
        return ""


@register.tag
def capture(parser, token):
    """``{% capture as name %}…{% endcapture %}``: render the enclosed template (blocks
    included) once, and keep it as plain text in ``name`` instead of writing it out."""
    bits = token.split_contents()
    if len(bits) != 3 or bits[1] != "as":
        raise template.TemplateSyntaxError("usage: {% capture as name %}…{% endcapture %}")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, bits[2])


@register.filter
def plain_text(rendered_html: str, length: int = DESCRIPTION_LENGTH) -> str:
    """Stored HTML as plain text of at most ``length`` characters, cut at a word with "…":
    an entry's description from its body ({{ entry.body_html|plain_text }}).

    Only the start of the HTML is read (eight characters of markup and text for each
    character kept): the work per page stays small however long the body is."""
    text = _plain((rendered_html or "")[: length * 8])
    if len(text) <= length:
        return text
    cut = text[: length - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.-–—") + "…"


@register.filter
def opengraph_locale(language: str) -> str:
    """og:locale's language_TERRITORY for a language code: "de" → "de_DE"."""
    return OPENGRAPH_LOCALES.get(language, language)


@register.filter
def absolute_url(path: str, request) -> str:
    """A site path as the full URL a link-preview bot fetches ({{ card|absolute_url:request }})."""
    if not path or request is None:
        return path or ""
    return request.build_absolute_uri(path)
