"""Read an admin form the way a browser would submit it, so a test changes only what a
moderator would change and sends everything else as the page had it."""

from html.parser import HTMLParser


class _FormFields(HTMLParser):
    """The (name, value) pairs a browser submits from one form: every field as rendered,
    hidden ones included; no buttons, no files, unchecked boxes left out."""

    def __init__(self, form_id: str | None):
        super().__init__(convert_charrefs=True)
        self.form_id, self.in_form, self.pairs = form_id, False, []
        self._textarea: list[str] | None = None
        self._select: str | None = None

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
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.pairs.append((name, attrs.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "textarea" and name:
            self._textarea = [name, ""]
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in attrs:
            self.pairs.append((self._select, attrs.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self.in_form = False
        elif tag == "textarea" and self._textarea is not None:
            name, text = self._textarea
            # A textarea's first newline after the tag is not part of its value.
            self.pairs.append((name, text.removeprefix("\n")))
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data


def form_pairs(response, form_id: str | None = None) -> list[tuple[str, str]]:
    """The form's (name, value) pairs in page order (``form_id``, else every form)."""
    parser = _FormFields(form_id)
    parser.feed(response.content.decode())
    return parser.pairs


def form_data(response, form_id: str | None = None) -> dict:
    """The form's fields as a dict for the test client; a repeated name maps to a list."""
    data: dict = {}
    for name, value in form_pairs(response, form_id):
        data.setdefault(name, []).append(value)
    return {name: values if len(values) > 1 else values[0] for name, values in data.items()}


def submit_change_form(client, obj, **changes):
    """Open ``obj``'s admin change form, change some fields and submit it as the browser
    would, every other field as the page had it; return the response."""
    opts = obj._meta
    url = f"/admin/{opts.app_label}/{opts.model_name}/{obj.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200, url
    data = form_data(page, f"{opts.model_name}_form")
    data.update(changes)
    return client.post(url, data)
