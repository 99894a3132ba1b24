"""``{% per_language %}…{% end_per_language %}``: parts of a page that depend on nothing
but the UI language, rendered once per language and process.

The site's chrome (stylesheet and script tags, the skip link, the search form's labels,
the footer) is the same on every page of a language, yet Django renders its few dozen
nodes (translations, static file names, URLs) again for every page: a third of an
uncached entry page's template time. Inside this tag the output must depend only on
the active language and on the code (translations, static files, URLs without
arguments), never on a page's context or content; the rendered text is kept on the
template node, which lives as long as the process's cached template (in production;
with DEBUG templates are loaded again for each request, so nothing is kept).
"""

from django import template
from django.utils import translation

register = template.Library()


class PerLanguageNode(template.Node):
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist):
        self.nodelist = nodelist
        self.rendered: dict[str, str] = {}

    def render(self, context):
        language = translation.get_language()
        try:
            return self.rendered[language]
        except KeyError:
            html = self.rendered[language] = self.nodelist.render(context)
            return html


@register.tag
def per_language(parser, token):
    nodelist = parser.parse(("end_per_language",))
    parser.delete_first_token()
    return PerLanguageNode(nodelist)
