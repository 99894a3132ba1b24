"""Sending the players' form as a person does: open it, take a few seconds, send.

The form's hidden fields (the signed ``started`` stamp, ``seen_version``) are read from
the page the client was shown, never made up, so a test sends exactly what a browser
would; ``later`` moves the clock on (time-machine) instead of sleeping.
"""

import re
import time
from contextlib import contextmanager
from http import HTTPStatus

import time_machine

#: What a reader of the form typically needs: more than the minimum fill time.
TAKES = 10


def hidden_value(html: str, name: str) -> str:
    """The value of the form's hidden input ``name`` ("" when it has none)."""
    tag = re.search(rf'<input[^>]*\bname="{name}"[^>]*>', html)
    assert tag, f"no {name} field in the page"
    value = re.search(r'\bvalue="([^"]*)"', tag[0])
    return value[1] if value else ""


def opened(client, url: str, **extra) -> dict:
    """The hidden fields of the form at ``url`` as the client is shown it (a GET)."""
    page = client.get(url, **extra)
    assert page.status_code == HTTPStatus.OK, page.status_code
    html = page.content.decode()
    return {"started": hidden_value(html, "started"), "seen_version": hidden_value(html, "seen_version")}


@contextmanager
def later(seconds: float = TAKES):
    """The clock ``seconds`` on from now (and ticking) inside the block."""
    with time_machine.travel(time.time() + seconds, tick=True):
        yield


def fields(**overrides) -> dict:
    data = {
        "kind": "typo",
        "comment": "A typo.",
        "proposal": "",
        "email": "",
        "website": "",
        "action": "send",
    }
    data.update(overrides)
    return data


def send(client, url: str, *, address: str | None = None, after: float = TAKES, **overrides):
    """Open the form at ``url`` from ``address`` (the test client's, 127.0.0.1, when
    None), wait ``after`` seconds, post it with ``overrides`` from there."""
    extra = {} if address is None else {"REMOTE_ADDR": address}
    shown = opened(client, url, **extra)
    with later(after):
        return client.post(url, fields(**{**shown, **overrides}), **extra)
