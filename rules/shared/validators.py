"""Form validators shared by the admin and the import form."""

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

from .text import strings_in, unstorable_character


@deconstructible
class ProhibitUnstorableCharactersValidator:
    """Refuse a NUL, another control character (tab and line ends aside) or a lone
    surrogate (``rules.shared.text.UNSTORABLE``) with a form error that names it, instead of
    a database error (PostgreSQL refuses NUL) or a feed that XML cannot carry.
    Django's own ``ProhibitNullCharactersValidator`` covers NUL in a ``CharField``
    only; labels (a JSON list) and the other control characters need this one."""

    message = _("Remove the invisible control character %(code)s at character %(position)s: it cannot be stored.")
    code = "unstorable_character"

    def __call__(self, value):
        for text in strings_in(value):
            found = unstorable_character(text)
            if found is not None:
                offset, _what = found
                raise ValidationError(
                    self.message,
                    code=self.code,
                    params={"code": f"U+{ord(text[offset]):04X}", "position": offset + 1},
                )

    def __eq__(self, other):
        return isinstance(other, ProhibitUnstorableCharactersValidator)

