//! Which IP addresses a webhook may be delivered to: those the IANA special-purpose address
//! registries (IPv4 and IPv6) do not set apart. A webhook's URL is typed by anyone with an account,
//! so without this check it would reach our own machines and network (request forgery).
//!
//! Blocks that the registries mark globally reachable inside a larger refused block are refused
//! with it: in `192.0.0.0/24` the PCP and TURN anycast addresses (`192.0.0.9`, `192.0.0.10`), and in
//! `2001::/23` the anycast addresses of `2001:1::/48`, AMT (`2001:3::/32`), AS112 (`2001:4:112::/48`),
//! ORCHIDv2 (`2001:20::/28`) and DRIP (`2001:30::/28`). They are anycast services or identifiers
//! where no webhook receiver lives, and refusing the whole block errs on the safe side. Blocks that
//! are globally reachable on their own (AS112 `192.31.196.0/24` and `192.175.48.0/24`, AMT
//! `192.52.193.0/24`) are public.
//!
//! IPv6 is public only inside `2000::/3`, the one block allocated for global unicast: that leaves out
//! `::`, `::1`, the deprecated IPv4-compatible `::/96`, `100::/64` (discard) and its neighbour, the
//! SRv6 `5f00::/16`, `fc00::/7`, `fe80::/10`, `fec0::/10` and `ff00::/8` at once, and any block
//! allocated later outside it until it is looked at. The forms that carry an IPv4 address
//! (`::ffff:0:0/96` mapped, `64:ff9b::/96` NAT64, `2002::/16` 6to4) are judged by that address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `address` may be delivered to: not set apart by the special-purpose registries.
pub fn is_public(address: IpAddr) -> bool {
    refusal(address).is_none()
}

/// Why `address` is not public, in words that follow "is" (`a private address`), or `None` when
/// it is public.
pub(crate) fn refusal(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    }
}

/// The IPv4 blocks refused: network, prefix length, and what an address in it is.
const REFUSED_V4: &[([u8; 4], u8, &str)] = &[
    ([0, 0, 0, 0], 8, "a \"this network\" address"),
    ([10, 0, 0, 0], 8, "a private address"),
    ([100, 64, 0, 0], 10, "a shared (carrier-grade NAT) address"),
    ([127, 0, 0, 0], 8, "a loopback address"),
    ([169, 254, 0, 0], 16, "a link-local address"),
    ([172, 16, 0, 0], 12, "a private address"),
    ([192, 0, 0, 0], 24, "an IETF protocol address"),
    ([192, 0, 2, 0], 24, "a documentation address"),
    ([192, 88, 99, 0], 24, "a deprecated 6to4 relay address"),
    ([192, 168, 0, 0], 16, "a private address"),
    ([198, 18, 0, 0], 15, "a benchmarking address"),
    ([198, 51, 100, 0], 24, "a documentation address"),
    ([203, 0, 113, 0], 24, "a documentation address"),
    ([224, 0, 0, 0], 4, "a multicast address"),
    ([255, 255, 255, 255], 32, "the broadcast address"),
    ([240, 0, 0, 0], 4, "a reserved address"),
];

/// The IPv6 blocks refused inside `2000::/3`.
const REFUSED_V6: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, "a documentation address"),
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, "an IETF protocol address"),
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, "a documentation address"),
];

fn refusal_v4(address: Ipv4Addr) -> Option<&'static str> {
    let bits = u32::from(address);
    REFUSED_V4
        .iter()
        .find(|(network, prefix, _)| in_block(bits.into(), u32::from_be_bytes(*network).into(), *prefix, 32))
        .map(|(_, _, what)| *what)
}

fn refusal_v6(address: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = embedded_v4(address) {
        return refusal_v4(v4);
    }
    let bits = u128::from(address);
    match address.segments()[0] {
        0 if bits == 0 => return Some("the unspecified address"),
        0 if bits == 1 => return Some("a loopback address"),
        0xfc00..=0xfdff => return Some("a private address"),
        0xfe80..=0xfebf => return Some("a link-local address"),
        0xff00..=0xffff => return Some("a multicast address"),
        0x2000..=0x3fff => {}
        _ => return Some("a reserved address"),
    }
    REFUSED_V6
        .iter()
        .find(|(network, prefix, _)| in_block(bits, u128::from(*network), *prefix, 128))
        .map(|(_, _, what)| *what)
}

/// The IPv4 address an IPv6 address stands for: the IPv4-mapped `::ffff:a.b.c.d`, the NAT64
/// well-known prefix `64:ff9b::a.b.c.d`, and 6to4's `2002:aabb:ccdd::/48`.
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(address);
    let low = Ipv4Addr::from(bits as u32);
    if in_block(bits, 0xffff_0000_0000, 96, 128) || in_block(bits, 0x64_ff9b << 96, 96, 128) {
        Some(low)
    } else if address.segments()[0] == 0x2002 {
        Some(Ipv4Addr::from((bits >> 80) as u32))
    } else {
        None
    }
}

/// Whether `bits` (of an address `width` bits long) is in `network/prefix`.
fn in_block(bits: u128, network: u128, prefix: u8, width: u8) -> bool {
    let host_bits = u32::from(width - prefix);
    bits.checked_shr(host_bits).unwrap_or(0) == network.checked_shr(host_bits).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(cases: &[(&str, Option<&str>)]) {
        for &(address, expected) in cases {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(refusal(ip), expected, "{address}");
            assert_eq!(is_public(ip), expected.is_none(), "{address}");
        }
    }

    #[test]
    fn ipv4() {
        check(&[
            ("0.0.0.0", Some("a \"this network\" address")),
            ("0.255.255.255", Some("a \"this network\" address")),
            ("1.1.1.1", None),
            ("8.8.8.8", None),
            ("9.255.255.255", None),
            ("10.0.0.1", Some("a private address")),
            ("11.0.0.0", None),
            ("100.63.255.255", None),
            ("100.64.0.0", Some("a shared (carrier-grade NAT) address")),
            ("100.127.255.255", Some("a shared (carrier-grade NAT) address")),
            ("100.128.0.0", None),
            ("127.0.0.1", Some("a loopback address")),
            ("127.255.255.254", Some("a loopback address")),
            ("169.254.169.254", Some("a link-local address")),
            ("172.15.255.255", None),
            ("172.16.0.0", Some("a private address")),
            ("172.31.255.255", Some("a private address")),
            ("172.32.0.0", None),
            ("192.0.0.9", Some("an IETF protocol address")),
            ("192.0.0.170", Some("an IETF protocol address")),
            ("192.0.1.1", None),
            ("192.0.2.1", Some("a documentation address")),
            ("192.31.196.1", None),
            ("192.52.193.1", None),
            ("192.88.99.1", Some("a deprecated 6to4 relay address")),
            ("192.167.255.255", None),
            ("192.168.1.1", Some("a private address")),
            ("192.169.0.0", None),
            ("192.175.48.1", None),
            ("198.17.255.255", None),
            ("198.18.0.0", Some("a benchmarking address")),
            ("198.19.255.255", Some("a benchmarking address")),
            ("198.20.0.0", None),
            ("198.51.100.7", Some("a documentation address")),
            ("203.0.113.7", Some("a documentation address")),
            ("223.255.255.255", None),
            ("224.0.0.1", Some("a multicast address")),
            ("239.255.255.250", Some("a multicast address")),
            ("240.0.0.1", Some("a reserved address")),
            ("255.255.255.254", Some("a reserved address")),
            ("255.255.255.255", Some("the broadcast address")),
        ]);
    }

    #[test]
    fn ipv6() {
        check(&[
            ("::", Some("the unspecified address")),
            ("::1", Some("a loopback address")),
            ("::2", Some("a reserved address")),
            ("::8.8.8.8", Some("a reserved address")),
            ("100::1", Some("a reserved address")),
            ("100:0:0:1::1", Some("a reserved address")),
            ("5f00::1", Some("a reserved address")),
            ("fc00::1", Some("a private address")),
            ("fd12:3456::1", Some("a private address")),
            ("fe80::1", Some("a link-local address")),
            ("febf::1", Some("a link-local address")),
            ("fec0::1", Some("a reserved address")),
            ("ff02::1", Some("a multicast address")),
            ("ff0e::1", Some("a multicast address")),
            ("64:ff9b:1::1", Some("a reserved address")),
            ("2001:db8::1", Some("a documentation address")),
            ("2001:db8:ffff::1", Some("a documentation address")),
            ("2001::1", Some("an IETF protocol address")),
            ("2001:1::1", Some("an IETF protocol address")),
            ("2001:3::1", Some("an IETF protocol address")),
            ("2001:1ff:ffff::1", Some("an IETF protocol address")),
            ("2001:200::1", None),
            ("2001:4860:4860::8888", None),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001::1", None),
            ("3ffe::1", None),
            ("3fff::1", Some("a documentation address")),
            ("3fff:fff::1", Some("a documentation address")),
            ("4000::1", Some("a reserved address")),
        ]);
    }

    #[test]
    fn ipv6_forms_of_ipv4_are_judged_by_the_ipv4_address() {
        check(&[
            ("::ffff:8.8.8.8", None),
            ("::ffff:127.0.0.1", Some("a loopback address")),
            ("::ffff:10.1.2.3", Some("a private address")),
            ("::ffff:169.254.169.254", Some("a link-local address")),
            ("64:ff9b::8.8.8.8", None),
            ("64:ff9b::127.0.0.1", Some("a loopback address")),
            ("64:ff9b::192.168.0.1", Some("a private address")),
            ("2002:0808:0808::1", None),
            ("2002:7f00:0001::1", Some("a loopback address")),
            ("2002:0a00:0001:ffff::1", Some("a private address")),
            ("2002:c0a8:0101::", Some("a private address")),
        ]);
    }
}
