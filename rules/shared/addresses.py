"""What limits count a client by, from its IP address (``rulesite.client_ip`` reads
the address): the API's rate (``rules.api.throttling``) and the suggestions' limits and
blocks (``rules.moderation.suggestions``, which store it hashed) count alike."""

import ipaddress


def address_key(address: str) -> str:
    """An IPv4 address (one mapped into IPv6 too), or the /64 network of an IPv6 address
    (one host's share: it may change its last 64 bits at will); anything else as given,
    stripped."""
    value = address.strip()
    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        return value
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ipaddress.ip_network(f"{ip}/64", strict=False)) if ip.version == 6 else str(ip)
