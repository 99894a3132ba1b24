"""Fair use: over the rate, the API's views answer 429 JSON with Retry-After; what the
response cache serves never counts; X-Forwarded-For does not make a new client
(rules/api/throttling.py)."""

import pytest
from django.core.cache import cache
from django.test import override_settings

from .conftest import get_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_a_minute(world):
    cache.clear()
    with override_settings(API_RATE="3/minute"):
        yield world
    cache.clear()


def test_over_the_rate_is_a_json_429_with_retry_after(client, three_a_minute):
    for size in (1, 2, 3):  # three different lists: three uncached requests
        get_json(client, f"/api/v1/entries/?page_size={size}")
    response = client.get("/api/v1/entries/?page_size=4")
    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    assert "throttled" in response.json()["detail"].lower()
    assert 0 < int(response["Retry-After"]) <= 60
    # A spoofed X-Forwarded-For is not another client.
    assert client.get("/api/v1/entries/?page_size=5", HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429
    # Another address is.
    assert client.get("/api/v1/entries/?page_size=6", REMOTE_ADDR="198.51.100.7").status_code == 200


def test_what_the_cache_serves_never_counts(client, three_a_minute):
    url = "/api/v1/changes/?since=0"
    first = get_json(client, url)
    for _ in range(10):
        assert get_json(client, url) == first
    for size in (1, 2):
        get_json(client, f"/api/v1/entries/?page_size={size}")
    assert client.get("/api/v1/entries/?page_size=3").status_code == 429
    assert get_json(client, url) == first  # still served


def test_the_schema_documents_429(client, db):
    import yaml

    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    operation = schema["paths"]["/api/v1/changes/"]["get"]
    assert "Retry-After" in operation["responses"]["429"]["description"]


def test_an_ipv6_client_counts_as_its_64_network(client, three_a_minute):
    """Changing the last 64 bits of an IPv6 address escapes no limit (as for suggestions)."""
    for n in range(3):
        response = client.get(f"/api/v1/entries/?page_size={n + 1}", REMOTE_ADDR=f"2001:db8:1:2::{n + 1}")
        assert response.status_code == 200
    assert client.get("/api/v1/entries/?page_size=7", REMOTE_ADDR="2001:db8:1:2::ffff").status_code == 429
    assert client.get("/api/v1/entries/?page_size=8", REMOTE_ADDR="2001:db8:1:3::1").status_code == 200
