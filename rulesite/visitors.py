"""Who is asking: a reader, whose responses are public and may be cached and compressed,
or a signed-in moderator, whose are private.

A request is a moderator's when its session cookie names a session with a signed-in
user. A cookie alone proves nothing: a made-up ``sessionid`` (or one whose session has
ended) is a reader's request like any other, so it cannot be used to get past the
response cache. Finding out costs one read of the session (one query with the database
sessions used here), and only for requests that carry the cookie; the answer is kept
on the request.
"""

from django.conf import settings
from django.contrib.auth import SESSION_KEY


def is_signed_in(request) -> bool:
    known = getattr(request, "_rulesite_signed_in", None)
    if known is None:
        known = settings.SESSION_COOKIE_NAME in request.COOKIES and SESSION_KEY in request.session
        request._rulesite_signed_in = known
    return known
