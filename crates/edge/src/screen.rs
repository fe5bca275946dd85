//! What every request is held to before the service sees it: the server's limits (target length
//! `414`, header size `431`, its time budget `503`), and whose address it comes from, read from the
//! forwarding headers of a trusted proxy.
//!
//! # The time budget
//!
//! Answers are made on the runtime's threads and a cached one takes microseconds, so the budget does
//! not wrap handling in a timer or move it to another thread: a request that is handled at all is
//! handled at full speed. Instead, the budget runs from the moment the request's bytes arrived at
//! the connection (when the socket woke the connection's task, or when a read found them waiting;
//! see `conn`), and is checked once, when handling starts. A request that waited past its budget
//! (behind slow answers on its connection, pipelined HTTP/1.1 requests or multiplexed HTTP/2 streams,
//! or in the runtime's queue when the server is overloaded) is refused `503` with `Retry-After` at
//! once, without work, so an overloaded server sheds the requests whose clients have waited too
//! long instead of serving everyone late. The cost on the hot path is one clock read per request.
//! Work already started is not interrupted: answers come from memory, with no IO to cancel.
//!
//! # Limits checked here, below hyper's own
//!
//! hyper refuses oversized heads itself, but with a bare status and no body. The server sets hyper's
//! ceilings well above [`Screen`]'s limits, so that a client over a limit gets the service's answer
//! naming it; only a head past the ceiling (or with more than 100 header fields) meets hyper's bare
//! `431`/`414`.

use std::net::IpAddr;
use std::time::Duration;

use hyper::Request;
use hyper::header::{FORWARDED, HeaderMap, HeaderName};
use tapster_domain::AddressBlock;

use crate::service::Refusal;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
/// Seconds a client is asked to wait before retrying a `503`.
pub(crate) const RETRY_SECONDS: u64 = 1;

/// The limits every request is held to, and the proxies whose forwarding headers are believed.
#[derive(Debug, Clone)]
pub(crate) struct Screen {
    pub(crate) max_uri_bytes: usize,
    pub(crate) max_header_bytes: usize,
    pub(crate) budget: Duration,
    pub(crate) trusted_proxies: Vec<AddressBlock>,
}

impl Screen {
    /// Checks a request whose bytes arrived `waited` ago: first its time budget, then its head.
    pub(crate) fn check<B>(&self, request: &Request<B>, waited: Duration) -> Result<(), Refusal> {
        if waited > self.budget {
            return Err(Refusal::OverBudget { retry_after: RETRY_SECONDS });
        }
        let length = request.uri().path_and_query().map_or(0, |target| target.as_str().len());
        if length > self.max_uri_bytes {
            return Err(Refusal::UriTooLong { length, limit: self.max_uri_bytes });
        }
        let size = header_bytes(request.headers());
        if size > self.max_header_bytes {
            return Err(Refusal::HeadersTooLarge { size, limit: self.max_header_bytes });
        }
        Ok(())
    }

    /// The calling address of a request from the TCP peer `peer`.
    pub(crate) fn caller(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        client_address(peer, headers, &self.trusted_proxies)
    }
}

/// The size of a header block as sent in HTTP/1.1: each field's name and value, `: ` and CRLF.
fn header_bytes(headers: &HeaderMap) -> usize {
    headers.iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum()
}

/// The calling address: the TCP peer, unless the peer is a trusted proxy. Then it is the rightmost
/// address of `Forwarded: for=` (or, without that header, of `X-Forwarded-For`) that is not itself a
/// trusted proxy: everything left of it was written by someone who is not trusted. A header that
/// cannot be read, or a hop that hides its address (`unknown`, an obfuscated name) before an
/// untrusted address is found, gives the peer.
fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[AddressBlock]) -> IpAddr {
    let is_trusted = |address: IpAddr| trusted.iter().any(|block| block.contains(address));
    if trusted.is_empty() || !is_trusted(peer) {
        return peer;
    }
    let hops = if headers.contains_key(FORWARDED) {
        forwarded_for(headers)
    } else if headers.contains_key(X_FORWARDED_FOR) {
        x_forwarded_for(headers)
    } else {
        return peer;
    };
    let Some(hops) = hops else { return peer };
    for hop in hops.iter().rev() {
        match *hop {
            Some(address) if is_trusted(address) => {}
            Some(address) => return address,
            None => return peer,
        }
    }
    // Every hop is a trusted proxy: the first of them is where the request began.
    hops.first().copied().flatten().unwrap_or(peer)
}

/// The `for=` of every element of every `Forwarded` field, in order (RFC 7239); `None` for a hop
/// that does not give an address. `None` overall when a field cannot be read.
fn forwarded_for(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    let mut hops = Vec::new();
    for value in headers.get_all(FORWARDED) {
        for element in value.to_str().ok()?.split(',') {
            let mut address = None;
            for pair in element.split(';') {
                let (name, value) = pair.trim().split_once('=')?;
                if name.trim().eq_ignore_ascii_case("for") {
                    address = Some(node(unquote(value.trim())?)?);
                }
            }
            hops.push(address.flatten());
        }
    }
    Some(hops)
}

/// Every address of every `X-Forwarded-For` field, in order; `None` when one is not an address.
fn x_forwarded_for(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    let mut hops = Vec::new();
    for value in headers.get_all(X_FORWARDED_FOR) {
        for hop in value.to_str().ok()?.split(',') {
            hops.push(Some(node(hop.trim())??));
        }
    }
    Some(hops)
}

fn unquote(value: &str) -> Option<&str> {
    match value.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"'),
        None => Some(value),
    }
}

/// A node of a forwarding header: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`, `[2001:db8::1]:4711`
/// or a bare IPv6 address give `Some(Some(address))`; `unknown` and obfuscated names (`_hidden`)
/// give `Some(None)`; anything else `None`.
fn node(value: &str) -> Option<Option<IpAddr>> {
    if value.eq_ignore_ascii_case("unknown") || value.starts_with('_') {
        return Some(None);
    }
    if let Ok(address) = value.parse() {
        return Some(Some(address));
    }
    let host = match value.strip_prefix('[') {
        Some(bracketed) => {
            let (host, rest) = bracketed.split_once(']')?;
            if !rest.is_empty() {
                port(rest.strip_prefix(':')?)?;
            }
            host.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6)
        }
        None => {
            let (host, rest) = value.rsplit_once(':')?;
            port(rest)?;
            host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
        }
    };
    host.map(Some)
}

/// A port is digits (or an obfuscated `_name`, RFC 7239 section 6.3).
fn port(value: &str) -> Option<()> {
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) && value.len() <= 5;
    (digits || value.starts_with('_')).then_some(())
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    fn blocks(cidrs: &[&str]) -> Vec<AddressBlock> {
        cidrs.iter().map(|c| AddressBlock::parse(c).unwrap()).collect()
    }

    fn headers(fields: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in fields {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    fn ip(value: &str) -> IpAddr {
        value.parse().unwrap()
    }

    /// Header fields as (name, value).
    type Fields = &'static [(&'static str, &'static str)];

    /// (peer, headers, expected calling address), with `10.0.0.0/8` and `2001:db8::/32` trusted.
    const CASES: &[(&str, Fields, &str)] = &[
        // An untrusted peer's headers are ignored.
        ("203.0.113.5", &[("x-forwarded-for", "198.51.100.7")], "203.0.113.5"),
        ("203.0.113.5", &[("forwarded", "for=198.51.100.7")], "203.0.113.5"),
        // A trusted peer without forwarding headers is itself the caller.
        ("10.0.0.1", &[], "10.0.0.1"),
        ("10.0.0.1", &[("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
        // The rightmost untrusted address: what the client wrote on the left is not believed.
        ("10.0.0.1", &[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.2")], "198.51.100.7"),
        ("10.0.0.1", &[("x-forwarded-for", "1.2.3.4"), ("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
        ("10.0.0.1", &[("x-forwarded-for", "198.51.100.7:4711")], "198.51.100.7"),
        ("10.0.0.1", &[("x-forwarded-for", "2001:db8::1, 2a00::5")], "2a00::5"),
        ("10.0.0.1", &[("x-forwarded-for", "[2a00::5]:443")], "2a00::5"),
        // Every hop trusted: the first one.
        ("10.0.0.1", &[("x-forwarded-for", "10.1.1.1, 10.2.2.2")], "10.1.1.1"),
        // Forwarded wins over X-Forwarded-For, with quoting, ports, IPv6 and other parameters.
        (
            "10.0.0.1",
            &[("forwarded", "for=1.2.3.4, for=198.51.100.7;proto=https"), ("x-forwarded-for", "5.6.7.8")],
            "198.51.100.7",
        ),
        ("10.0.0.1", &[("forwarded", r#"For="[2a00::5]:4711";by=10.0.0.1"#)], "2a00::5"),
        ("10.0.0.1", &[("forwarded", r#"for="198.51.100.7:80", for=10.0.0.9"#)], "198.51.100.7"),
        // A hop that hides its address before any untrusted one: the peer.
        ("10.0.0.1", &[("forwarded", "for=198.51.100.7, for=unknown")], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", "for=_hidden")], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", "proto=https")], "10.0.0.1"),
        // ... but one left of it does not matter.
        ("10.0.0.1", &[("forwarded", "for=unknown, for=198.51.100.7")], "198.51.100.7"),
        // Headers that cannot be read: the peer.
        ("10.0.0.1", &[("x-forwarded-for", "198.51.100.7, not-an-address")], "10.0.0.1"),
        ("10.0.0.1", &[("x-forwarded-for", "")], "10.0.0.1"),
        ("10.0.0.1", &[("x-forwarded-for", "1.2.3.4,,5.6.7.8")], "10.0.0.1"),
        ("10.0.0.1", &[("x-forwarded-for", "198.51.100.7:http")], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", "for")], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", r#"for="198.51.100.7"#)], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", "for=[2a00::5")], "10.0.0.1"),
        ("10.0.0.1", &[("forwarded", "for=300.1.1.1")], "10.0.0.1"),
        // A trusted IPv6 peer, and an IPv4 proxy seen through an IPv6 socket.
        ("2001:db8::9", &[("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
        ("::ffff:10.0.0.1", &[("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
    ];

    #[test]
    fn the_calling_address_comes_from_trusted_proxies_only() {
        let trusted = blocks(&["10.0.0.0/8", "2001:db8::/32"]);
        for &(peer, fields, expected) in CASES {
            assert_eq!(
                client_address(ip(peer), &headers(fields), &trusted),
                ip(expected),
                "{peer} {fields:?}"
            );
        }
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_caller() {
        let fields = headers(&[("x-forwarded-for", "198.51.100.7"), ("forwarded", "for=198.51.100.8")]);
        assert_eq!(client_address(ip("10.0.0.1"), &fields, &[]), ip("10.0.0.1"));
    }

    #[test]
    fn header_size_counts_names_values_and_separators() {
        assert_eq!(header_bytes(&headers(&[("host", "a"), ("x-long", "bbbb")])), (4 + 1 + 4) + (6 + 4 + 4));
    }
}
