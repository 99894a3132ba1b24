"""Admin logins are rate-limited (django-axes): five wrong passwords for one user from one
address lock that pair out for a while; other users and a timely right password are not hurt.
"""

import pytest
from django.urls import reverse

from tests.module_world import fixtures

from .conftest import make_staff

PASSWORD = "a-long-password"  # make_staff's password


def log_in(client, username: str, password: str, **headers):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
        **headers,
    )


def fail(client, username: str, times: int):
    """``times`` wrong passwords; the fifth already answers with the lockout page."""
    for attempt in range(1, times + 1):
        response = log_in(client, username, "wrong-password")
        if attempt < 5:
            assert response.status_code == 200  # the login form again, with its error
            assert "Please enter the correct username and password" in response.content.decode()
        else:
            assert response.status_code == 429
    return response


def is_logged_in(client) -> bool:
    return client.get(reverse("admin:index")).status_code == 200


def build_alice():
    return make_staff("alice")


# Written once for the module's tests that read it (tests.module_world).
_alice_of_the_module, alice = fixtures(build_alice, "alice")


@pytest.mark.django_db
def test_five_wrong_passwords_lock_out_even_the_right_one(client, alice):
    fail(client, "alice", 5)

    response = log_in(client, "alice", PASSWORD)

    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many login attempts" in page
    assert "failed 5 times in a row" in page
    assert "try again in 15 minutes" in page
    assert not is_logged_in(client)


@pytest.mark.django_db
def test_the_lockout_page_speaks_the_users_language(client, alice):
    fail(client, "alice", 5)

    response = log_in(client, "alice", PASSWORD, HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == 429
    assert '<html lang="de"' in response.content.decode()


@pytest.mark.django_db
def test_four_wrong_passwords_still_let_the_right_one_in(client, alice):
    fail(client, "alice", 4)

    response = log_in(client, "alice", PASSWORD)

    assert response.status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_another_user_from_the_same_address_is_not_locked_out(client, alice):
    make_staff("bob")
    fail(client, "alice", 6)

    response = log_in(client, "bob", PASSWORD)

    assert response.status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_the_same_user_from_another_address_is_not_locked_out(client, alice):
    fail(client, "alice", 6)

    response = log_in(client, "alice", PASSWORD, REMOTE_ADDR="192.0.2.7")

    assert response.status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_a_successful_login_resets_the_count(client, alice):
    fail(client, "alice", 4)
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()

    fail(client, "alice", 4)  # 8 failures in all, but only 4 since the success
    response = log_in(client, "alice", PASSWORD)

    assert response.status_code == 302
    assert is_logged_in(client)


def fail_from(client, username: str, forwarded_for: str):
    """Five wrong passwords through a reverse proxy that names the client it saw."""
    for _ in range(5):
        response = log_in(
            client, username, "wrong-password", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded_for
        )
    assert response.status_code == 429


@pytest.mark.django_db
def test_behind_a_proxy_each_client_is_counted_on_its_own(client, alice, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    fail_from(client, "alice", "203.0.113.7")

    # Alice from another address, through the same proxy, still gets in.
    response = log_in(client, "alice", PASSWORD, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.9")

    assert response.status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_escape_the_lock(client, alice, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    fail_from(client, "alice", "203.0.113.7")

    # The guesser writes an address of their own into the header; the proxy appends the
    # one it saw, and only that one is believed.
    response = log_in(
        client, "alice", PASSWORD, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.9, 203.0.113.7"
    )

    assert response.status_code == 429


@pytest.mark.django_db
def test_without_trusted_proxies_the_header_is_ignored(client, alice):
    fail_from(client, "alice", "203.0.113.7")

    response = log_in(client, "alice", PASSWORD, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.9")

    assert response.status_code == 429  # the same REMOTE_ADDR: the same (locked) client
