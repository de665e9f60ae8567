"""Strict parsing of allowlist entries and client addresses.

`ipaddress` does the real parsing; the checks before it exist only to name the fault precisely
(leading zeros, shorthand, hex, integer, zone, netmask), which `ipaddress` reports as one generic
"does not appear to be an IPv4 or IPv6 address".
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass, field

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_DIGITS = re.compile(r"[0-9]+")
_DOTTED_PART = re.compile(r"[0-9]{1,3}")
_DOTTED = re.compile(r"[0-9]+(\.[0-9]*)*")  # digits and dots: an IPv4 address, maybe a faulty one


@dataclass(frozen=True)
class EntryError(ValueError):
    """An entry that is not accepted: `code` for programs, `message` for people, `suggestions` to offer."""

    code: str
    message: str
    suggestions: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        return self.message


def _fail(code: str, message: str, *suggestions: str) -> EntryError:
    return EntryError(code, message, tuple(suggestions))


def _check_ipv4_text(text: str) -> None:
    """Name the fault in an IPv4 literal that is not strict dotted decimal."""
    if text.lower().startswith("0x") or ".0x" in text.lower():
        raise _fail("hex_address", f"'{text}' is written in hexadecimal; write it as four decimal numbers.")
    if _DIGITS.fullmatch(text):
        raise _fail(
            "integer_address",
            f"'{text}' is an address written as one integer; write it as four decimal numbers, a.b.c.d.",
        )
    if not _DOTTED.fullmatch(text):
        raise _fail(
            "not_an_address",
            f"'{text}' is not an IP address: write four numbers 0-255 separated by dots (e.g. 198.51.100.7),"
            " or an IPv6 address.",
        )
    parts = text.split(".")
    if len(parts) != 4:
        raise _fail(
            "shorthand_address",
            f"'{text}' is not a full IPv4 address: it needs four numbers separated by dots (a.b.c.d).",
        )
    for part in parts:
        if not _DOTTED_PART.fullmatch(part):
            raise _fail(
                "invalid_address", f"'{text}' is not an IPv4 address: '{part}' is not a number 0-255."
            )
        if len(part) > 1 and part.startswith("0"):
            fixed = ".".join(str(int(p)) if _DIGITS.fullmatch(p) else p for p in parts)
            raise _fail(
                "leading_zeros",
                f"'{text}' has a leading zero in '{part}', which some systems read as octal; write {fixed}.",
                fixed,
            )
        if int(part) > 255:
            raise _fail("invalid_address", f"'{text}' is not an IPv4 address: {part} is larger than 255.")


ASCII_SPACE = " \t\r\n"


def _trimmed(text: str) -> str:
    """The text without the ASCII spaces a paste brings. Any other space (U+3000, U+00A0, U+2009...) is
    refused by name: `str.strip` would drop them silently, and a list would keep an address a person
    never typed as such."""
    text = text.strip(ASCII_SPACE)
    odd = next(
        (
            c
            for c in text
            if c not in ASCII_SPACE and (c.isspace() or unicodedata.category(c) in ("Zs", "Cf"))
        ),
        None,
    )
    if odd is not None:
        name = unicodedata.name(odd, "a space")
        raise _fail(
            "invalid_address",
            f"'{text}' holds U+{ord(odd):04X} ({name.lower()}): remove it, an address has no spaces.",
        )
    return text


def parse_address(text: str) -> Address:
    """Parse one address strictly (no zone, no shorthand); IPv4-mapped IPv6 becomes IPv4."""
    text = _trimmed(text)
    if not text:
        raise _fail("empty", "The address is empty.")
    if "/" in text:
        raise _fail(
            "range_not_address",
            f"'{text}' is a range; one address is asked for here (e.g. {text.split('/')[0]}).",
        )
    if "%" in text:
        raise _fail(
            "zone_id",
            f"'{text}' carries a zone id (after '%'), which only means something on one machine; remove it.",
        )
    if ":" in text:
        try:
            address = ipaddress.IPv6Address(text)
        except ValueError as error:
            raise _fail("invalid_address", f"'{text}' is not a valid IPv6 address ({error}).") from None
        return unmapped(address)
    _check_ipv4_text(text)
    return ipaddress.IPv4Address(text)


def _parse_prefix(text: str, prefix_text: str, max_prefix: int) -> int:
    if "." in prefix_text or ":" in prefix_text:
        raise _fail(
            "netmask_form",
            f"'{text}' uses a netmask; write the prefix length instead (for example /24 for 255.255.255.0).",
        )
    if not _DIGITS.fullmatch(prefix_text):
        raise _fail("invalid_prefix", f"'{text}': the prefix '/{prefix_text}' is not a number.")
    if len(prefix_text) > 1 and prefix_text.startswith("0"):
        raise _fail(
            "leading_zeros",
            f"'{text}': the prefix '/{prefix_text}' has a leading zero; write /{int(prefix_text)}.",
        )
    prefix = int(prefix_text)
    if prefix > max_prefix:
        raise _fail(
            "prefix_out_of_range",
            f"'{text}': the prefix /{prefix} is out of range; it must be 0 to {max_prefix} for this family.",
        )
    return prefix


def parse_entry(text: str) -> Network:
    """Parse an allowlist entry (an address or a CIDR range) strictly, as the service does (docs/contract.md):
    no leading zeros, shorthand, hex or integer IPv4, zone ids or netmasks; a prefix in range.

    Raises EntryError naming the fault and, where there is one, the fix.
    """
    text = _trimmed(text)
    if not text:
        raise _fail(
            "empty",
            "The entry is empty: give an address such as 203.0.113.7 or a range such as 203.0.113.0/24.",
        )
    if text.count("/") > 1:
        raise _fail("invalid_cidr", f"'{text}' has more than one '/'.")
    address_text, slash, prefix_text = text.partition("/")
    if "%" in address_text:
        parse_address(address_text)  # raises the zone message
    if ":" in address_text:
        try:
            raw_address: Address = ipaddress.IPv6Address(address_text)
        except ValueError as error:
            raise _fail(
                "invalid_address", f"'{address_text}' is not a valid IPv6 address ({error})."
            ) from None
        max_prefix = 128
    else:
        _check_ipv4_text(address_text)
        raw_address = ipaddress.IPv4Address(address_text)
        max_prefix = 32
    prefix = _parse_prefix(text, prefix_text, max_prefix) if slash else max_prefix

    network = ipaddress.ip_network(f"{raw_address}/{prefix}", strict=False)
    if network.network_address != raw_address:
        host = f"{raw_address}/{max_prefix}"
        raise _fail(
            "host_bits_set",
            f"'{text}' has host bits set. Did you mean the whole range {network} "
            f"or the single address {host}?",
            str(network),
            host,
        )
    return _unmap(network)


def unmapped(address: Address) -> Address:
    """The one IPv4-mapped rule, the service's: ::ffff:a.b.c.d is the IPv4 address it carries."""
    if address.version == 6:
        mapped = address.ipv4_mapped
        if mapped is not None:
            return mapped
    return address


def _unmap(network: Network) -> Network:
    """Store an IPv4-mapped IPv6 range (::ffff:0:0/96 and inside it) as the IPv4 range it stands for."""
    if isinstance(network, ipaddress.IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:
            return ipaddress.IPv4Network(f"{mapped}/{network.prefixlen - 96}")
    return network


def canonical(network: Network) -> str:
    """The one spelling of an entry: lowercase compressed IPv6, always with its prefix length."""
    return network.with_prefixlen


def canonical_entry(text: str) -> str:
    return canonical(parse_entry(text))


def parse_client_ip(text: str | None) -> Address | None:
    """Parse an address from a peer or an X-Forwarded-For element, dropping ports and brackets.

    Returns None for anything malformed: callers treat that as an unknown source, which fails closed.
    """
    if not text:
        return None
    text = _trimmed(text)
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or (end + 1 < len(text) and not re.fullmatch(r":[0-9]{1,5}", text[end + 1 :])):
            return None
        text = text[1:end]
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
        if not re.fullmatch(r"[0-9]{1,5}", port):
            return None
        text = host
    try:
        return parse_address(text)
    except EntryError:
        return None
