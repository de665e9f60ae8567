"""Address rules: strict parsing with named faults, canonical form, matching, relations."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.netrules import (
    EntryError,
    EntryIndex,
    Relation,
    canonical_entry,
    covering,
    nearest,
    parse_address,
    parse_client_ip,
    parse_entry,
    relate,
    warnings_for,
)
from app.netrules.parse import Address, Network


def matcher_of(networks: list[Network]) -> EntryIndex:
    index = EntryIndex()
    for network in networks:
        index.add(network, None)
    return index


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("010.0.0.1", "leading_zeros"),
        ("1.2.3.0/024", "leading_zeros"),
        ("127.1", "shorthand_address"),
        ("0x7f.0.0.1", "hex_address"),
        ("2130706433", "integer_address"),
        ("1.2.3.4/33", "prefix_out_of_range"),
        ("fe80::1%eth0", "zone_id"),
        ("10.0.0.0/255.0.0.0", "netmask_form"),
        ("192.168.1.5/24", "host_bits_set"),
        ("1.2.3.4/0", "host_bits_set"),
        ("2001:db8::1/129", "prefix_out_of_range"),
        ("256.1.1.1", "invalid_address"),
        ("1.2.3.4/", "invalid_prefix"),
        ("1.2.3.4/24/2", "invalid_cidr"),
        ("", "empty"),
        ("2001:db8:::1", "invalid_address"),
        ("hello", "not_an_address"),
    ],
)
def test_rejects_each_fault_with_its_own_reason(text: str, code: str) -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry(text)
    assert caught.value.code == code
    assert caught.value.message


def test_distinct_faults_have_distinct_messages() -> None:
    texts = [
        "010.0.0.1",
        "127.1",
        "0x7f.0.0.1",
        "2130706433",
        "1.2.3.4/33",
        "fe80::1%eth0",
        "10.0.0.0/255.0.0.0",
    ]
    messages = set()
    for text in texts:
        with pytest.raises(EntryError) as caught:
            parse_entry(text)
        messages.add(caught.value.message.replace(text, "X"))
    assert len(messages) == len(texts)


def test_host_bits_message_offers_both_readings() -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry("192.168.1.5/24")
    assert "192.168.1.0/24" in caught.value.message
    assert "192.168.1.5/32" in caught.value.message
    assert caught.value.suggestions == ("192.168.1.0/24", "192.168.1.5/32")


def test_leading_zero_message_offers_the_fix() -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry("010.0.0.1")
    assert caught.value.suggestions == ("10.0.0.1",)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("::/0", "::/0"),
        ("203.0.113.7", "203.0.113.7/32"),
        (" 203.0.113.0/24 ", "203.0.113.0/24"),
        ("2001:DB8:0:0::/32", "2001:db8::/32"),
        ("::ffff:203.0.113.10", "203.0.113.10/32"),
        ("::ffff:10.0.0.0/104", "10.0.0.0/8"),
        ("0.0.0.0", "0.0.0.0/32"),
    ],
)
def test_canonical_forms(text: str, canonical: str) -> None:
    assert canonical_entry(text) == canonical


def test_mapped_address_is_covered_by_ipv4_entry() -> None:
    matcher = matcher_of([parse_entry("203.0.113.0/24")])
    assert matcher.contains(parse_address("::ffff:203.0.113.10"))
    assert matcher.contains(ipaddress.ip_address("::ffff:203.0.113.10"))
    assert not matcher.contains(parse_address("203.0.114.1"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("198.51.100.7:51234", "198.51.100.7"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("2001:db8::1", "2001:db8::1"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("garbage", None),
        ("", None),
        ("1.2.3.4:port", None),
        ("[::1", None),
        ("010.1.1.1", None),
    ],
)
def test_client_ip_parsing(text: str, expected: str | None) -> None:
    result = parse_client_ip(text)
    assert (str(result) if result else None) == expected


def test_relations_and_coverage() -> None:
    existing = [
        ("a", parse_entry("10.0.0.0/8")),
        ("b", parse_entry("10.1.2.0/24")),
        ("c", parse_entry("2001:db8::/32")),
    ]
    assert [f.relation for f in relate(parse_entry("10.1.2.0/24"), existing)] == [
        Relation.COVERED_BY,
        Relation.DUPLICATE,
    ]
    covers = relate(parse_entry("10.0.0.0/7"), existing)
    assert {f.other_id for f in covers} == {"a", "b"} and all(f.relation is Relation.COVERS for f in covers)
    nets = [net for _, net in existing]
    assert covering(parse_address("10.1.2.3"), nets) == [0, 1]
    assert nearest(parse_address("11.0.0.1"), nets) == 0
    assert nearest(parse_address("11.0.0.1"), [nets[2]]) is None


def test_warnings_explain_private_and_whole_space() -> None:
    assert "switched off" in warnings_for(parse_entry("0.0.0.0/0"))[0]
    assert "private" in warnings_for(parse_entry("192.168.1.0/24"))[0].lower()
    assert "loopback" in warnings_for(parse_entry("127.0.0.1"))[0].lower()
    assert "link-local" in warnings_for(parse_entry("fe80::/10"))[0].lower()
    assert warnings_for(parse_entry("203.0.113.0/24")) == []


ipv4_networks = st.builds(
    lambda value, prefix: ipaddress.ip_network((value, prefix), strict=False),
    st.integers(0, 2**32 - 1),
    st.integers(0, 32),
)
ipv6_networks = st.builds(
    lambda value, prefix: ipaddress.ip_network((value, prefix), strict=False),
    st.integers(0, 2**128 - 1),
    st.integers(0, 128),
)
networks = st.one_of(ipv4_networks, ipv6_networks)


@given(networks)
def test_parse_round_trips_canonical_form(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> None:
    parsed = parse_entry(str(network))
    assert parse_entry(parsed.with_prefixlen) == parsed
    if network.version == 4 or network.network_address.ipv4_mapped is None:
        assert parsed == network


@settings(max_examples=200)
@given(
    st.lists(networks, max_size=40),
    st.lists(
        st.one_of(
            st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address),
            st.integers(0, 2**128 - 1).map(ipaddress.IPv6Address),
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_matcher_agrees_with_linear_scan(nets: list[Network], probes: list[Address]) -> None:
    # Near-miss probes: the edges of every range.
    for net in nets[:10]:
        probes += [net.network_address, net.broadcast_address]
        if int(net.broadcast_address) + 1 < 2**net.max_prefixlen:
            probes.append(net.broadcast_address + 1)
    matcher = matcher_of(nets)
    for probe in probes:
        # As the service does: an IPv4-mapped IPv6 address is compared as the IPv4 address it carries.
        seen = probe.ipv4_mapped if probe.version == 6 and probe.ipv4_mapped else probe
        expected = any(seen in net for net in nets if net.version == seen.version)
        assert matcher.contains(probe) == expected, probe


def test_matcher_agrees_with_linear_scan_on_large_lists() -> None:
    import random

    rng = random.Random(3)
    nets = [
        ipaddress.ip_network((rng.getrandbits(32), rng.randint(12, 32)), strict=False) for _ in range(6000)
    ]
    nets += [
        ipaddress.ip_network((rng.getrandbits(128), rng.randint(8, 128)), strict=False) for _ in range(6000)
    ]
    matcher = matcher_of(nets)
    probes = [net.network_address for net in nets[::200]] + [net.broadcast_address for net in nets[::200]]
    probes += [ipaddress.IPv4Address(rng.getrandbits(32)) for _ in range(100)]
    probes += [ipaddress.IPv6Address(rng.getrandbits(128)) for _ in range(100)]
    # The linear scan over each family's ranges as integers, read once: `probe in net` costs ~1 µs a time.
    spans: dict[int, list[tuple[int, int]]] = {4: [], 6: []}
    for net in nets:
        spans[net.version].append((int(net.network_address), int(net.broadcast_address)))
    for probe in probes:
        value = int(probe)
        assert matcher.contains(probe) == any(start <= value <= end for start, end in spans[probe.version])


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("not an ip", "not_an_address", "is not an IP address"),
        ("1.2.3.4 5", "not_an_address", "is not an IP address"),
        ("10.0.0.0/8", "range_not_address", "is a range; one address is asked for here (e.g. 10.0.0.0)"),
        ("1.2.3", "shorthand_address", "is not a full IPv4 address"),
    ],
)
def test_one_address_names_what_was_typed_instead(text: str, code: str, says: str) -> None:
    with pytest.raises(EntryError) as raised:
        parse_address(text)
    assert raised.value.code == code and says in raised.value.message
