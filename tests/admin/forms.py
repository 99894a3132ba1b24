"""Read an admin form the way a browser would submit it, so a test changes only what a
moderator would change and sends everything else as the page had it."""

from html.parser import HTMLParser


class _FormFields(HTMLParser):
    def __init__(self, form_id: str | None):
        super().__init__(convert_charrefs=True)
        self.form_id, self.in_form, self.data = form_id, False, {}
        self._textarea = self._select = None
        self._multi: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.in_form = self.form_id is None or attrs.get("id") == self.form_id
            return
        if not self.in_form:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in ("submit", "button", "image", "file", "reset"):
                return
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.data[name] = attrs.get("value", "on")
                return
            self.data[name] = attrs.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""
        elif tag == "select" and name:
            self._select = name
            if "multiple" in attrs:
                self._multi[name] = []
                self.data[name] = self._multi[name]
        elif tag == "option" and self._select and "selected" in attrs:
            if self._select in self._multi:
                self._multi[self._select].append(attrs.get("value", ""))
            else:
                self.data[self._select] = attrs.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.in_form = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea:
            # A textarea's first newline after the tag is not part of its value.
            value = self.data[self._textarea] + data
            self.data[self._textarea] = value.removeprefix("\n") if not self.data[self._textarea] else value


def form_data(response, form_id: str | None = None) -> dict:
    """The fields of the page's form (``form_id``, else every form) as a browser sends them."""
    parser = _FormFields(form_id)
    parser.feed(response.content.decode())
    return parser.data
